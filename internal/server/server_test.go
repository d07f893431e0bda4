package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/logging"
	"github.com/dormouse-dev/dormouse/internal/proctest"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

type fixture struct {
	t     *testing.T
	url   string
	dir   string
	store *store.Store
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	return newFixtureWith(t, store.Options{}, o)
}

// newFixtureWith is newFixture over a store with so's options (its Dir,
// Location and DedupWindow are the fixture's).
func newFixtureWith(t *testing.T, so store.Options, o Options) *fixture {
	t.Helper()
	dir := t.TempDir()
	so.Dir, so.Location, so.DedupWindow, so.Kinds = dir, time.UTC, time.Hour, kinds.Of
	st, err := store.Open(t.Context(), so)
	if err != nil {
		t.Fatal(err)
	}
	if o.Now == nil {
		o.Now = func() time.Time { return time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC) }
	}
	srv := New(st, &recall.Engine{Now: o.Now}, o)
	srv.SetReady(true)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return &fixture{t: t, url: ts.URL, dir: dir, store: st}
}

// do sends a request and decodes the JSON response into out (when not nil).
func (f *fixture) do(method, path string, body io.Reader, out any) int {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), method, f.url+path, body)
	if err != nil {
		f.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("%s %s: Content-Type %q, body %s", method, path, ct, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			f.t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
	return resp.StatusCode
}

func (f *fixture) post(path, body string, out any) int {
	return f.do(http.MethodPost, path, strings.NewReader(body), out)
}

func TestBadInputIsRejectedAndNothingWritten(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	big := `{"content":"` + strings.Repeat("x", 2<<20) + `"}`
	var batch strings.Builder
	batch.WriteString(`{"memories":[`)
	for i := range 1001 {
		if i > 0 {
			batch.WriteString(",")
		}
		fmt.Fprintf(&batch, `{"content":"m%d"}`, i)
	}
	batch.WriteString(`]}`)
	cases := []struct {
		name   string
		method string
		path   string
		body   string
		status int
		code   string
	}{
		{"broken json", "POST", "/v1/agents/main/memories", `{"content":`, 400, "invalid_json"},
		{"not json", "POST", "/v1/agents/main/memories", `hello`, 400, "invalid_json"},
		{"empty body", "POST", "/v1/agents/main/memories", ``, 400, "invalid_json"},
		{"two values", "POST", "/v1/agents/main/memories", `{"content":"a"}{"content":"b"}`, 400, "invalid_json"},
		{"unknown field", "POST", "/v1/agents/main/memories", `{"content":"a","colour":"red"}`, 400, "unknown_field"},
		{"unknown field in batch", "POST", "/v1/agents/main/memories", `{"memories":[{"content":"a","x":1}]}`, 400, "unknown_field"},
		{"wrong type", "POST", "/v1/agents/main/memories", `{"content":42}`, 400, "invalid_json"},
		{"2 MiB body", "POST", "/v1/agents/main/memories", big, 413, "body_too_large"},
		{"1001 batch", "POST", "/v1/agents/main/memories", batch.String(), 413, "batch_too_large"},
		{"empty batch", "POST", "/v1/agents/main/memories", `{"memories":[]}`, 400, "invalid_request"},
		{"both shapes", "POST", "/v1/agents/main/memories", `{"content":"a","memories":[{"content":"b"}]}`, 400, "invalid_request"},
		{"empty content", "POST", "/v1/agents/main/memories", `{"content":""}`, 422, "invalid_memory"},
		{"blank content", "POST", "/v1/agents/main/memories", `{"content":"  \n\t "}`, 422, "invalid_memory"},
		{"missing content", "POST", "/v1/agents/main/memories", `{"role":"user"}`, 422, "invalid_memory"},
		{"one bad in batch", "POST", "/v1/agents/main/memories", `{"memories":[{"content":"fine"},{"content":""}]}`, 422, "invalid_memory"},
		{"bad timestamp", "POST", "/v1/agents/main/memories", `{"content":"a","timestamp":"yesterday"}`, 422, "invalid_memory"},
		{"timestamp without zone", "POST", "/v1/agents/main/memories", `{"content":"a","timestamp":"2026-02-01T10:00:00"}`, 422, "invalid_memory"},
		{"importance out of range", "POST", "/v1/agents/main/memories", `{"content":"a","importance":1.5}`, 422, "invalid_memory"},
		{"context not object", "POST", "/v1/agents/main/memories", `{"content":"a","context":[1,2]}`, 422, "invalid_memory"},
		{"NUL in content", "POST", "/v1/agents/main/memories", `{"content":"a\u0000b"}`, 422, "invalid_memory"},
		{"agent ../etc", "POST", "/v1/agents/../etc/memories", `{"content":"a"}`, 400, "invalid_path"},
		{"agent %2e%2e", "POST", "/v1/agents/%2e%2e/memories", `{"content":"a"}`, 400, "invalid_path"},
		{"agent a/b", "POST", "/v1/agents/a/b/memories", `{"content":"a"}`, 404, "not_found"},
		{"agent a%2Fb", "POST", "/v1/agents/a%2Fb/memories", `{"content":"a"}`, 400, "invalid_agent"},
		{"agent A", "POST", "/v1/agents/A/memories", `{"content":"a"}`, 400, "invalid_agent"},
		{"agent .", "POST", "/v1/agents/./memories", `{"content":"a"}`, 400, "invalid_path"},
		{"agent %2e", "POST", "/v1/agents/%2e/memories", `{"content":"a"}`, 400, "invalid_path"},
		{"agent -x", "POST", "/v1/agents/-x/memories", `{"content":"a"}`, 400, "invalid_agent"},
		{"agent 65 chars", "POST", "/v1/agents/" + strings.Repeat("a", 65) + "/memories", `{"content":"a"}`, 400, "invalid_agent"},
		{"agent NUL", "POST", "/v1/agents/a%00/memories", `{"content":"a"}`, 400, "invalid_agent"},
		{"agent space", "POST", "/v1/agents/a%20b/memories", `{"content":"a"}`, 400, "invalid_agent"},
		{"no such route", "GET", "/v1/nothing", ``, 404, "not_found"},
		{"read unknown agent", "GET", "/v1/agents/ghost/memories", ``, 404, "unknown_agent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var e ErrorBody
			got := f.do(tc.method, tc.path, strings.NewReader(tc.body), &e)
			if got != tc.status || e.Error.Code != tc.code {
				t.Errorf("status %d code %q, want %d %q (message %q)", got, e.Error.Code, tc.status, tc.code, e.Error.Message)
			}
			if e.Error.Message == "" {
				t.Error("error without a message")
			}
		})
	}
	// Nothing was written: no agent file exists anywhere under the data dir.
	var files []string
	filepath.Walk(f.dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("bad requests left files behind: %v", files)
	}
}

