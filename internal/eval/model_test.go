package eval_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/eval"
)

// TestRunWithModel plays a scenario with an LLM provider (an OpenAI wire
// format server that always gives the same answer): the on arm checks the
// model's answer beside the context, the off arm asks the model with no
// context, so a model that "knows" the answer without memory makes the probe
// leak, and an answer citing an item outside its context is repaired.
func TestRunWithModel(t *testing.T) {
	var mu sync.Mutex
	var prompts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		prompts = append(prompts, req.Messages[len(req.Messages)-1].Content)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{
				"role": "assistant", "content": "It is under the blue flowerpot [memory:1] [memory:404]."}}},
			"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
		})
	}))
	defer srv.Close()

	cfg := evalConfig()
	cfg.LLM.Provider = "openai"
	cfg.LLM.BaseURL = srv.URL + "/v1"
	cfg.LLM.MaxRetries = 0
	r := &eval.Runner{Config: cfg, Environ: []string{"OPENAI_API_KEY=sk-test-eval"}, TempDir: t.TempDir()}
	sc := mustParse(t, `
name: model
events:
  - at: 2026-03-01T09:00:00
    content: "The spare key is under the blue flowerpot."
probes:
  - ask: "Where is the spare key?"
    needs: ["Under the blue flowerpot."]
    expect_any: ["flowerpot"]
    expect_none: ["doormat"]
`)
	res := r.Run(t.Context(), sc)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	p := res.Probes[0]
	if !p.On.Pass || p.On.Answer != "It is under the blue flowerpot [memory:1]." || strings.Join(p.Citations, ",") != "memory:1" {
		t.Errorf("on arm: %+v, citations %q", p.On, p.Citations)
	}
	if !p.Off.Pass || !p.Leaking || p.Off.Answer == "" {
		t.Errorf("off arm: a model answering without memory must make the probe leak: %+v", p.Off)
	}
	if !p.Oracle.Pass || p.Oracle.Answer == "" {
		t.Errorf("oracle arm: %+v", p.Oracle)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(prompts) != 3 {
		t.Fatalf("%d model calls, want 3 (on, off, oracle)", len(prompts))
	}
	joined := strings.Join(prompts, "\n---\n")
	for _, want := range []string{"[memory:1] 2026-03-01 09:00: The spare key is under the blue flowerpot.", "Context:\n(nothing)", "[memory:1] Under the blue flowerpot."} {
		if !strings.Contains(joined, want) {
			t.Errorf("no prompt holds %q:\n%s", want, joined)
		}
	}
}
