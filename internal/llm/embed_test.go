package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/llm"
)

// embedWire is how each provider's embedding endpoint is reached.
var embedWire = []struct {
	provider, path string
	base           func(srv string) string
	environ        []string
	auth           string
}{
	{provider: "ollama", path: "/api/embed", base: func(s string) string { return s }},
	{provider: "openai", path: "/v1/embeddings", base: func(s string) string { return s + "/v1" },
		environ: []string{"OPENAI_API_KEY=" + openaiKey}, auth: "Bearer " + openaiKey},
}

var embedTexts = []string{"I am allergic to penicillin", "We drove to Chicago"}

// The documented vectors of testdata/<provider>/embed_response.json, in the order asked.
var embedWant = [][]float32{
	{0.010071029, -0.0017594862, 0.05007221, 0.04692972},
	{-0.0098027075, 0.06042469, 0.025257962, -0.006364387},
}

func newEmbedder(t *testing.T, provider, base string, environ []string) *llm.Embedder {
	t.Helper()
	e, err := llm.NewEmbedder(llm.Config{Provider: provider, BaseURL: base, Environ: environ, MaxRetries: 2,
		Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbedWire(t *testing.T) {
	for _, w := range embedWire {
		t.Run(w.provider, func(t *testing.T) {
			resp, err := os.ReadFile(filepath.Join("testdata", w.provider, "embed_response.json"))
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != w.path {
					http.Error(rw, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
					return
				}
				if got := r.Header.Get("Authorization"); got != w.auth {
					http.Error(rw, "wrong authorization", http.StatusUnauthorized)
					return
				}
				body, _ = io.ReadAll(r.Body)
				rw.Header().Set("Content-Type", "application/json")
				rw.Write(resp)
			}))
			defer srv.Close()
			e := newEmbedder(t, w.provider, w.base(srv.URL), w.environ)
			if e.Model() != llm.DefaultEmbeddingModel(w.provider) {
				t.Errorf("Model() = %q, want the default %q", e.Model(), llm.DefaultEmbeddingModel(w.provider))
			}
			vecs, u, err := e.Embed(context.Background(), embedTexts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(vecs, embedWant); diff != "" {
				t.Errorf("vectors mismatch (-got +want):\n%s", diff)
			}
			if u.Calls != 1 || u.TokensIn != 8 {
				t.Errorf("usage = %+v, want 1 call and 8 tokens in", u)
			}
			golden := filepath.Join("testdata", w.provider, "embed_request.golden.json")
			var pretty map[string]any
			if err := json.Unmarshal(body, &pretty); err != nil {
				t.Fatalf("request is not JSON: %v: %s", err, body)
			}
			got, _ := json.MarshalIndent(pretty, "", "  ")
			got = append(got, '\n')
			if *update {
				if err := os.WriteFile(golden, got, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(got), string(want)); diff != "" {
				t.Errorf("request mismatch (-got +want):\n%s", diff)
			}
		})
	}
}

func TestEmbedErrors(t *testing.T) {
	for _, w := range embedWire {
		for _, tc := range []struct {
			name     string
			status   int
			body     string
			failures int32 // answers with status before the good one
			wantErr  error
			wantMsg  string
			calls    int32
		}{
			{name: "5xx then ok", status: 500, failures: 1, calls: 2},
			{name: "5xx every time", status: 500, failures: 99, wantErr: llm.ErrUnavailable, wantMsg: "answered 500", calls: 3},
			{name: "429 then ok", status: 429, failures: 2, calls: 3},
			{name: "404 is refused at once", status: 404, failures: 99, wantErr: llm.ErrRefused, wantMsg: "answered 404", calls: 1},
			{name: "one vector for two texts", body: `{"embeddings":[[1,2]],"data":[{"index":0,"embedding":[1,2]}]}`,
				wantErr: llm.ErrBadEmbedding, wantMsg: "asked for 2 vectors, got 1", calls: 1},
			{name: "vectors of two lengths", body: `{"embeddings":[[1,2],[1,2,3]],"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`,
				wantErr: llm.ErrBadEmbedding, wantMsg: "vector 1 has 3 numbers, vector 0 has 2", calls: 1},
			{name: "empty vector", body: `{"embeddings":[[],[]],"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`,
				wantErr: llm.ErrBadEmbedding, wantMsg: "vector 0 is empty", calls: 1},
			{name: "not JSON", body: `<html>gateway</html>`, wantErr: llm.ErrBadEmbedding, calls: 1},
		} {
			t.Run(w.provider+"/"+tc.name, func(t *testing.T) {
				good, err := os.ReadFile(filepath.Join("testdata", w.provider, "embed_response.json"))
				if err != nil {
					t.Fatal(err)
				}
				errBody := []byte(`{"error":"boom"}`)
				if tc.status != 0 && tc.status != 404 {
					if errBody, err = os.ReadFile(filepath.Join("testdata", w.provider, "500.json")); err != nil {
						t.Fatal(err)
					}
				}
				var calls atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
					n := calls.Add(1)
					if tc.status != 0 && n <= tc.failures {
						rw.WriteHeader(tc.status)
						rw.Write(errBody)
						return
					}
					if tc.body != "" {
						rw.Write([]byte(tc.body))
						return
					}
					rw.Write(good)
				}))
				defer srv.Close()
				e := newEmbedder(t, w.provider, w.base(srv.URL), w.environ)
				vecs, _, err := e.Embed(context.Background(), embedTexts)
				if got := calls.Load(); got != tc.calls {
					t.Errorf("%d requests, want %d", got, tc.calls)
				}
				if tc.wantErr == nil {
					if err != nil {
						t.Fatal(err)
					}
					if len(vecs) != 2 {
						t.Fatalf("%d vectors, want 2", len(vecs))
					}
					return
				}
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantMsg) {
					t.Errorf("err = %q, want it to say %q", err, tc.wantMsg)
				}
				if strings.Contains(err.Error(), openaiKey) {
					t.Errorf("err holds the API key: %v", err)
				}
			})
		}
	}
}

func TestEmbedProviderDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	e := newEmbedder(t, "ollama", url, nil)
	_, _, err := e.Embed(context.Background(), embedTexts)
	if !errors.Is(err, llm.ErrUnavailable) || !strings.Contains(err.Error(), "could not be reached") {
		t.Fatalf("err = %v, want ErrUnavailable saying the server could not be reached", err)
	}
	// Three failed calls in a row open the circuit: the next is refused without a request.
	for range 2 {
		e.Embed(context.Background(), embedTexts)
	}
	if _, _, err := e.Embed(context.Background(), embedTexts); !errors.Is(err, llm.ErrUnavailable) ||
		!strings.Contains(err.Error(), "not calling it until") {
		t.Errorf("err = %v, want the open circuit's", err)
	}
}

func TestNewEmbedderErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  llm.Config
		want string
	}{
		{llm.Config{Provider: "anthropic"}, `llm provider "anthropic" has no embeddings here`},
		{llm.Config{Provider: "openai"}, "openai needs an API key"},
	} {
		if _, err := llm.NewEmbedder(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewEmbedder(%+v) = %v, want an error saying %q", tc.cfg, err, tc.want)
		}
	}
	// An OpenAI-compatible server needs no key.
	if _, err := llm.NewEmbedder(llm.Config{Provider: "openai", BaseURL: "http://127.0.0.1:8080/v1"}); err != nil {
		t.Errorf("NewEmbedder with a base_url and no key: %v", err)
	}
	if e, _ := llm.NewEmbedder(llm.Config{Provider: "ollama", Model: "mxbai-embed-large"}); e.Model() != "mxbai-embed-large" {
		t.Errorf("Model() = %q, want the configured one", e.Model())
	}
}
