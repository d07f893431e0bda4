package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func (f *fixture) client(token string) *client.Client {
	return client.New(f.url, client.WithToken(token), client.WithRetries(0))
}

func apiCode(t *testing.T, err error) (int, string) {
	t.Helper()
	var ae *client.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an APIError", err)
	}
	return ae.Status, ae.Code
}

// TestDeleteAgentBacksUpFirstAndStaysDeleted: the typo'd agent is backed
// up (a verified file, named in the answer), removed with its files, not
// recreated by the next write to it, and created again only on request.
func TestDeleteAgentBacksUpFirstAndStaysDeleted(t *testing.T) {
	bdir := t.TempDir()
	f := newFixture(t, Options{AutoCreate: true, Backups: &backup.Options{Dir: bdir, Keep: 3}})
	c := f.client("")
	if _, err := c.Remember(t.Context(), "mian", client.MemoryInput{Content: "typed into the wrong agent"}); err != nil {
		t.Fatal(err)
	}
	got, err := c.DeleteAgent(t.Context(), "mian")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Backup, filepath.Join(bdir, "mian")+string(filepath.Separator)) || got.BackupBytes == 0 {
		t.Errorf("backup = %q (%d bytes), want a file under %s", got.Backup, got.BackupBytes, bdir)
	}
	if err := store.CheckFile(t.Context(), got.Backup); err != nil {
		t.Errorf("the backup: %v", err)
	}
	db := filepath.Join(f.dir, "agents", "mian.db")
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) || len(got.Removed) == 0 {
		t.Errorf("after delete: %s stat %v, removed %q", db, err, got.Removed)
	}
	if names, err := c.Agents(t.Context()); err != nil || len(names) != 0 {
		t.Errorf("agents = %q, %v; want none", names, err)
	}
	_, err = c.Remember(t.Context(), "mian", client.MemoryInput{Content: "again"})
	if status, _ := apiCode(t, err); status != http.StatusNotFound || !strings.Contains(err.Error(), "was deleted") {
		t.Errorf("a write to the deleted agent: %v, want 404 saying it was deleted", err)
	}
	if _, err := c.DeleteAgent(t.Context(), "mian"); !client.IsNotFound(err) {
		t.Errorf("deleting it twice: %v, want 404", err)
	}
	if ca, err := c.CreateAgent(t.Context(), "mian"); err != nil || !ca.Created {
		t.Fatalf("create = %+v, %v", ca, err)
	}
	if _, err := c.Remember(t.Context(), "mian", client.MemoryInput{Content: "again"}); err != nil {
		t.Errorf("a write after create: %v", err)
	}
}

// TestDeleteAgentIsGuarded: tokens on, only a write token for the agent or
// for every agent deletes it; a page of another site cannot at all.
func TestDeleteAgentIsGuarded(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true, Keyring: tokenKeyring(t), Backups: &backup.Options{Dir: t.TempDir()}})
	for _, a := range []string{"assistant", "coder"} {
		if _, err := f.client("tok-admin").Remember(t.Context(), a, client.MemoryInput{Content: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		token, agent string
		status       int
	}{
		{"", "coder", http.StatusUnauthorized},
		{"tok-reader", "coder", http.StatusForbidden},
		{"tok-assistant", "coder", http.StatusForbidden},
	} {
		_, err := f.client(c.token).DeleteAgent(t.Context(), c.agent)
		if status, _ := apiCode(t, err); status != c.status {
			t.Errorf("token %q deleting %s: %v, want %d", c.token, c.agent, err, c.status)
		}
	}
	if code, body := f.sendCrossSite("DELETE", "/v1/agents/coder", "Bearer tok-admin"); code != http.StatusForbidden {
		t.Errorf("a cross-site delete: %d %s, want 403", code, body)
	}
	if _, err := f.client("tok-assistant").CreateAgent(t.Context(), "assistant2"); err == nil {
		t.Error("a token for one agent created another")
	}
	if _, err := f.client("tok-assistant").DeleteAgent(t.Context(), "assistant"); err != nil {
		t.Errorf("the agent's own write token: %v", err)
	}
	if _, err := f.client("tok-admin").DeleteAgent(t.Context(), "coder"); err != nil {
		t.Errorf("a write token for every agent: %v", err)
	}
}

func (f *fixture) sendCrossSite(method, path, authz string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), method, f.url+path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", authz)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.String()
}

