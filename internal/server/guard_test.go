package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// tokenFixture serves with three tokens: one that may write "assistant",
// one that may read every agent, and one that may write every agent.
func tokenFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixture(t, Options{AutoCreate: true, Keyring: tokenKeyring(t)})
}

// tokenKeyring holds tokenFixture's three tokens.
func tokenKeyring(t *testing.T) *auth.Keyring {
	t.Helper()
	k, err := auth.New([]auth.Rule{
		{Name: "assistant", SHA256: auth.Hash("tok-assistant"), Agents: []string{"assistant"}, Write: true},
		{Name: "reader", SHA256: auth.Hash("tok-reader"), Agents: []string{"*"}},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// send makes a request with an Authorization header (none when auth is "")
// and returns the status and the body.
func (f *fixture) send(method, path, authz, body string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), method, f.url+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	switch {
	case authz == "cookie":
		req.Header.Set("Cookie", auth.CookieName+"=tok-admin")
	case authz != "":
		req.Header.Set("Authorization", authz)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func TestTokensGuardEveryRoute(t *testing.T) {
	f := tokenFixture(t)
	// Seed both agents as admin.
	for _, a := range []string{"assistant", "coder"} {
		if code, body := f.send("POST", "/v1/agents/"+a+"/memories", "Bearer tok-admin",
			`{"content":"The boiler code is 4471.","role":"user"}`); code != http.StatusCreated {
			t.Fatalf("seed %s: %d %s", a, code, body)
		}
	}
	routes := []struct {
		method, path, body string
		write              bool
	}{
		{"POST", "/v1/agents/%s/memories", `{"content":"Water the fern on Fridays."}`, true},
		{"GET", "/v1/agents/%s/memories", "", false},
		{"GET", "/v1/agents/%s/memories/1", "", false},
		{"POST", "/v1/agents/%s/recall", `{"query":"boiler code"}`, false},
		{"POST", "/v1/agents/%s/ask", `{"question":"What is the boiler code?"}`, false},
		{"GET", "/v1/agents/%s/facts", "", false},
		{"GET", "/v1/agents/%s/consolidations", "", false},
		{"GET", "/v1/agents/%s/stats", "", false},
		{"GET", "/v1/agents/%s/memories/1/origin", "", false},
		{"DELETE", "/v1/agents/%s/facts/99", "", true},
		{"GET", "/v1/agents/%s/profile", "", false},
		{"GET", "/v1/agents/%s/profile/99", "", false},
		{"PATCH", "/v1/agents/%s/profile/99", `{"text":"The user lives in Leeds."}`, true},
		{"DELETE", "/v1/agents/%s/profile/99", "", true},
		{"POST", "/v1/agents/%s/consolidate", `{}`, true},
		{"POST", "/v1/agents/%s/files", "", true},
		{"DELETE", "/v1/agents/%s/memories/99", "", true},
	}
	refused := func(code int) bool { return code == http.StatusUnauthorized || code == http.StatusForbidden }
	for _, rt := range routes {
		for _, c := range []struct {
			authz, agent string
			want         int // 401, 403, or 0: allowed (whatever the handler answers)
		}{
			{"", "assistant", http.StatusUnauthorized},
			{"Bearer wrong", "assistant", http.StatusUnauthorized},
			{"Basic dG9rLWFkbWlu", "assistant", http.StatusUnauthorized},
			{"cookie", "assistant", http.StatusUnauthorized}, // the page's cookie is not a bearer token
			{"Bearer tok-assistant", "assistant", 0},
			{"Bearer tok-assistant", "coder", http.StatusForbidden},
			{"Bearer tok-reader", "coder", map[bool]int{true: http.StatusForbidden, false: 0}[rt.write]},
			{"Bearer tok-admin", "coder", 0},
		} {
			path := strings.Replace(rt.path, "%s", c.agent, 1)
			code, body := f.send(rt.method, path, c.authz, strings.Replace(rt.body, "fern", "fern of "+c.authz, 1))
			switch {
			case c.want == 0 && refused(code):
				t.Errorf("%s %s with %q: %d %s, want it allowed", rt.method, path, c.authz, code, body)
			case c.want != 0 && code != c.want:
				t.Errorf("%s %s with %q: %d %s, want %d", rt.method, path, c.authz, code, body, c.want)
			}
			if code == http.StatusUnauthorized && !strings.Contains(body, `"unauthorized"`) {
				t.Errorf("%s %s: 401 body %s", rt.method, path, body)
			}
		}
	}

	// Endpoints that span agents need a token for every agent.
	for _, c := range []struct {
		method, path, authz string
		want                int
	}{
		{"GET", "/v1/watch/status", "Bearer tok-assistant", http.StatusForbidden},
		{"POST", "/v1/watch/scan", "Bearer tok-reader", http.StatusForbidden},
		{"GET", "/v1/watch/status", "Bearer tok-reader", http.StatusNotImplemented}, // allowed; no watcher here
		{"POST", "/v1/watch/scan", "Bearer tok-admin", http.StatusNotImplemented},
		{"GET", "/healthz", "", http.StatusOK}, // monitors stay open
		{"GET", "/metrics", "", http.StatusOK},
	} {
		if code, body := f.send(c.method, c.path, c.authz, ""); code != c.want {
			t.Errorf("%s %s with %q: %d %s, want %d", c.method, c.path, c.authz, code, body, c.want)
		}
	}

	// The agent list shows each token its own agents.
	for authz, want := range map[string]string{
		"Bearer tok-assistant": `{"agents":[{"name":"assistant"}]}`,
		"Bearer tok-reader":    `{"agents":[{"name":"assistant"},{"name":"coder"}]}`,
	} {
		if code, body := f.send("GET", "/v1/agents", authz, ""); code != http.StatusOK || strings.TrimSpace(body) != want {
			t.Errorf("GET /v1/agents with %q: %d %s, want %s", authz, code, body, want)
		}
	}

	// A refused write stored nothing.
	code, body := f.send("GET", "/v1/agents/coder/memories", "Bearer tok-admin", "")
	if code != http.StatusOK || !strings.Contains(body, "fern of Bearer tok-admin") || strings.Count(body, `"content":"Water the fern`) != 1 {
		t.Errorf("coder's memories after refused writes: %d %s", code, body)
	}
}

// Without tokens (loopback) nothing is asked for.
func TestNoTokensNoQuestions(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	if code, body := f.send("POST", "/v1/agents/assistant/memories", "", `{"content":"Fern on Fridays."}`); code != http.StatusCreated {
		t.Errorf("write without tokens configured: %d %s", code, body)
	}
}

// Requests the daemon makes of itself pass: the MCP tools, after /mcp
// checked the caller.
func TestInProcessIsTrusted(t *testing.T) {
	f := tokenFixture(t)
	k, _ := auth.New([]auth.Rule{{Name: "x", SHA256: auth.Hash("x"), Agents: []string{"*"}}})
	srv := New(f.store, &recall.Engine{}, Options{AutoCreate: true, Keyring: k})
	c := &http.Client{Transport: InProcess(srv)}
	resp, err := c.Post("http://in-process/v1/agents/assistant/memories", "application/json",
		strings.NewReader(`{"content":"Fern on Fridays."}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("in-process write: %d, want 201", resp.StatusCode)
	}
	guarded := srv.RequireAll(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for authz, want := range map[string]int{"": 401, "Bearer x": 403} {
		req, _ := http.NewRequest("POST", "/mcp", nil)
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		rec := httptest.NewRecorder()
		guarded.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("/mcp with %q: %d, want %d", authz, rec.Code, want)
		}
	}
}
