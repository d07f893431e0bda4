package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/proctest"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// modelServer speaks OpenAI's chat completions (the recorded response in
// internal/llm/testdata) with a valid record, or fails, or stalls, as the
// test says.
type modelServer struct {
	mu       sync.Mutex
	mode     string        // "fail": 500; "stall-after-1": one answer, then hang; "ok"
	requests int           // since the mode was set
	stalled  chan struct{} // closed when a request hangs
	release  chan struct{} // closed at the end: no request hangs beyond the test
	once     sync.Once
	body     []byte
}

const record = `{"summary":"A day of notes about the Atlas project.","key_facts":[],` +
	`"entities":[{"text":"Atlas","type":"project","count":1}],"topics":["atlas"],"insights":[]}`

func newModelServer(t *testing.T) (*modelServer, *httptest.Server) {
	t.Helper()
	tmpl, err := os.ReadFile("../../internal/llm/testdata/openai/response.json")
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := json.Marshal(record)
	m := &modelServer{stalled: make(chan struct{}), release: make(chan struct{}),
		body: bytes.Replace(tmpl, []byte(`"{{ANSWER}}"`), answer, 1)}
	srv := httptest.NewServer(m)
	t.Cleanup(func() { close(m.release); srv.Close() })
	return m, srv
}

func (m *modelServer) set(mode string) {
	m.mu.Lock()
	m.mode, m.requests = mode, 0
	m.mu.Unlock()
}

