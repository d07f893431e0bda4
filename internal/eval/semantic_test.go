package eval_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/eval"
)

// TestRunWithTheSemanticArm: with recall.embeddings on, eval recalls as the
// daemon does, by the vectors of what the scenario stored: a question that
// shares no word with the memory (snazzle is the embedding model's synonym of
// glorp) finds it.
func TestRunWithTheSemanticArm(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/embed":
			var req struct{ Input []string }
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			out := map[string][][]float32{"embeddings": {}}
			for _, in := range req.Input {
				v := []float32{0.01, 0}
				if strings.Contains(in, "glorp") || strings.Contains(in, "snazzle") {
					v[1] = 1
				}
				out["embeddings"] = append(out["embeddings"], v)
			}
			json.NewEncoder(w).Encode(out)
		case "/api/chat": // answers from the context, if it has the glorp
			var req struct{ Messages []struct{ Content string } }
			json.NewDecoder(r.Body).Decode(&req)
			answer := "Nothing stored answers this."
			if strings.Contains(req.Messages[len(req.Messages)-1].Content, "[memory:1] 2026-03-01 09:00: The glorp") {
				answer = "It sits under the stairs [memory:1]."
			}
			json.NewEncoder(w).Encode(map[string]any{"model": "qwen2.5", "done": true, "done_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cfg := evalConfig()
	cfg.LLM.Provider, cfg.LLM.Model, cfg.LLM.BaseURL, cfg.LLM.MaxRetries = "ollama", "qwen2.5", srv.URL, 0
	cfg.Recall.Embeddings.Enabled = true
	r := &eval.Runner{Config: cfg, TempDir: t.TempDir()}
	sc := mustParse(t, `
name: semantic
events:
  - at: 2026-03-01T09:00:00
    content: "The glorp sits under the stairs."
probes:
  - ask: "Where did the snazzle go?"
    needs: ["Under the stairs."]
    expect_any: ["stairs"]
`)
	res := r.Run(t.Context(), sc)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if p := res.Probes[0]; !p.On.Pass || strings.Join(p.Citations, ",") != "memory:1" {
		t.Errorf("on arm %+v, citations %q; want the glorp found by its vector", p.On, p.Citations)
	}
}