// TestExplicitCreate: with agents.create explicit a write to an agent that
// does not exist is 404 naming the setting, and POST /v1/agents makes it.
func TestExplicitCreate(t *testing.T) {
	f := newFixtureWith(t, store.Options{ExplicitCreate: true}, Options{AutoCreate: true})
	c := f.client("")
	_, err := c.Remember(t.Context(), "main", client.MemoryInput{Content: "hello"})
	if status, code := apiCode(t, err); status != http.StatusNotFound || code != "unknown_agent" ||
		!strings.Contains(err.Error(), "agents.create is explicit") {
		t.Fatalf("write to a new agent: %v, want 404 naming agents.create", err)
	}
	if names, _ := f.store.Agents(); len(names) != 0 {
		t.Fatalf("the refused write created %q", names)
	}
	for i, want := range []bool{true, false} {
		if got, err := c.CreateAgent(t.Context(), "main"); err != nil || got.Created != want {
			t.Errorf("create #%d = %+v, %v; want created %v", i+1, got, err, want)
		}
	}
	if _, err := c.Remember(t.Context(), "main", client.MemoryInput{Content: "hello"}); err != nil {
		t.Errorf("a write after create: %v", err)
	}
	_, err = c.CreateAgent(t.Context(), "Bad Name")
	if status, _ := apiCode(t, err); status != http.StatusBadRequest {
		t.Errorf("create with a bad name: %v, want 400", err)
	}
}

