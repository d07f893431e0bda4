package llm_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/proctest"
)

// echoKey has the characters that make its encodings differ from it.
const echoKey = "sk-proj-DORMOUSE/echo+key=0123456789"

// encodings are the forms an echoing provider may quote a key in.
func encodings(key string) []string {
	return []string{
		key,
		url.QueryEscape(key),
		url.PathEscape(key),
		base64.StdEncoding.EncodeToString([]byte(key)),
		base64.URLEncoding.EncodeToString([]byte(key)),
		base64.RawStdEncoding.EncodeToString([]byte(key)),
		base64.RawURLEncoding.EncodeToString([]byte(key)),
		strings.ReplaceAll(key, "/", `\/`), // JSON-escaped as PHP and others write it
		hex.EncodeToString([]byte(key)),
		strings.ToUpper(hex.EncodeToString([]byte(key))),
		// Basic authentication's user:key, with the key at each offset.
		base64.StdEncoding.EncodeToString([]byte("u:" + key)),
		base64.StdEncoding.EncodeToString([]byte("us:" + key)),
		base64.URLEncoding.EncodeToString([]byte("user:" + key + "!")),
	}
}

// echoBodies are the providers' recorded error shapes (testdata/*/401.json)
// with the message replaced by %s.
var echoBodies = map[string]string{
	"openai": `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error",` +
		`"param":null,"code":"invalid_api_key"}}`,
	"anthropic": `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`,
	"ollama":    `{"error":"unauthorized: %s"}`,
	"googleai": `[{"error":{"code":400,"message":"API key not valid: %s","status":"INVALID_ARGUMENT",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}]`,
	"bedrock": `{"message":"The security token included in the request is invalid: %s"}`,
}

var echoEnv = map[string]string{
	"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "ollama": "OLLAMA_API_KEY",
	"googleai": "GOOGLE_API_KEY", "bedrock": "AWS_SECRET_ACCESS_KEY",
}

// TestProviderErrorBodyIsSummarised: a provider that answers an error with
// a body quoting the key, in any encoding, gives the caller (and so the
// API client) a summary naming provider, status and reason; the body is
// logged at debug only, the key redacted in every encoding.
func TestProviderErrorBodyIsSummarised(t *testing.T) {
	for _, p := range providers {
		for _, status := range []int{p.refused, http.StatusBadRequest, http.StatusInternalServerError} {
			t.Run(fmt.Sprintf("%s/%d", p.name, status), func(t *testing.T) {
				echo := strings.Join(encodings(echoKey), " ")
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					if p.errHeader != nil {
						for k, v := range p.errHeader(status) {
							w.Header()[k] = v
						}
					}
					w.WriteHeader(status)
					fmt.Fprintf(w, echoBodies[p.name], echo)
				}))
				t.Cleanup(srv.Close)
				var log proctest.Buffer
				environ := []string{echoEnv[p.name] + "=" + echoKey}
				if p.name == "bedrock" {
					environ = append(environ, "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS_REGION=eu-central-1")
				}
				c, err := llm.New(t.Context(), llm.Config{
					Provider: p.name, BaseURL: p.base(srv.URL), Timeout: 2 * time.Second, MaxRetries: 1,
					Backoff: time.Millisecond, MaxBackoff: time.Millisecond, Environ: environ,
					Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
				})
				if err != nil {
					t.Fatal(err)
				}
				_, _, err = c.Generate(t.Context(), llm.Request{System: "s", Prompt: "p"})
				if err == nil {
					t.Fatal("Generate succeeded against a provider that only fails")
				}
				checkSummary(t, err.Error(), p.name, status)
				checkLogs(t, log.String())
			})
		}
	}
}

func checkSummary(t *testing.T, msg, provider string, status int) {
	t.Helper()
	for _, enc := range encodings(echoKey) {
		if strings.Contains(msg, enc) {
			t.Errorf("the error holds the key as %q: %s", enc, msg)
		}
	}
	if !strings.Contains(msg, provider) || !strings.Contains(msg, fmt.Sprint(status)) {
		t.Errorf("error %q does not name the provider and status %d", msg, status)
	}
	if strings.Contains(msg, "security token") || strings.Contains(msg, "not valid") ||
		strings.Contains(msg, "Incorrect") || strings.Contains(msg, "x-api-key") {
		t.Errorf("the error quotes the provider's body: %s", msg)
	}
	if status == http.StatusUnauthorized && !strings.Contains(msg, "check the API key") {
		t.Errorf("error %q does not say to check the API key", msg)
	}
}

// checkLogs: no line holds the key in any form, and only debug lines hold
// the body, redacted.
func checkLogs(t *testing.T, log string) {
	t.Helper()
	for _, enc := range encodings(echoKey) {
		if strings.Contains(log, enc) {
			t.Errorf("the log holds the key as %q:\n%s", enc, log)
		}
	}
	bodyLogged := false
	for _, line := range strings.Split(log, "\n") {
		hasBody := strings.Contains(line, "[redacted]")
		if hasBody && !strings.Contains(line, "level=DEBUG") {
			t.Errorf("a line above debug holds the body: %s", line)
		}
		bodyLogged = bodyLogged || hasBody
	}
	if !bodyLogged {
		t.Errorf("no debug line holds the redacted body:\n%s", log)
	}
}

// TestEmbedderErrorBodyIsSummarised: the same for the embedding APIs,
// which Dormouse calls without langchaingo.
func TestEmbedderErrorBodyIsSummarised(t *testing.T) {
	for _, name := range llm.EmbeddingProviders {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprintf(w, echoBodies[name], strings.Join(encodings(echoKey), " "))
			}))
			t.Cleanup(srv.Close)
			var log proctest.Buffer
			e, err := llm.NewEmbedder(llm.Config{
				Provider: name, BaseURL: srv.URL + "/v1", Timeout: 2 * time.Second, Environ: []string{echoEnv[name] + "=" + echoKey},
				Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = e.Embed(t.Context(), []string{"a text"})
			if err == nil {
				t.Fatal("Embed succeeded against a provider that only fails")
			}
			checkSummary(t, err.Error(), name, http.StatusUnauthorized)
			checkLogs(t, log.String())
		})
	}
}
