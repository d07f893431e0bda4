package embed

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// fakeOllama serves Ollama's /api/embed with a deterministic model: a bag of
// words hashed into 64 dimensions. down makes it answer 503.
type fakeOllama struct {
	*httptest.Server
	down     atomic.Bool
	requests atomic.Int32
	mu       sync.Mutex
	inputs   []string
}

func newFakeOllama(t *testing.T) *fakeOllama {
	f := &fakeOllama{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		if r.URL.Path != "/api/embed" {
			http.NotFound(rw, r)
			return
		}
		if f.down.Load() {
			http.Error(rw, `{"error":"model is loading"}`, http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			http.Error(rw, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.inputs = append(f.inputs, req.Input...)
		f.mu.Unlock()
		out := struct {
			Model      string      `json:"model"`
			Embeddings [][]float32 `json:"embeddings"`
		}{Model: req.Model}
		for _, in := range req.Input {
			v := make([]float32, 64)
			v[0] = 0.01 // never all zero
			for _, w := range strings.FieldsFunc(strings.ToLower(in), func(r rune) bool { return !unicode.IsLetter(r) }) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%64]++
			}
			out.Embeddings = append(out.Embeddings, v)
		}
		json.NewEncoder(rw).Encode(out)
	}))
	t.Cleanup(f.Close)
	return f
}

func setup(t *testing.T, f *fakeOllama) (*store.Store, *Worker) {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e, err := llm.NewEmbedder(llm.Config{Provider: "ollama", BaseURL: f.URL, MaxRetries: 0, Timeout: 5 * time.Second,
		BreakerThreshold: 100})
	if err != nil {
		t.Fatal(err)
	}
	return st, &Worker{Store: st, Embedder: e, Batch: 2}
}

