package daemon_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// ollamaEmbed serves Ollama's /api/embed with a deterministic model: a bag of
// words hashed into 256 dimensions, where made-up synonyms (glorp and
// snazzle, quib and fendle) share a dimension and weigh three. Other paths
// (the health probe, generation) answer 404. down makes it answer 503.
func ollamaEmbed(t *testing.T, down *atomic.Bool, requests *atomic.Int32) *httptest.Server {
	groups := map[string]string{"glorp": "g1", "snazzle": "g1", "quib": "g2", "fendle": "g2"}
	stop := map[string]bool{"the": true, "where": true, "did": true, "and": true, "was": true}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/embed" {
			http.NotFound(rw, r)
			return
		}
		requests.Add(1)
		if down.Load() {
			http.Error(rw, `{"error":"server busy"}`, http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "nomic-embed-text" {
			http.Error(rw, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		var out struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		for _, in := range req.Input {
			v := make([]float32, 256)
			v[0] = 0.01
			for _, w := range strings.FieldsFunc(strings.ToLower(in), func(r rune) bool { return !unicode.IsLetter(r) }) {
				if len(w) < 3 || stop[w] {
					continue
				}
				weight := float32(1)
				if g, ok := groups[w]; ok {
					w, weight = g, 3
				}
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%256] += weight
			}
			out.Embeddings = append(out.Embeddings, v)
		}
		json.NewEncoder(rw).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSemanticRecallEndToEnd(t *testing.T) {
	ctx := t.Context()
	var down atomic.Bool
	var requests atomic.Int32
	srv := ollamaEmbed(t, &down, &requests)
	dir := t.TempDir()
	withArm := func(on bool) func(*config.Config) {
		return func(c *config.Config) {
			c.DataDir = dir
			c.LLM.Provider, c.LLM.BaseURL, c.LLM.MaxRetries = "ollama", srv.URL, 0
			c.Recall.Embeddings.Enabled = on
		}
	}
	d := daemontest.Start(t, withArm(true))
	cl := client.New(d.URL())
	for _, m := range []string{"The glorp quib sits under the stairs.", "We drove to Chicago on Friday.",
		"Bob likes green tea in the morning."} {
		if _, err := cl.Remember(ctx, "main", client.MemoryInput{Content: m, SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
	}
	// The background embedder catches up, and says so in /health.
	deadline := time.Now().Add(20 * time.Second)
	for {
		h, err := cl.Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if h.Embeddings == nil {
			t.Fatalf("/health has no embeddings part with the arm on: %+v", h)
		}
		if h.Embeddings.Backlog == 0 && h.Embeddings.LastSuccess != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("embeddings backlog after 20s: %+v\n%s", h.Embeddings, d.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}

	question := client.RecallRequest{Query: "Where did the snazzle fendle go?", Explain: true}
	res, err := cl.Recall(ctx, "main", question)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) == 0 || !strings.Contains(res.Items[0].Text, "glorp quib") ||
		res.Items[0].Explain == nil || res.Items[0].Explain.Semantic <= 0 {
		t.Fatalf("with the arm on, recall = %+v; want the glorp quib first, by its semantic part", res)
	}

	// The provider goes down: capture and (lexical) recall go on.
	down.Store(true)
	if _, err := cl.Remember(ctx, "main", client.MemoryInput{Content: "The quarterly report is due on Monday."}); err != nil {
		t.Fatalf("remember with the provider down: %v", err)
	}
	start := time.Now()
	res, err = cl.Recall(ctx, "main", client.RecallRequest{Query: "When is the quarterly report due?"})
	if err != nil || len(res.Items) == 0 || !strings.Contains(res.Items[0].Text, "quarterly report") {
		t.Fatalf("recall with the provider down = %+v, %v; want the report by its words", res, err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("recall with the provider down took %v", took)
	}
	// What only the arm could find is not found meanwhile: the arm was skipped.
	if res, err := cl.Recall(ctx, "main", question); err != nil || res.Found {
		t.Errorf("semantic question with the provider down = %+v, %v; want nothing found, no error", res, err)
	}
	for h, _ := cl.Health(ctx); h.Embeddings == nil || h.Embeddings.Error == ""; h, _ = cl.Health(ctx) {
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatalf("/health never said the embedder fails: %+v", h.Embeddings)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := d.Close(); err != nil && err != context.Canceled {
		t.Fatal(err)
	}

	// The arm off (the default), over the same memories and vectors: the
	// question shares no word with the memory and finds nothing.
	down.Store(false)
	before := requests.Load()
	d2 := daemontest.Start(t, withArm(false))
	cl2 := client.New(d2.URL())
	res, err = cl2.Recall(ctx, "main", question)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found {
		t.Errorf("with the arm off, recall = %+v; want nothing found", res)
	}
	if h, err := cl2.Health(ctx); err != nil || h.Embeddings != nil {
		t.Errorf("/health with the arm off has embeddings %+v (%v); want none", h.Embeddings, err)
	}
	if n := requests.Load(); n != before {
		t.Errorf("with the arm off, %d embedding requests were made", n-before)
	}
}