func TestReadRequestValidation(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	if got := f.post("/v1/agents/main/memories", `{"content":"something to read"}`, nil); got != 201 {
		t.Fatalf("POST: %d", got)
	}
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"recall bad json", "POST", "/v1/agents/main/recall", `{"query":`, 400, "invalid_json"},
		{"recall unknown field", "POST", "/v1/agents/main/recall", `{"q":"x"}`, 400, "unknown_field"},
		{"recall bad as_of", "POST", "/v1/agents/main/recall", `{"query":"x","as_of":"noon"}`, 400, "invalid_request"},
		{"recall negative budget", "POST", "/v1/agents/main/recall", `{"query":"x","budget_tokens":-5}`, 400, "invalid_request"},
		{"list bad since", "GET", "/v1/agents/main/memories?since=monday", ``, 400, "invalid_parameter"},
		{"list bad limit", "GET", "/v1/agents/main/memories?limit=0", ``, 400, "invalid_parameter"},
		{"list bad cursor", "GET", "/v1/agents/main/memories?cursor=zzz", ``, 400, "invalid_cursor"},
		{"get bad id", "GET", "/v1/agents/main/memories/abc", ``, 400, "invalid_id"},
		{"get missing id", "GET", "/v1/agents/main/memories/999", ``, 404, "not_found"},
		{"facts bad history", "GET", "/v1/agents/main/facts?history=maybe", ``, 400, "invalid_parameter"},
		{"consolidations bad since", "GET", "/v1/agents/main/consolidations?since=feb", ``, 400, "invalid_parameter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var e ErrorBody
			got := f.do(tc.method, tc.path, strings.NewReader(tc.body), &e)
			if got != tc.status || e.Error.Code != tc.code || e.Error.Message == "" {
				t.Errorf("status %d code %q message %q, want %d %q", got, e.Error.Code, e.Error.Message, tc.status, tc.code)
			}
		})
	}
}

