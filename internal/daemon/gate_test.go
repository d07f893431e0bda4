package daemon_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// TestTheAPIAndThePageAnswerAlike sends the same request to both doors of
// the daemon, the API and the memory-bank page, and wants the same status
// from each: the agent's name and the agent list, the token's scope, and
// each kind of error are the gate's rules (internal/gate), not two copies.
func TestTheAPIAndThePageAnswerAlike(t *testing.T) {
	token := func(name, secret, access string, agents ...string) config.Token {
		return config.Token{Name: name, SHA256: auth.Hash(secret), Agents: agents, Access: access}
	}
	d := daemontest.Start(t, func(c *config.Config) {
		c.API.AutoCreate = false
		c.API.Agents = []string{"main", "other"}
		c.Auth.Tokens = []config.Token{
			token("admin", "tok-admin", "write", "*"),
			token("main-reader", "tok-read", "read", "main"),
			token("main-writer", "tok-main", "write", "main"),
		}
	})
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(bearer, method, path, contentType, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), method, d.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := send("tok-admin", "POST", "/v1/agents/main/memories", "application/json",
		`{"content":"The fern wants water on Sundays."}`); status != http.StatusCreated {
		t.Fatalf("seed a memory: %d %s", status, body)
	}
	_, overview := send("tok-admin", "GET", "/", "", "")
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(overview)
	if csrf == nil {
		t.Fatalf("no CSRF token on the overview:\n%s", overview)
	}
	api := func(bearer, method, path, body string) func() (int, string) {
		return func() (int, string) { return send(bearer, method, path, "application/json", body) }
	}
	page := func(bearer, method, path string, form url.Values) func() (int, string) {
		return func() (int, string) {
			if method == "GET" {
				return send(bearer, method, path, "", "")
			}
			form.Set("csrf", csrf[1])
			return send(bearer, method, path, "application/x-www-form-urlencoded", form.Encode())
		}
	}
	form := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	for _, tc := range []struct {
		name      string
		api, page func() (int, string)
		want      int
	}{
		{"no token", api("", "DELETE", "/v1/agents/main/memories/1", ""),
			page("", "POST", "/agents/main/memories/1/delete", form()), 401},
		{"an unknown token", api("tok-nobody", "GET", "/v1/agents/main/memories", ""),
			page("tok-nobody", "POST", "/agents/main/ask", form("q", "fern")), 401},
		{"an invalid agent name", api("tok-admin", "GET", "/v1/agents/BAD/memories", ""),
			page("tok-admin", "GET", "/agents/BAD", nil), 400},
		{"an invalid agent name, writing", api("tok-admin", "POST", "/v1/agents/BAD/memories", `{"content":"Dana likes jazz."}`),
			page("tok-admin", "POST", "/memories", form("agent", "BAD", "content", "Dana likes jazz.")), 400},
		{"an agent not on the list", api("tok-admin", "GET", "/v1/agents/ghost/memories", ""),
			page("tok-admin", "GET", "/agents/ghost", nil), 404},
		{"an agent not on the list, writing", api("tok-admin", "POST", "/v1/agents/ghost/memories", `{"content":"Dana likes jazz."}`),
			page("tok-admin", "POST", "/memories", form("agent", "ghost", "content", "Dana likes jazz.")), 404},
		{"deleting an agent not on the list", api("tok-admin", "DELETE", "/v1/agents/ghost", ""),
			page("tok-admin", "POST", "/agents/ghost/delete", form("confirm", "ghost")), 404},
		{"a token of another agent, reading", api("tok-read", "GET", "/v1/agents/other/memories", ""),
			page("tok-read", "GET", "/agents/other", nil), 403},
		{"a token of another agent, writing", api("tok-main", "POST", "/v1/agents/other/memories", `{"content":"Dana likes jazz."}`),
			page("tok-main", "POST", "/memories", form("agent", "other", "content", "Dana likes jazz.")), 403},
		{"a token of another agent, deleting it", api("tok-main", "DELETE", "/v1/agents/other", ""),
			page("tok-main", "POST", "/agents/other/delete", form("confirm", "other")), 403},
		{"a read-only token forgetting", api("tok-read", "DELETE", "/v1/agents/main/memories/1", ""),
			page("tok-read", "POST", "/agents/main/memories/1/delete", form()), 403},
		{"a read-only token remembering", api("tok-read", "POST", "/v1/agents/main/memories", `{"content":"Dana likes jazz."}`),
			page("tok-read", "POST", "/memories", form("agent", "main", "content", "Dana likes jazz.")), 403},
		{"a read-only token consolidating", api("tok-read", "POST", "/v1/agents/main/consolidate", `{"dry_run":true}`),
			page("tok-read", "POST", "/agents/main/consolidate", form("dry_run", "1")), 403},
		{"a read-only token asking (a read)", api("tok-read", "POST", "/v1/agents/main/ask", `{"query":"When does the fern want water?"}`),
			page("tok-read", "POST", "/agents/main/ask", form("q", "When does the fern want water?")), 200},
		{"a bad id", api("tok-read", "GET", "/v1/agents/main/memories/x", ""),
			page("tok-read", "GET", "/agents/main/memories/x", nil), 400},
		{"no such memory", api("tok-read", "GET", "/v1/agents/main/memories/999", ""),
			page("tok-read", "GET", "/agents/main/memories/999", nil), 404},
		{"no such fact to correct", api("tok-main", "POST", "/v1/agents/main/facts/999/correct", `{"content":"Dana likes soul."}`),
			page("tok-main", "POST", "/agents/main/facts/999/correct", form("content", "Dana likes soul.")), 404},
		{"no such profile line to edit", api("tok-main", "PATCH", "/v1/agents/main/profile/999", `{"text":"Dana likes soul."}`),
			page("tok-main", "POST", "/agents/main/profile/999/edit", form("text", "Dana likes soul.")), 404},
		{"a bad recall request", api("tok-read", "POST", "/v1/agents/main/recall", `{"query":"fern","k":-1}`),
			page("tok-read", "GET", "/agents/main/search?q=fern&k=-1", nil), 400},
		{"a blank memory", api("tok-main", "POST", "/v1/agents/main/memories", `{"content":"   "}`),
			page("tok-main", "POST", "/memories", form("agent", "main", "content", "   ")), 422},
		{"a bad consolidation date", api("tok-main", "POST", "/v1/agents/main/consolidate", `{"date":"yesterday"}`),
			page("tok-main", "POST", "/agents/main/consolidate", form("date", "yesterday")), 400},
	} {
		apiStatus, apiBody := tc.api()
		pageStatus, pageBody := tc.page()
		if apiStatus != tc.want || pageStatus != tc.want {
			t.Errorf("%s: the API answered %d, the page %d; want %d from both\nAPI: %s\npage: %.300s",
				tc.name, apiStatus, pageStatus, tc.want, apiBody, pageBody)
		}
	}
}