// TestExportImportOverHTTP: the export streams, an import into a new agent
// gives back the same export; a second import is refused without merge, a
// bad record is 422 with its line and imports nothing.
func TestExportImportOverHTTP(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	c := f.client("")
	for _, m := range []string{"Alice moved to Chicago", "Bob likes tea"} {
		if _, err := c.Remember(t.Context(), "main", client.MemoryInput{Content: m, Timestamp: time.Date(2026, 2, 8, 9, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	var exp bytes.Buffer
	if err := c.Export(t.Context(), "main", &exp); err != nil {
		t.Fatal(err)
	}
	res, err := c.Import(t.Context(), "copy", bytes.NewReader(exp.Bytes()), client.ImportOptions{})
	if err != nil || !res.Created || res.Records["memory"] != 2 {
		t.Fatalf("import = %+v, %v; want agent copy created with 2 memories", res, err)
	}
	var again bytes.Buffer
	if err := c.Export(t.Context(), "copy", &again); err != nil {
		t.Fatal(err)
	}
	if want := bytes.Replace(exp.Bytes(), []byte(`"agent":"main"`), []byte(`"agent":"copy"`), 1); !bytes.Equal(want, again.Bytes()) {
		t.Errorf("the imported agent's export differs:\n%s\nwant:\n%s", again.Bytes(), want)
	}
	_, err = c.Import(t.Context(), "copy", bytes.NewReader(exp.Bytes()), client.ImportOptions{})
	if status, code := apiCode(t, err); status != http.StatusConflict || code != "not_empty" {
		t.Errorf("a second import without merge: %v, want 409 not_empty", err)
	}
	bad := bytes.Replace(exp.Bytes(), []byte(`"role":""`), []byte(`"role":"a\nb"`), 1)
	_, err = c.Import(t.Context(), "fresh", bytes.NewReader(bad), client.ImportOptions{})
	if status, code := apiCode(t, err); status != http.StatusUnprocessableEntity || code != "invalid_import" ||
		!strings.Contains(err.Error(), "line 2") {
		t.Errorf("a control character in a record: %v, want 422 naming line 2", err)
	}
	if names, _ := c.Agents(t.Context()); len(names) != 2 {
		t.Errorf("agents = %q after the failed import, want main and copy only", names)
	}
	code, body := f.send("POST", "/v1/agents/other/import", "", exp.String()) // sent as application/json
	if code != http.StatusUnsupportedMediaType {
		t.Errorf("an import sent as JSON: %d %s, want 415", code, body)
	}
}

// TestImportKeepsTheAgentWhole: a record the agent could not live with is
// 422 invalid_import naming its line, never a 500 or a lasting 507, and a
// merge stores what the agent forgot flagged, as a POST of it is.
func TestImportKeepsTheAgentWhole(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	c := f.client("")
	at := time.Date(2026, 2, 8, 9, 0, 0, 0, time.UTC)
	for _, m := range []string{"a filler", "Bob's secret is the garden shed"} {
		if _, err := c.Remember(t.Context(), "src", client.MemoryInput{Content: m, Timestamp: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.DeleteMemory(t.Context(), "src", 1); err != nil { // the export's ids start past dst's
		t.Fatal(err)
	}
	var exp bytes.Buffer
	if err := c.Export(t.Context(), "src", &exp); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(exp.String()), "\n")
	withFact := append(append([]string{}, lines[:len(lines)-1]...),
		`{"type":"fact","id":1,"entity":"Bob","content":"Bob keeps a secret","valid_from":1,"created_at":1,"superseded_by":99}`,
		fmt.Sprintf(`{"type":"dormouse-export-end","records":%d}`, len(lines)-1))
	for name, c2 := range map[string]struct {
		export string
		line   string
	}{
		"memory id at 2^63-1":          {strings.Replace(exp.String(), `"id":2,`, `"id":9223372036854775807,`, 1), "line 2"},
		"superseded by a missing fact": {strings.Join(withFact, "\n") + "\n", fmt.Sprintf("line %d", len(lines))},
	} {
		_, err := c.Import(t.Context(), "fresh", strings.NewReader(c2.export), client.ImportOptions{})
		if status, code := apiCode(t, err); status != http.StatusUnprocessableEntity || code != "invalid_import" ||
			!strings.Contains(err.Error(), c2.line) {
			t.Errorf("%s: %v, want 422 invalid_import naming %s", name, err, c2.line)
		}
	}
	if _, err := c.Remember(t.Context(), "dst", client.MemoryInput{Content: "Bob's secret is the garden shed", Timestamp: at}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteMemory(t.Context(), "dst", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Import(t.Context(), "dst", bytes.NewReader(exp.Bytes()), client.ImportOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	if m, err := c.Memory(t.Context(), "dst", 2); err != nil || !m.Flagged {
		t.Errorf("the merged memory the agent forgot = %+v, %v; want it flagged", m, err)
	}
}

// TestImportBodyIsCapped: an import is held to the upload limit.
func TestImportBodyIsCapped(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true, MaxUploadBytes: 2048})
	var big strings.Builder // records an import takes, one by one, until the cap
	big.WriteString(`{"type":"dormouse-export","format":1,"schema":1,"agent":"x"}` + "\n")
	for i := range 300 {
		day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly)
		fmt.Fprintf(&big, `{"type":"rebuild_day","day":%q,"reason":"x","marked_at":1}`+"\n", day)
	}
	_, err := f.client("").Import(t.Context(), "x", strings.NewReader(big.String()), client.ImportOptions{})
	if status, _ := apiCode(t, err); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a %d KiB import over a 2 KiB cap: %v, want 413", big.Len()>>10, err)
	}
}

// TestDeleteAgentUnderConcurrentRequests: requests racing a delete are
// stored, or refused with 409 agent_deleting or 404 (deleted): never a 500.
func TestDeleteAgentUnderConcurrentRequests(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true, Backups: &backup.Options{Dir: t.TempDir()}})
	c := f.client("")
	if _, err := c.Remember(t.Context(), "busy", client.MemoryInput{Content: "first"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			for j := range 6 {
				_, err := c.Remember(t.Context(), "busy", client.MemoryInput{Content: fmt.Sprintf("memory %d-%d", i, j)})
				if _, rerr := c.Memories(t.Context(), "busy", client.ListOptions{}); err == nil {
					err = rerr
				}
				var ae *client.APIError
				switch {
				case err == nil, errors.As(err, &ae) && (ae.Code == "agent_deleting" || ae.Status == http.StatusNotFound):
				default:
					t.Errorf("a request racing the delete: %v", err)
				}
			}
		})
	}
	if _, err := c.DeleteAgent(t.Context(), "busy"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}