type postResp struct {
	IDs     []int64           `json:"ids"`
	Results []client.Inserted `json:"results"`
}

func TestMemoriesLifecycle(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	var one postResp
	if got := f.post("/v1/agents/main/memories", `{"content":"I am allergic to penicillin","session_id":"s1","role":"user",
		"timestamp":"2026-02-01T09:00:00Z","context":{"app":"chat"},"source":"test"}`, &one); got != http.StatusCreated {
		t.Fatalf("POST single: status %d", got)
	}
	if len(one.IDs) != 1 || one.IDs[0] <= 0 {
		t.Fatalf("POST single ids = %v", one.IDs)
	}
	var batch postResp
	body := `{"memories":[
		{"content":"Bob suggested moving the standup to 10:30","timestamp":"2026-02-02T09:00:00Z","session_id":"s2"},
		{"content":"We decided to use SQLite for the memory store","timestamp":"2026-02-03T09:00:00Z","importance":0.9},
		{"content":"I am allergic to penicillin","session_id":"s1","timestamp":"2026-02-01T09:10:00Z"}]}`
	if got := f.post("/v1/agents/main/memories", body, &batch); got != http.StatusCreated {
		t.Fatalf("POST batch: status %d", got)
	}
	if diff := cmp.Diff([]client.Inserted{{ID: 2}, {ID: 3}, {ID: 1, Duplicate: true}}, batch.Results); diff != "" {
		t.Errorf("batch results (-want +got):\n%s", diff)
	}

	var m client.Memory
	if got := f.do("GET", "/v1/agents/main/memories/1", nil, &m); got != 200 {
		t.Fatalf("GET memory: status %d", got)
	}
	if m.Content != "I am allergic to penicillin" || m.SessionID != "s1" || m.Role != "user" || m.Source != "test" ||
		string(m.Context) != `{"app":"chat"}` || m.ContentHash == "" || m.Summary == "" || m.Importance <= 0.5 {
		t.Errorf("GET memory = %+v", m)
	}

	var page struct {
		Memories   []client.Memory `json:"memories"`
		NextCursor string          `json:"next_cursor"`
	}
	if got := f.do("GET", "/v1/agents/main/memories?limit=2", nil, &page); got != 200 {
		t.Fatalf("list: status %d", got)
	}
	if len(page.Memories) != 2 || page.Memories[0].ID != 3 || page.NextCursor == "" {
		t.Fatalf("first page = %+v", page)
	}
	cursor := page.NextCursor
	page.NextCursor = ""
	if got := f.do("GET", "/v1/agents/main/memories?limit=2&cursor="+cursor, nil, &page); got != 200 {
		t.Fatalf("list page 2: status %d", got)
	}
	if len(page.Memories) != 1 || page.Memories[0].ID != 1 || page.NextCursor != "" {
		t.Errorf("last page = %+v", page)
	}

	var res recall.Result
	if got := f.post("/v1/agents/main/recall", `{"query":"what am I allergic to?"}`, &res); got != 200 {
		t.Fatalf("recall: status %d", got)
	}
	if len(res.Items) == 0 || res.Items[0].ID != "memory:1" || !strings.Contains(res.Context, "[memory:1]") {
		t.Errorf("recall = %+v", res)
	}

	if got := f.do("DELETE", "/v1/agents/main/memories/1", nil, nil); got != 200 {
		t.Fatalf("DELETE: status %d", got)
	}
	var e ErrorBody
	if got := f.do("GET", "/v1/agents/main/memories/1", nil, &e); got != 404 {
		t.Errorf("GET deleted: status %d, want 404", got)
	}
	if got := f.do("DELETE", "/v1/agents/main/memories/1", nil, &e); got != 404 {
		t.Errorf("DELETE deleted: status %d, want 404", got)
	}
	res = recall.Result{}
	f.post("/v1/agents/main/recall", `{"query":"penicillin"}`, &res)
	for _, it := range res.Items {
		if it.ID == "memory:1" {
			t.Errorf("forgotten memory recalled: %+v", it)
		}
	}

	var st client.Stats
	if got := f.do("GET", "/v1/agents/main/stats", nil, &st); got != 200 || st.Memories != 2 {
		t.Errorf("stats: status %d, %+v", got, st)
	}
	var agents struct {
		Agents []struct{ Name string } `json:"agents"`
	}
	if got := f.do("GET", "/v1/agents", nil, &agents); got != 200 || len(agents.Agents) != 1 || agents.Agents[0].Name != "main" {
		t.Errorf("agents: status %d, %+v", got, agents)
	}
	var facts struct {
		Facts []client.Fact `json:"facts"`
	}
	if got := f.do("GET", "/v1/agents/main/facts", nil, &facts); got != 200 || facts.Facts == nil {
		t.Errorf("facts: status %d, %+v", got, facts)
	}
	var cons struct {
		Consolidations []client.Consolidation `json:"consolidations"`
	}
	if got := f.do("GET", "/v1/agents/main/consolidations", nil, &cons); got != 200 || cons.Consolidations == nil {
		t.Errorf("consolidations: status %d, %+v", got, cons)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if got := f.do("GET", p, nil, nil); got != 200 {
			t.Errorf("%s: status %d", p, got)
		}
	}
}