func (m *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.requests++
	n, mode := m.requests, m.mode
	m.mu.Unlock()
	io.Copy(io.Discard, r.Body) // so a closed connection cancels r.Context()
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	switch {
	case mode == "fail":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`)
		return
	case mode == "stall-after-1" && n > 1:
		m.once.Do(func() { close(m.stalled) })
		select { // until the client goes away: it is killed
		case <-r.Context().Done():
		case <-m.release:
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(m.body)
}

// inspect opens the files after every process is gone and returns the
// memories, the day records and the runs.
func inspectFiles(t *testing.T, data string) ([]store.Memory, []store.Consolidation, []store.Run) {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: data})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mems []store.Memory
	var recs []store.Consolidation
	var runs []store.Run
	err = st.With(t.Context(), "main", false, func(a *store.Agent) error {
		var err error
		if mems, _, err = a.List(t.Context(), store.ListOptions{Limit: 1000}); err != nil {
			return err
		}
		if recs, err = a.Consolidations(t.Context(), "", "", 0); err != nil {
			return err
		}
		runs, err = a.Runs(t.Context(), "", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return mems, recs, runs
}

// TestKilledConsolidationResumes runs the nightly job's command against a
// model that (a) always fails, (b) answers once and then stalls, when the
// job is killed with SIGKILL, (c) works. After (a) nothing is consolidated
// and the runs say failed; after (b) the first day is committed and nothing
// else; after the rerun (c), once the killed job's lease has expired, there
// is exactly one record per day, and every memory is consolidated once, by
// its own day's record: none lost, none counted twice.
func TestKilledConsolidationResumes(t *testing.T) {
	data := t.TempDir()
	var days []string
	for back := 3; back >= 1; back-- {
		d := time.Now().AddDate(0, 0, -back)
		noon := time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, time.Local)
		days = append(days, noon.Format(time.DateOnly))
		for i := range 3 {
			at := noon.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
			content := fmt.Sprintf("Atlas note %d of %s: the build took %d minutes.", i, days[len(days)-1], 10+i)
			if _, stderr, code := run(t, nil, "", "ingest", "--data", data, "--agent", "main", "--at", at, content); code != 0 {
				t.Fatalf("ingest: %s", stderr)
			}
		}
	}
	model, srv := newModelServer(t)
	env := []string{
		"DORMOUSE_LLM_PROVIDER=openai", "DORMOUSE_LLM_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=sk-test-fault",
		"DORMOUSE_LLM_MAX_RETRIES=0", "DORMOUSE_CONSOLIDATE_LEASE_TTL=10s",
	}

	// (a) A provider that always fails: exit 1, nothing consolidated, the
	// runs recorded as failed.
	model.set("fail")
	if out, stderr, code := run(t, env, "", "consolidate", "--all", "--data", data); code != 1 {
		t.Fatalf("consolidate against a dead provider: exit %d, want 1\n%s%s", code, out, stderr)
	}
	mems, recs, runs := inspectFiles(t, data)
	if len(mems) != 9 || len(recs) != 0 || len(runs) != 3 || slices.ContainsFunc(mems, func(m store.Memory) bool { return m.Consolidated }) {
		t.Fatalf("after a dead provider: %d memories, records %+v, runs %+v; want 9 unconsolidated, no record", len(mems), recs, runs)
	}
	for _, r := range runs {
		if r.Status != store.RunFailed || r.Error == "" {
			t.Errorf("run %+v, want failed with the reason", r)
		}
	}

	// (b) The model answers the first day, then stalls on the second: the
	// job is killed there.
	model.set("stall-after-1")
	cmd := exec.CommandContext(context.Background(), binary, "consolidate", "--all", "--data", data)
	cmd.Env = hermeticEnv(env...)
	var stderr proctest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-model.stalled:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the job never reached the second day:\n%s", stderr.String())
	}
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	mems, recs, _ = inspectFiles(t, data)
	if len(mems) != 9 || len(recs) != 1 || recs[0].Date != days[0] {
		t.Fatalf("after the kill: %d memories, records %+v; want 9 and the first day's record alone", len(mems), recs)
	}
	for _, m := range mems {
		if first := m.Timestamp.Local().Format(time.DateOnly) == days[0]; m.Consolidated != first {
			t.Errorf("after the kill, memory %d of %s consolidated=%v", m.ID, m.Timestamp.Local().Format(time.DateOnly), m.Consolidated)
		}
	}

	// (c) The killed job's lease expires (10s); the next run finishes.
	model.set("ok")
	var out string
	for {
		var code int
		var errOut string
		out, errOut, code = run(t, env, "", "consolidate", "--all", "--data", data)
		if code != 0 {
			t.Fatalf("rerun: exit %d\n%s%s", code, out, errOut)
		}
		if !strings.Contains(errOut, "skipped") {
			break
		}
		if time.Since(killed) > 30*time.Second {
			t.Fatalf("the killed job's lease never expired: %s", errOut)
		}
		time.Sleep(500 * time.Millisecond)
	}
	for _, d := range days[1:] {
		if !strings.Contains(out, d) {
			t.Errorf("rerun output %q does not name %s", out, d)
		}
	}
	// Rebuilding a day once more changes nothing of the counts.
	if out, stderr, code := run(t, env, "", "consolidate", "--agent", "main", "--date", days[0], "--data", data); code != 0 {
		t.Fatalf("rebuild of %s: exit %d\n%s%s", days[0], code, out, stderr)
	}

	mems, recs, _ = inspectFiles(t, data)
	if len(mems) != 9 || len(recs) != 3 {
		t.Fatalf("at the end: %d memories and %d records, want 9 and 3 (one a day)", len(mems), len(recs))
	}
	byDate := map[string]store.Consolidation{}
	var cited []int64
	for _, r := range recs {
		if _, dup := byDate[r.Date]; dup {
			t.Errorf("two records of %s", r.Date)
		}
		byDate[r.Date] = r
		cited = append(cited, r.SourceIDs...)
	}
	var all []int64
	for _, m := range mems {
		all = append(all, m.ID)
		rec, ok := byDate[m.Timestamp.Local().Format(time.DateOnly)]
		if !m.Consolidated || m.ConsolidationID == nil || !ok || *m.ConsolidationID != rec.ID || !slices.Contains(rec.SourceIDs, m.ID) {
			t.Errorf("memory %d (%s) not consolidated by its day's record: %+v", m.ID, m.Timestamp, m)
		}
	}
	slices.Sort(all)
	slices.Sort(cited)
	if !slices.Equal(all, cited) {
		t.Errorf("records cite %v, memories are %v: each must be cited exactly once", cited, all)
	}
}
