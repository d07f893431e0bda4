package llm_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/llm"
)

// TestEchoedKeyIsRedactedInEveryEncoding runs a provider that answers 401
// with OpenAI's error body quoting the key as sent, URL-encoded, in base64
// and JSON-escaped: neither the error (what API clients see) nor the log
// holds any of them.
func TestEchoedKeyIsRedactedInEveryEncoding(t *testing.T) {
	const key = `sk-te+st/key="with"&odd=chars`
	quoted, _ := json.Marshal(key)
	encodings := map[string]string{
		"raw": key, "query": url.QueryEscape(key), "path": url.PathEscape(key),
		"base64": base64.StdEncoding.EncodeToString([]byte(key)), "base64url": base64.RawURLEncoding.EncodeToString([]byte(key)),
		"json": strings.Trim(string(quoted), `"`),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		var b strings.Builder
		for name, v := range encodings {
			fmt.Fprintf(&b, " %s:%s", name, v)
		}
		msg, _ := json.Marshal("Incorrect API key provided:" + b.String())
		fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, msg)
	}))
	t.Cleanup(srv.Close)
	var log syncBuffer
	c, err := llm.New(t.Context(), llm.Config{
		Provider: "openai", BaseURL: srv.URL + "/v1", Timeout: 5 * time.Second, MaxRetries: 1,
		Environ: []string{"OPENAI_API_KEY=" + key}, Backoff: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Record(t.Context(), llm.MapRequest("2026-03-02", notes))
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("error %v, want one naming the 401", err)
	}
	for name, v := range encodings {
		if strings.Contains(err.Error(), v) {
			t.Errorf("the error holds the key %s: %v", name, err)
		}
		if strings.Contains(log.String(), v) {
			t.Errorf("the log holds the key %s:\n%s", name, log.String())
		}
	}
}