func TestRecallAsOfNeverLeaksNewer(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	var b strings.Builder
	b.WriteString(`{"memories":[`)
	for day := 1; day <= 9; day++ {
		if day > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"content":"the garden sprinkler code is %d%d%d%d","timestamp":"2026-02-0%dT08:00:00Z"}`, day, day, day, day, day)
	}
	b.WriteString(`]}`)
	if got := f.post("/v1/agents/home/memories", b.String(), nil); got != 201 {
		t.Fatalf("POST: status %d", got)
	}
	for _, q := range []string{"garden sprinkler code", "", "the"} {
		for day := 1; day <= 9; day++ {
			asOf := time.Date(2026, 2, day, 12, 0, 0, 0, time.UTC)
			var res recall.Result
			body := fmt.Sprintf(`{"query":%q,"as_of":%q,"k":50}`, q, asOf.Format(time.RFC3339))
			if got := f.post("/v1/agents/home/recall", body, &res); got != 200 {
				t.Fatalf("recall: status %d", got)
			}
			if len(res.Items) != day {
				t.Errorf("query %q as of day %d: %d items, want %d", q, day, len(res.Items), day)
			}
			for _, it := range res.Items {
				if it.Timestamp.After(asOf) {
					t.Errorf("query %q as of %v returned %s from %v", q, asOf, it.ID, it.Timestamp)
				}
			}
		}
	}
}

// TestAsOfBeforeAnyMemoryIsRefused: 0001-01-01T00:00:00Z is Go's zero time, which the store and
// recall take for "no as_of: now", so an as_of there (in any offset) answered with today's memories
// and facts. An as_of outside the years a memory may have (1970 to 9999) is now 400 naming as_of,
// on every route that takes one.
func TestAsOfBeforeAnyMemoryIsRefused(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	if got := f.post("/v1/agents/home/memories", `{"content":"the garden sprinkler code is 4321","timestamp":"2026-02-01T08:00:00Z"}`, nil); got != 201 {
		t.Fatalf("POST: status %d", got)
	}
	for _, asOf := range []string{"0001-01-01T00:00:00Z", "0001-01-01T01:00:00+01:00", "1969-12-31T23:59:59Z"} {
		var e struct {
			Error struct{ Code, Message string }
		}
		check := func(route string, code int) {
			t.Helper()
			if code != http.StatusBadRequest || !strings.Contains(e.Error.Message, "as_of") {
				t.Errorf("%s as of %s: %d %+v, want 400 naming as_of", route, asOf, code, e.Error)
			}
			e.Error.Code, e.Error.Message = "", ""
		}
		body := fmt.Sprintf(`{"query":"sprinkler code","as_of":%q}`, asOf)
		check("recall", f.post("/v1/agents/home/recall", body, &e))
		check("ask", f.post("/v1/agents/home/ask", body, &e))
		q := "?as_of=" + url.QueryEscape(asOf)
		check("facts", f.do(http.MethodGet, "/v1/agents/home/facts"+q, nil, &e))
		check("profile", f.do(http.MethodGet, "/v1/agents/home/profile"+q, nil, &e))
	}
	var res recall.Result
	if got := f.post("/v1/agents/home/recall", `{"query":"sprinkler code","as_of":"1970-01-01T00:00:00Z"}`, &res); got != 200 || len(res.Items) != 0 {
		t.Errorf("recall as of 1970: %d, %d items; want 200 and none", got, len(res.Items))
	}
}

func TestFixedAgentList(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: false, Agents: []string{"main"}})
	if got := f.post("/v1/agents/main/memories", `{"content":"hello there"}`, nil); got != 201 {
		t.Errorf("POST to listed agent: status %d", got)
	}
	var e ErrorBody
	if got := f.post("/v1/agents/other/memories", `{"content":"hello"}`, &e); got != 404 || e.Error.Code != "unknown_agent" {
		t.Errorf("POST to unlisted agent: status %d %+v", got, e)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "agents", "other.db")); !os.IsNotExist(err) {
		t.Errorf("unlisted agent file exists: %v", err)
	}
}

func TestReadyz(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := New(st, &recall.Engine{}, Options{})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz before SetReady: %d, want 503", rec.Code)
	}
	srv.SetReady(true)
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("readyz after SetReady: %d, want 200", rec.Code)
	}
}

func FuzzDecodeMemories(f *testing.F) {
	for _, s := range []string{
		`{"content":"hello"}`,
		`{"memories":[{"content":"a"},{"content":"b","importance":0.5}]}`,
		`{"content":"a","context":{"x":[1,2]}}`,
		`{"memories":[]}`, `{`, `[]`, `null`, `{"content":"a"} trailing`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ins, err := DecodeMemories(bytes.NewReader(body), 5)
		if err != nil {
			if _, ok := err.(*RequestError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if ins != nil {
				t.Fatalf("inputs returned with an error")
			}
			return
		}
		if len(ins) == 0 || len(ins) > 5 {
			t.Fatalf("decoded %d inputs from %q", len(ins), body)
		}
		// What was accepted must be exactly what the body said: re-encoding
		// and decoding again gives the same inputs.
		again, err := DecodeMemories(bytes.NewReader(mustJSON(t, map[string]any{"memories": ins})), 5)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !cmp.Equal(normalise(ins), normalise(again)) {
			t.Fatalf("round trip changed inputs:\n%s", cmp.Diff(ins, again))
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// normalise compacts raw JSON contexts, which re-encoding compacts too.
func normalise(ins []capture.Input) []capture.Input {
	out := make([]capture.Input, len(ins))
	for i, in := range ins {
		if in.Context != nil {
			var buf bytes.Buffer
			if json.Compact(&buf, in.Context) == nil {
				in.Context = buf.Bytes()
			}
		}
		out[i] = in
	}
	return out
}

// TestFullStorageIs507 fills an agent file to its cap through the API: the
// request that does not fit gets 507 and stores nothing.
func TestFullStorageIs507(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(t.Context(), store.Options{Dir: dir, MaxPageCount: 64})
	if err != nil {
		t.Fatal(err)
	}
	var logs proctest.Buffer
	ts := httptest.NewServer(New(st, &recall.Engine{}, Options{AutoCreate: true, Logger: logging.Text(&logs, slog.LevelInfo)}))
	defer func() { ts.Close(); st.Close() }()
	f := &fixture{t: t, url: ts.URL, dir: dir, store: st}
	acked := 0
	for i := range 500 {
		body := fmt.Sprintf(`{"content":"memory %d %s"}`, i, strings.Repeat("filler words ", 30))
		var e ErrorBody
		code := f.post("/v1/agents/main/memories", body, &e)
		if code == http.StatusCreated {
			acked++
			continue
		}
		if code != http.StatusInsufficientStorage || e.Error.Code != "storage_full" {
			t.Fatalf("status %d %+v, want 507 storage_full", code, e)
		}
		break
	}
	var stats client.Stats
	if f.do("GET", "/v1/agents/main/stats", nil, &stats); stats.Memories != int64(acked) {
		t.Errorf("%d memories stored, want the %d acknowledged", stats.Memories, acked)
	}
	if acked == 500 {
		t.Error("the cap was never reached")
	}
	for range 5 {
		f.post("/v1/agents/main/memories", `{"content":"one more"}`, nil)
	}
	if n := strings.Count(logs.String(), `msg="storage full"`); n != 1 {
		t.Errorf("6 refusals within seconds logged %d lines, want 1 (one each 10 s):\n%s", n, logs.String())
	}
}
