package server

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/proctest"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

const echoedKey = "sk-proj-DORMOUSE/echo+key=0123456789"

var echoedForms = []string{
	echoedKey, url.QueryEscape(echoedKey), base64.StdEncoding.EncodeToString([]byte(echoedKey)),
	base64.RawURLEncoding.EncodeToString([]byte(echoedKey)), strings.ReplaceAll(echoedKey, "/", `\/`),
	hex.EncodeToString([]byte(echoedKey)),
}

// echoingOpenAI answers every call with status and OpenAI's error shape,
// the message quoting the key in several encodings.
func echoingOpenAI(t *testing.T, status int, log *slog.Logger) *llm.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error",`+
			`"param":null,"code":"invalid_api_key"}}`, strings.Join(echoedForms, " "))
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(t.Context(), llm.Config{Provider: "openai", BaseURL: srv.URL + "/v1", Timeout: 2 * time.Second,
		Environ: []string{"OPENAI_API_KEY=" + echoedKey}, Backoff: time.Millisecond, MaxRetries: 1, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAskProviderErrorIsSummarised: an API client asking through a model
// that refuses with a body quoting the key gets provider, status and a
// reason, and the info log holds neither the key in any encoding nor the
// body.
func TestAskProviderErrorIsSummarised(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusInternalServerError} {
		var logs proctest.Buffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
		model := echoingOpenAI(t, status, log)
		f := newFixture(t, Options{AutoCreate: true, Logger: log, Answer: &answer.Answerer{Model: model}})
		f.post("/v1/agents/main/memories", `{"content":"penicillin allergy","timestamp":"2026-02-01T09:00:00Z"}`, nil)
		var body json.RawMessage
		f.post("/v1/agents/main/ask", `{"query":"penicillin"}`, &body)
		var eb ErrorBody
		if err := json.Unmarshal(body, &eb); err != nil {
			t.Fatal(err)
		}
		for _, form := range echoedForms {
			if strings.Contains(string(body), form) || strings.Contains(eb.Error.Message, form) {
				t.Errorf("model %d: the answer holds the key as %q: %s", status, form, body)
			}
			if strings.Contains(logs.String(), form) {
				t.Errorf("model %d: the log holds the key as %q:\n%s", status, form, logs.String())
			}
		}
		if !strings.Contains(eb.Error.Message, fmt.Sprintf("openai answered %d", status)) ||
			strings.Contains(eb.Error.Message, "Incorrect API key") || strings.Contains(logs.String(), "Incorrect API key") {
			t.Errorf("model %d: message %q, log:\n%s\nwant a summary naming provider and status, no body", status,
				eb.Error.Message, logs.String())
		}
	}
}

// TestConsolidateProviderErrorIsSummarised: a consolidation failed by such
// a model stores, and answers, the summary; GET runs shows it too.
func TestConsolidateProviderErrorIsSummarised(t *testing.T) {
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC, DedupWindow: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	var logs proctest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	eng := &consolidate.Engine{Store: st, Location: time.UTC, Now: func() time.Time { return now }, Logger: log,
		Consolidator: consolidate.LLM{Client: echoingOpenAI(t, http.StatusUnauthorized, log), Location: time.UTC}}
	ts := httptest.NewServer(New(st, &recall.Engine{}, Options{AutoCreate: true, Now: eng.Now, Consolidate: eng, Logger: log}))
	t.Cleanup(func() {
		ts.Close()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	f := &fixture{t: t, url: ts.URL, store: st}
	f.post("/v1/agents/main/memories", `{"content":"Alice's role is engineer.","timestamp":"2026-02-08T09:00:00Z"}`, nil)
	var answered json.RawMessage
	f.post("/v1/agents/main/consolidate", ``, &answered)
	var runs json.RawMessage
	f.do(http.MethodGet, "/v1/agents/main/consolidations", nil, &runs)
	for _, form := range echoedForms {
		for what, text := range map[string]string{"answer": string(answered), "runs": string(runs), "log": logs.String()} {
			if strings.Contains(text, form) || strings.Contains(text, "Incorrect API key") {
				t.Errorf("the %s holds the key as %q or the body: %s", what, form, text)
			}
		}
	}
	if !strings.Contains(string(answered)+string(runs), "openai answered 401") {
		t.Errorf("neither the answer %s nor the runs %s name the provider's status", answered, runs)
	}
}
