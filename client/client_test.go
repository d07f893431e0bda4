package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// TestMain runs one real daemon on loopback for the tests and examples, and
// gives its address to the examples as DORMOUSE_ADDR, as a user's shell would.
func TestMain(m *testing.M) {
	d, stop, err := daemontest.TempRun()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	daemonAddr = d.Addr
	os.Setenv("DORMOUSE_ADDR", d.Addr)
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "daemon shutdown:", err)
		code = 1
	}
	os.Exit(code)
}

var daemonAddr string

func day(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }

func TestEveryEndpoint(t *testing.T) {
	ctx := t.Context()
	c := client.New(daemonAddr)
	const agent = "every-endpoint"

	ins, err := c.Remember(ctx, agent, client.MemoryInput{Content: "Alice's role is engineer.", Role: "user", Timestamp: day(1, 9), SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if ins.ID <= 0 || ins.Duplicate {
		t.Fatalf("Remember = %+v, want a new positive id", ins)
	}
	imp := 0.9
	batch, err := c.RememberBatch(ctx, agent, []client.MemoryInput{
		{Content: "Alice's role is CTO.", Role: "user", Timestamp: day(3, 9), SessionID: "s2", Importance: &imp, Context: []byte(`{"app":"chat"}`)},
		{Content: "The launch moved to Friday.", Role: "assistant", Timestamp: day(3, 10), SessionID: "s2"},
		{Content: "Alice's role is engineer.", Role: "user", Timestamp: day(1, 9), SessionID: "s1"}, // duplicate
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(batch) != 3 || batch[2].ID != ins.ID || !batch[2].Duplicate {
		t.Fatalf("RememberBatch = %+v, want 3 results, the last a duplicate of %d", batch, ins.ID)
	}

	m, err := c.Memory(ctx, agent, batch[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "Alice's role is CTO." || m.Importance != 0.9 || m.SessionID != "s2" || string(m.Context) != `{"app":"chat"}` || !m.Timestamp.Equal(day(3, 9)) {
		t.Errorf("Memory = %+v", m)
	}

	page, err := c.Memories(ctx, agent, client.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Memories) != 2 || page.NextCursor == "" || page.Memories[0].ID != batch[1].ID {
		t.Fatalf("first page = %d memories, cursor %q, first %d", len(page.Memories), page.NextCursor, page.Memories[0].ID)
	}
	page, err = c.Memories(ctx, agent, client.ListOptions{Limit: 2, Cursor: page.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Memories) != 1 || page.NextCursor != "" || page.Memories[0].ID != ins.ID {
		t.Fatalf("second page = %+v", page)
	}
	page, err = c.Memories(ctx, agent, client.ListOptions{Session: "s1", Since: day(1, 0), Until: day(2, 0)})
	if err != nil || len(page.Memories) != 1 {
		t.Fatalf("session s1 = %+v, %v", page, err)
	}

	rec, err := c.Recall(ctx, agent, client.RecallRequest{Query: "what is the launch date", BudgetTokens: 200, AsOf: day(4, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Items) == 0 || rec.Items[0].ID != fmt.Sprintf("memory:%d", batch[1].ID) || !strings.Contains(rec.Context, "[memory:") || rec.Tokens > 200 {
		t.Errorf("Recall = %+v", rec)
	}
	// as_of before the launch memory hides it.
	rec, err = c.Recall(ctx, agent, client.RecallRequest{Query: "launch", AsOf: day(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rec.Context, "launch") {
		t.Errorf("Recall as of day 2 shows a memory of day 3: %q", rec.Context)
	}

	plan, err := c.Consolidate(ctx, agent, client.ConsolidateRequest{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Plan == nil || len(plan.Plan.Days) != 2 || len(plan.Runs) != 0 {
		t.Fatalf("dry run = %+v", plan)
	}
	res, err := c.Consolidate(ctx, agent, client.ConsolidateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Agent != agent || len(res.Runs) != 2 || res.Runs[0].Status != "ok" {
		t.Fatalf("Consolidate = %+v", res)
	}
	cons, err := c.Consolidations(ctx, agent, client.ConsolidationsOptions{Since: "2026-03-01", Until: "2026-03-03"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cons) != 2 || cons[0].Summary == "" || len(cons[0].SourceIDs) == 0 {
		t.Fatalf("Consolidations = %+v", cons)
	}

	facts, err := c.Facts(ctx, agent, client.FactsOptions{Entity: "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Value != "CTO" {
		t.Fatalf("current facts about Alice = %+v, want her role CTO", facts)
	}
	if err := c.RejectFact(ctx, agent, facts[0].ID); err != nil {
		t.Fatal(err)
	}
	hist, err := c.Facts(ctx, agent, client.FactsOptions{Entity: "Alice", History: true})
	if err != nil {
		t.Fatal(err)
	}
	var rejected, superseded int
	for _, f := range hist {
		if f.Rejected {
			rejected++
		}
		if f.SupersededBy != nil {
			superseded++
		}
	}
	if len(hist) != 2 || rejected != 1 || superseded != 1 {
		t.Errorf("history = %+v, want the engineer fact superseded and the CTO fact rejected", hist)
	}

	if err := c.DeleteMemory(ctx, agent, batch[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Memory(ctx, agent, batch[1].ID); !client.IsNotFound(err) {
		t.Errorf("Memory after delete: %v, want not found", err)
	}

	st, err := c.Stats(ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	// Deleting a memory takes its day's record apart until the day is rebuilt.
	if st.Agent != agent || st.Memories != 2 || st.Consolidations != 1 || st.Unconsolidated != 1 || st.SchemaVersion == 0 {
		t.Errorf("Stats = %+v", st)
	}
	agents, err := c.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range agents {
		found = found || a == agent
	}
	if !found {
		t.Errorf("Agents = %v, missing %q", agents, agent)
	}
	// The daemon caches its health report for 5 s, and may have taken one
	// before the agent existed.
	var h client.Health
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if h, err = c.Health(ctx); err != nil {
			t.Fatal(err)
		}
		if len(h.Agents) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if h.State == "" || h.At.IsZero() || len(h.Agents) == 0 {
		t.Errorf("Health = %+v", h)
	}
	if err := c.Healthz(ctx); err != nil {
		t.Error(err)
	}
	if err := c.Ready(ctx); err != nil {
		t.Error(err)
	}
	met, err := c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(met, "dormouse_") {
		t.Errorf("Metrics has no dormouse_ series:\n%.500s", met)
	}
}

func TestAPIErrors(t *testing.T) {
	ctx := t.Context()
	c := client.New(daemonAddr, client.WithRetries(0))
	if _, err := c.Remember(ctx, "errors", client.MemoryInput{Content: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		call       func() error
		status     int
		code, text string
	}{
		{"path in agent name", func() error { _, err := c.Stats(ctx, "../etc"); return err }, 400, "invalid_path", ""},
		{"hostile agent name", func() error { _, err := c.Stats(ctx, "bob'); drop table"); return err }, 400, "invalid_agent", ""},
		{"unknown agent", func() error { _, err := c.Stats(ctx, "nobody-here"); return err }, 404, "unknown_agent", "nobody-here"},
		{"unknown memory", func() error { _, err := c.Memory(ctx, "errors", 999); return err }, 404, "not_found", ""},
		{"empty content", func() error { _, err := c.Remember(ctx, "errors", client.MemoryInput{}); return err }, 422, "invalid_memory", "content"},
		{"budget out of range", func() error {
			_, err := c.Recall(ctx, "errors", client.RecallRequest{Query: "x", BudgetTokens: 1 << 30})
			return err
		}, 400, "invalid_request", "budget_tokens"},
		{"bad consolidation date", func() error {
			_, err := c.Consolidate(ctx, "errors", client.ConsolidateRequest{Date: "yesterday"})
			return err
		}, 400, "invalid_request", "date"},
		{"bad cursor", func() error {
			_, err := c.Memories(ctx, "errors", client.ListOptions{Cursor: "garbage"})
			return err
		}, 400, "invalid_cursor", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var ae *client.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an *APIError", err)
			}
			if ae.Status != tc.status || ae.Code != tc.code || !strings.Contains(ae.Message, tc.text) || ae.Message == "" {
				t.Errorf("got %d %q %q, want %d %q containing %q", ae.Status, ae.Code, ae.Message, tc.status, tc.code, tc.text)
			}
			if !strings.Contains(err.Error(), ae.Code) {
				t.Errorf("Error() = %q lacks the code", err)
			}
		})
	}
	if _, err := client.New("http://[::1").Agents(ctx); err == nil || !strings.Contains(err.Error(), "address") {
		t.Errorf("malformed address: %v", err)
	}
	if _, err := client.New("ftp://x").Agents(ctx); err == nil {
		t.Error("an ftp address was accepted")
	}
}

// flaky is a proxy in front of the real daemon that answers the first
// failures requests with status (and Retry-After when set), then forwards.
func flaky(t *testing.T, failures int, status int, retryAfter string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	target, _ := url.Parse("http://" + daemonAddr)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if int(n.Add(1)) <= failures {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"code":"slow_down","message":"try again (%d)"}}`, n.Load())
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRetries(t *testing.T) {
	ctx := t.Context()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv, n := flaky(t, 2, status, "")
			c := client.New(srv.URL, client.WithBackoff(time.Millisecond, 5*time.Millisecond))
			ins, err := c.Remember(ctx, "retries", client.MemoryInput{Content: "stored after two refusals"})
			if err != nil {
				t.Fatal(err)
			}
			if got := n.Load(); got != 3 {
				t.Errorf("%d attempts, want 3", got)
			}
			// The write happened once.
			page, err := client.New(daemonAddr).Memories(ctx, "retries", client.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			count := 0
			for _, m := range page.Memories {
				if m.ID == ins.ID {
					count++
				}
			}
			if count != 1 {
				t.Errorf("memory %d stored %d times", ins.ID, count)
			}
		})
	}
	t.Run("gives up", func(t *testing.T) {
		srv, n := flaky(t, 100, http.StatusServiceUnavailable, "7")
		c := client.New(srv.URL, client.WithRetries(2), client.WithBackoff(time.Millisecond, time.Millisecond))
		// Retry-After (7s) exceeds the most wait (30s floor)? No: it is honoured up
		// to 30s, so bound the call by a deadline shorter than 7s and see that
		// the client returns at once rather than sleeping past it.
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		start := time.Now()
		err := c.Healthz(cctx)
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.Status != 503 || ae.RetryAfter != 7*time.Second || !ae.Temporary() {
			t.Fatalf("got %v (%+v), want the 503 with Retry-After 7s", err, ae)
		}
		if took := time.Since(start); took > 2*time.Second || n.Load() != 1 {
			t.Errorf("took %v and %d attempts; a wait beyond the deadline must not be slept", took, n.Load())
		}
	})
	t.Run("no retry on an implausible clock", func(t *testing.T) {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"code":"clock_implausible","message":"the clock says 1970"}}`)
		}))
		defer srv.Close()
		_, err := client.New(srv.URL).Consolidate(ctx, "a", client.ConsolidateRequest{})
		if err == nil || n.Load() != 1 {
			t.Errorf("err %v after %d attempts, want one attempt", err, n.Load())
		}
	})
	t.Run("no retry on 4xx", func(t *testing.T) {
		srv, n := flaky(t, 1, http.StatusBadRequest, "")
		err := client.New(srv.URL).Healthz(ctx)
		if err == nil || n.Load() != 1 {
			t.Errorf("err %v after %d attempts, want one attempt and the error", err, n.Load())
		}
	})
	t.Run("retry after honoured", func(t *testing.T) {
		srv, n := flaky(t, 1, http.StatusTooManyRequests, "1")
		start := time.Now()
		if err := client.New(srv.URL, client.WithBackoff(time.Millisecond, time.Millisecond)).Healthz(ctx); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 900*time.Millisecond || n.Load() != 2 {
			t.Errorf("took %v over %d attempts, want one wait of about the 1s Retry-After", took, n.Load())
		}
	})
	t.Run("cancelled while waiting", func(t *testing.T) {
		srv, _ := flaky(t, 100, http.StatusServiceUnavailable, "")
		cctx, cancel := context.WithCancel(ctx)
		c := client.New(srv.URL, client.WithBackoff(time.Hour, time.Hour))
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		if err := c.Healthz(cctx); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})
}

func TestToken(t *testing.T) {
	target, _ := url.Parse("http://" + daemonAddr)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"code":"unauthorized","message":"a bearer token is required"}}`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	if _, err := client.New(srv.URL).Agents(t.Context()); err == nil || !strings.Contains(err.Error(), "unauthorized") {
		t.Errorf("without a token: %v", err)
	}
	if _, err := client.New(srv.URL, client.WithToken("s3cret")).Agents(t.Context()); err != nil {
		t.Errorf("with the token: %v", err)
	}
}

func TestTemporary(t *testing.T) {
	for _, c := range []struct {
		e    client.APIError
		want bool
	}{
		{client.APIError{Status: 503, Code: "llm_unavailable"}, true},
		{client.APIError{Status: 429, Code: "rate_limited"}, true},
		{client.APIError{Status: 502, Code: "model_unavailable"}, true},
		{client.APIError{Status: 502, Code: "llm_refused"}, false},
		{client.APIError{Status: 422, Code: "invalid_file"}, false},
		{client.APIError{Status: 404, Code: "not_found"}, false},
	} {
		if got := c.e.Temporary(); got != c.want {
			t.Errorf("%d %s: Temporary() = %v, want %v", c.e.Status, c.e.Code, got, c.want)
		}
	}
}

// TestImportStreamsAFile: an export file is streamed, rewound for each
// retry and left open; a body that cannot be rewound is sent once.
func TestImportStreamsAFile(t *testing.T) {
	ctx := t.Context()
	direct := client.New(daemonAddr)
	if _, err := direct.Remember(ctx, "stream-from", client.MemoryInput{Content: "the bins go out on Thursday"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(t.TempDir(), "export-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := direct.Export(ctx, "stream-from", f); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	srv, n := flaky(t, 2, http.StatusServiceUnavailable, "")
	c := client.New(srv.URL, client.WithBackoff(time.Millisecond, time.Millisecond))
	res, err := c.Import(ctx, "stream-to", f, client.ImportOptions{})
	if err != nil || res.Records["memory"] != 1 || n.Load() != 3 {
		t.Fatalf("import through two 503s: %+v, %v after %d attempts; want 1 memory after 3", res, err, n.Load())
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Errorf("the client closed the caller's file: %v", err)
	}
	once, n := flaky(t, 1, http.StatusServiceUnavailable, "")
	c = client.New(once.URL, client.WithBackoff(time.Millisecond, time.Millisecond))
	_, err = c.Import(ctx, "stream-pipe", io.MultiReader(f), client.ImportOptions{})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable || n.Load() != 1 {
		t.Errorf("a body that cannot be rewound: %v after %d attempts, want the 503 after one", err, n.Load())
	}
}
