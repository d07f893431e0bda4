package llm

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbe replays each provider's documented answer to its model-list
// request and checks the request Probe makes: the path and the key header.
func TestProbe(t *testing.T) {
	const key = "sk-secret-probe-key"
	tests := []struct {
		provider, path, header, want, file string
		env                                string
		model                              string // one the recorded list holds
	}{
		{"ollama", "/api/tags", "", "", "ollama_tags.json", "", "llama3.2"},
		{"ollama", "/api/tags", "Authorization", "Bearer " + key, "ollama_tags.json", "OLLAMA_API_KEY", "llama3.2:latest"},
		{"openai", "/models", "Authorization", "Bearer " + key, "openai_models.json", "OPENAI_API_KEY", "gpt-4o-mini"},
		{"anthropic", "/models", "X-Api-Key", key, "anthropic_models.json", "ANTHROPIC_API_KEY", "claude-3-5-haiku-20241022"},
		{"googleai", "/models", "X-Goog-Api-Key", key, "googleai_models.json", "GOOGLE_API_KEY", "gemini-2.0-flash"},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.env, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata/probe", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var status = http.StatusOK
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet || r.URL.Path != "/v1"+tt.path {
					t.Errorf("request %s %s, want GET /v1%s", r.Method, r.URL.Path, tt.path)
				}
				if tt.header != "" && r.Header.Get(tt.header) != tt.want {
					t.Errorf("%s: %q, want %q", tt.header, r.Header.Get(tt.header), tt.want)
				}
				if strings.Contains(r.URL.RawQuery, key) {
					t.Errorf("the key travels in the URL: %s", r.URL)
				}
				w.WriteHeader(status)
				w.Write(body)
			}))
			defer srv.Close()
			cfg := Config{Provider: tt.provider, BaseURL: srv.URL + "/v1/"}
			if tt.env != "" {
				cfg.Environ = []string{tt.env + "=" + key}
			}
			if err := Probe(t.Context(), cfg, srv.Client()); err != nil {
				t.Fatalf("Probe: %v", err)
			}
			models, err := Models(t.Context(), cfg, srv.Client())
			if err != nil || !HasModel(models, tt.model) || HasModel(models, "no-such-model") {
				t.Errorf("Models = %v, %v; want %q among them", models, err, tt.model)
			}
			for _, s := range []int{http.StatusUnauthorized, http.StatusInternalServerError, http.StatusNotFound} {
				status = s
				err := Probe(t.Context(), cfg, srv.Client())
				if err == nil || !strings.Contains(err.Error(), http.StatusText(s)) {
					t.Errorf("status %d: err %v", s, err)
				}
				if err != nil && strings.Contains(err.Error(), key) {
					t.Errorf("the key leaks into the error: %v", err)
				}
			}
		})
	}
}

func TestProbeUnreachableAndOffline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if err := Probe(t.Context(), Config{Provider: "ollama", BaseURL: "http://" + addr}, nil); err == nil {
		t.Error("Probe of a closed port passed")
	}
	if err := Probe(t.Context(), Config{Provider: "offline"}, nil); err != nil {
		t.Errorf("offline: %v", err)
	}
	if err := Probe(t.Context(), Config{Provider: "bedrock"}, nil); !errors.Is(err, ErrNotProbed) {
		t.Errorf("bedrock: %v, want ErrNotProbed", err)
	}
	if err := Probe(t.Context(), Config{Provider: "nonsense"}, nil); err == nil {
		t.Error("unknown provider passed")
	}
}

// TestProbeErrorHidesAKeyInTheURL: a base_url that carries the key (a
// proxy's path token) is redacted in every probe error, in any encoding.
func TestProbeErrorHidesAKeyInTheURL(t *testing.T) {
	const key = "proxy/DORMOUSE+key=0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	cfg := Config{Provider: "ollama", BaseURL: srv.URL + "/" + url.PathEscape(key), Environ: []string{"OLLAMA_API_KEY=" + key}}
	err := Probe(t.Context(), cfg, srv.Client())
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("Probe against a 401: %v", err)
	}
	for _, form := range []string{key, url.PathEscape(key)} {
		if strings.Contains(err.Error(), form) {
			t.Errorf("the error holds the key as %q: %v", form, err)
		}
	}
}
