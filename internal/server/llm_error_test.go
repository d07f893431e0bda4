package server

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/llm"
)

const echoedKey = "sk-proj-DORMOUSE/echo+key=0123456789"

var echoedForms = []string{
	echoedKey, url.QueryEscape(echoedKey), base64.StdEncoding.EncodeToString([]byte(echoedKey)),
	base64.RawURLEncoding.EncodeToString([]byte(echoedKey)), strings.ReplaceAll(echoedKey, "/", `\/`),
	hex.EncodeToString([]byte(echoedKey)),
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
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
		var logs lockedBuffer
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