func remember(t *testing.T, st *store.Store, agent string, texts ...string) {
	t.Helper()
	var mems []store.Memory
	for i, txt := range texts {
		mems = append(mems, store.Memory{Content: txt, Timestamp: time.Date(2026, 3, 1, 12, i, 0, 0, time.UTC),
			Importance: 0.5, ContentHash: agent + txt})
	}
	err := st.With(t.Context(), agent, true, func(a *store.Agent) error {
		_, err := a.Insert(t.Context(), mems)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func waiting(t *testing.T, st *store.Store, agent string) int {
	t.Helper()
	n := -1
	st.With(t.Context(), agent, false, func(a *store.Agent) error {
		var err error
		n, err = a.UnembeddedCount(t.Context(), "nomic-embed-text")
		return err
	})
	return n
}

func TestPassEmbedsEveryAgentInBatches(t *testing.T) {
	f := newFakeOllama(t)
	st, w := setup(t, f)
	remember(t, st, "alice", "one fish", "two fish", "red fish", "blue fish", "green eggs")
	remember(t, st, "bob", "ham")
	if err := w.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	if a, b := waiting(t, st, "alice"), waiting(t, st, "bob"); a != 0 || b != 0 {
		t.Errorf("waiting after a pass: alice %d, bob %d; want none", a, b)
	}
	// Batches of 2: alice 3 requests, bob 1.
	if got := f.requests.Load(); got != 4 {
		t.Errorf("%d requests, want 4 (batches of 2)", got)
	}
	s := w.Status()
	if s.Backlog != 0 || s.Error != "" || s.LastSuccess == nil || s.Model != "nomic-embed-text" {
		t.Errorf("status = %+v, want no backlog, no error, a success", s)
	}
	// Nothing left: a second pass asks the model nothing.
	if err := w.Pass(t.Context()); err != nil || f.requests.Load() != 4 {
		t.Errorf("second pass: %v, %d requests; want none more", err, f.requests.Load())
	}
}

func TestPassWhileTheProviderIsDown(t *testing.T) {
	f := newFakeOllama(t)
	st, w := setup(t, f)
	remember(t, st, "alice", "one fish", "two fish", "red fish")
	f.down.Store(true)
	err := w.Pass(t.Context())
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("Pass with the provider down = %v, want ErrUnavailable", err)
	}
	if s := w.Status(); s.Backlog != 3 || !strings.Contains(s.Error, "503") {
		t.Errorf("status = %+v, want 3 waiting and the 503 said", s)
	}
	if n := waiting(t, st, "alice"); n != 3 {
		t.Errorf("%d memories waiting, want all 3 kept waiting", n)
	}
	// The provider comes back: the next pass catches up and the error clears.
	f.down.Store(false)
	if err := w.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := w.Status(); s.Backlog != 0 || s.Error != "" {
		t.Errorf("status after recovery = %+v, want nothing waiting and no error", s)
	}
}

func TestNotifyEmbedsAtOnceAndBackoffGrows(t *testing.T) {
	f := newFakeOllama(t)
	st, w := setup(t, f)
	w.Every = time.Hour // only a nudge (or the first pass) can run it
	ctx, cancel := context.WithCancel(t.Context())
	w.Start(ctx)
	defer func() { cancel(); w.Wait() }()
	// A nudge during the first pass (at once, with no agent yet) waits in
	// the channel: it is never lost.
	deadline := time.Now().Add(10 * time.Second)
	remember(t, st, "alice", "one fish")
	w.Notify("alice")
	for waiting(t, st, "alice") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a nudged worker did not embed the new memory within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Back-off doubles per failure, up to MaxBackoff.
	b := &Worker{Every: time.Second, MaxBackoff: 5 * time.Second}
	b.init()
	var got []time.Duration
	for range 4 {
		b.fail(errors.New("down"))
		got = append(got, b.backoff())
	}
	want := []time.Duration{2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("back-off after %d failures = %v, want %v", i+1, got[i], want[i])
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("é", maxTextBytes) // 2 bytes each
	got := text.Clip("x"+long, maxTextBytes)
	if len(got) > maxTextBytes || !strings.HasPrefix("x"+long, got) || !utf8Valid(got) {
		t.Errorf("clip cut %d bytes, valid %v; want at most %d, a valid prefix", len(got), utf8Valid(got), maxTextBytes)
	}
	if text.Clip("short", maxTextBytes) != "short" {
		t.Error("clip changed a short text")
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestQueryEmbedsWithinTheTimeout(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select { // never answers in time
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release) // before Close, which waits for the handler
	e, err := llm.NewEmbedder(llm.Config{Provider: "ollama", BaseURL: slow.URL, MaxRetries: 0})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{Embedder: e, Timeout: 100 * time.Millisecond}
	start := time.Now()
	if _, err := q.EmbedQuery(t.Context(), "anything"); err == nil {
		t.Fatal("EmbedQuery against a server that never answers succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("EmbedQuery took %v, want it cut at its timeout", d)
	}
	f := newFakeOllama(t)
	e2, _ := llm.NewEmbedder(llm.Config{Provider: "ollama", BaseURL: f.URL})
	v, err := Query{Embedder: e2}.EmbedQuery(t.Context(), "one fish")
	if err != nil || len(v) != 64 || (Query{Embedder: e2}).Model() != "nomic-embed-text" {
		t.Errorf("EmbedQuery = %d numbers, %v", len(v), err)
	}
}

// A memory the model refuses (here: one holding "poison") is skipped, and
// the others are embedded; a model that refuses everything blocks nothing
// for good: the error is returned and nothing is marked.
func TestRefusedMemoryIsSkipped(t *testing.T) {
	f := newFakeOllama(t)
	var refuseAll atomic.Bool
	poison := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if refuseAll.Load() || strings.Contains(string(body), "poison") {
			http.Error(rw, `{"error":"input too long"}`, http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		f.Config.Handler.ServeHTTP(rw, r)
	}))
	defer poison.Close()
	st, w := setup(t, f)
	e, err := llm.NewEmbedder(llm.Config{Provider: "ollama", BaseURL: poison.URL, MaxRetries: 0, BreakerThreshold: 100})
	if err != nil {
		t.Fatal(err)
	}
	w.Embedder = e
	remember(t, st, "alice", "poison apple", "one fish", "two fish", "red fish")

	refuseAll.Store(true)
	if err := w.Pass(t.Context()); !errors.Is(err, llm.ErrRefused) {
		t.Fatalf("Pass with every memory refused = %v, want ErrRefused", err)
	}
	if n := waiting(t, st, "alice"); n != 4 {
		t.Fatalf("%d waiting, want 4", n)
	}
	refuseAll.Store(false)
	if err := w.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := waiting(t, st, "alice"); n != 1 {
		t.Errorf("%d waiting after the pass, want only the refused one", n)
	}
	if err := w.Pass(t.Context()); err != nil {
		t.Errorf("a pass after the refusal: %v, want the refused memory skipped", err)
	}
}
