package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

func TestAskOffline(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	if code := f.post("/v1/agents/main/memories", `{"memories":[
		{"content":"I am allergic to penicillin. Never suggest it.","timestamp":"2026-02-01T09:00:00Z"},
		{"content":"Lunch at the ramen place.","timestamp":"2026-02-02T09:00:00Z"}]}`, nil); code != http.StatusCreated {
		t.Fatalf("POST memories: %d", code)
	}
	var res answer.Result
	if code := f.post("/v1/agents/main/ask", `{"query":"what am I allergic to?"}`, &res); code != http.StatusOK {
		t.Fatalf("ask: %d", code)
	}
	if res.Answer != "I am allergic to penicillin. [memory:1]" || !slices.Equal(res.Citations, []string{"memory:1"}) ||
		res.Provider != "offline" || len(res.Items) == 0 || res.Context == "" {
		t.Errorf("ask = %+v", res)
	}
	// as_of before the memories: nothing to answer from.
	if code := f.post("/v1/agents/main/ask", `{"query":"allergic","as_of":"2026-01-01T00:00:00Z"}`, &res); code != http.StatusOK {
		t.Fatalf("ask as_of: %d", code)
	}
	if !res.Abstained || res.Answer != answer.NothingFound || len(res.Citations) != 0 {
		t.Errorf("ask as of before anything = %+v, want an abstention", res)
	}
}

func TestAskBadRequests(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	f.post("/v1/agents/main/memories", `{"content":"x y z"}`, nil)
	tests := []struct {
		path, body string
		status     int
		code       string
	}{
		{"/v1/agents/main/ask", `{"query":`, 400, "invalid_json"},
		{"/v1/agents/main/ask", `{"question":"x"}`, 400, "unknown_field"},
		{"/v1/agents/main/ask", `{"query":"x","budget_tokens":-1}`, 400, "invalid_request"},
		{"/v1/agents/main/ask", `{"query":"x","as_of":"tuesday"}`, 400, "invalid_request"},
		{"/v1/agents/nobody/ask", `{"query":"x"}`, 404, "unknown_agent"},
		{"/v1/agents/Bad..Name/ask", `{"query":"x"}`, 400, "invalid_agent"},
	}
	for _, tc := range tests {
		var eb ErrorBody
		if code := f.post(tc.path, tc.body, &eb); code != tc.status || eb.Error.Code != tc.code {
			t.Errorf("POST %s %s = %d %q, want %d %q", tc.path, tc.body, code, eb.Error.Code, tc.status, tc.code)
		}
	}
}

// openAIServer answers every chat completion with status and, for 200, the
// OpenAI wire format carrying content.
func openAIServer(t *testing.T, status int, content string) *llm.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			w.Write([]byte(`{"error":{"message":"nope","type":"invalid_request_error"}}`))
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1772485445, "model": "gpt-4o-mini",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(t.Context(), llm.Config{Provider: "openai", BaseURL: srv.URL + "/v1", Timeout: 2 * time.Second,
		Environ: []string{"OPENAI_API_KEY=sk-test"}, Backoff: time.Millisecond, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAskModelCitationsAreChecked(t *testing.T) {
	model := openAIServer(t, http.StatusOK, "Penicillin [memory:1]; also aspirin [memory:2] and [fact:9].")
	f := newFixture(t, Options{AutoCreate: true, Answer: &answer.Answerer{Recall: &recall.Engine{}, Model: model}})
	f.post("/v1/agents/main/memories", `{"memories":[
		{"content":"I am allergic to penicillin.","timestamp":"2026-02-01T09:00:00Z"},
		{"content":"Bought aspirin at the pharmacy.","timestamp":"2026-02-03T10:00:00Z"}]}`, nil)
	var res answer.Result
	if code := f.post("/v1/agents/main/ask", `{"query":"penicillin","as_of":"2026-02-05T00:00:00Z"}`, &res); code != http.StatusOK {
		t.Fatalf("ask: %d", code)
	}
	// memory:2 exists but was not recalled for "penicillin" (two days later,
	// it is not even a neighbouring turn): it is not in
	// the context, so citing it is dropped like the invented fact:9.
	if res.Answer != "Penicillin [memory:1]; also aspirin and." || !slices.Equal(res.Citations, []string{"memory:1"}) ||
		!slices.Equal(res.Dropped, []string{"memory:2", "fact:9"}) {
		t.Errorf("ask = %+v", res)
	}
}

func TestAskModelFailures(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   int
		code   string
	}{
		{http.StatusUnauthorized, http.StatusBadGateway, "llm_refused"},
		{http.StatusInternalServerError, http.StatusServiceUnavailable, "llm_unavailable"},
	} {
		model := openAIServer(t, tc.status, "")
		f := newFixture(t, Options{AutoCreate: true, Answer: &answer.Answerer{Model: model}})
		f.post("/v1/agents/main/memories", `{"content":"penicillin allergy","timestamp":"2026-02-01T09:00:00Z"}`, nil)
		var eb ErrorBody
		if code := f.post("/v1/agents/main/ask", `{"query":"penicillin"}`, &eb); code != tc.want || eb.Error.Code != tc.code {
			t.Errorf("model %d: ask = %d %q, want %d %q", tc.status, code, eb.Error.Code, tc.want, tc.code)
		}
	}
}
