package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// seedMemory stores content in agent over the API and returns its id.
func (f *fixture) seedMemory(agent, content string) int64 {
	f.t.Helper()
	var out postMemoriesResponse
	if code := f.post("/v1/agents/"+agent+"/memories", `{"content":"`+content+`","role":"user","session_id":"s1"}`, &out); code != http.StatusCreated {
		f.t.Fatalf("seed %s: %d", agent, code)
	}
	return out.IDs[0]
}

// count is how many memories agent lists (0 for an agent that is not).
func (f *fixture) count(agent string) int {
	f.t.Helper()
	var page client.MemoryPage
	if code := f.do(http.MethodGet, "/v1/agents/"+agent+"/memories", nil, &page); code != http.StatusOK {
		return 0
	}
	return len(page.Memories)
}

// TestShareOverHTTP: a share answers 201 with the copy and its provenance,
// the copy's GET names it, a second share answers the same copy (200), and
// every bad request is refused with nothing stored.
func TestShareOverHTTP(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true, MaxBodyBytes: 256})
	id := f.seedMemory("assistant", "We are away until Sunday, keep the heating at 15.")

	var sh client.Shared
	if code := f.post("/v1/agents/assistant/memories/1/share", `{"to":"household"}`, &sh); code != http.StatusCreated {
		t.Fatalf("share: %d %+v", code, sh)
	}
	want := client.Shared{Agent: "household", ID: 1, SharedFrom: client.Provenance{Agent: "assistant", ID: id}}
	if sh != want {
		t.Errorf("share = %+v, want %+v", sh, want)
	}
	var m client.Memory
	if code := f.do(http.MethodGet, "/v1/agents/household/memories/1", nil, &m); code != http.StatusOK ||
		m.SharedFrom == nil || *m.SharedFrom != want.SharedFrom || m.SessionID != "s1" || m.Role != "user" {
		t.Errorf("GET the copy: %d %+v", code, m)
	}
	var again client.Shared
	if code := f.post("/v1/agents/assistant/memories/1/share", `{"to":"household"}`, &again); code != http.StatusOK ||
		!again.Existing || again.ID != sh.ID {
		t.Errorf("second share: %d %+v, want 200 and the existing copy", code, again)
	}

	for _, c := range []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"to itself", "/v1/agents/assistant/memories/1/share", `{"to":"assistant"}`, 400, "invalid_request"},
		{"unknown memory", "/v1/agents/assistant/memories/99/share", `{"to":"household"}`, 404, "not_found"},
		{"unknown source agent", "/v1/agents/nobody/memories/1/share", `{"to":"household"}`, 404, "unknown_agent"},
		{"bad id", "/v1/agents/assistant/memories/x/share", `{"to":"household"}`, 400, "invalid_id"},
		{"bad target name", "/v1/agents/assistant/memories/1/share", `{"to":"../Etc"}`, 400, "invalid_agent"},
		{"no target", "/v1/agents/assistant/memories/1/share", `{}`, 400, "invalid_request"},
		{"unknown field", "/v1/agents/assistant/memories/1/share", `{"to":"team","all":true}`, 400, "unknown_field"},
		{"not JSON", "/v1/agents/assistant/memories/1/share", `to=team`, 400, "invalid_json"},
		{"two values", "/v1/agents/assistant/memories/1/share", `{"to":"team"}{"to":"x"}`, 400, "invalid_json"},
		{"oversized", "/v1/agents/assistant/memories/1/share", `{"to":"team","x":"` + strings.Repeat("a", 300) + `"}`, 413, "body_too_large"},
	} {
		var e ErrorBody
		if code := f.post(c.path, c.body, &e); code != c.status || e.Error.Code != c.code {
			t.Errorf("%s: %d %+v, want %d %s", c.name, code, e, c.status, c.code)
		}
	}
	if n := f.count("team"); n != 0 {
		t.Errorf("refused shares stored %d memories in team", n)
	}
	if a, h := f.count("assistant"), f.count("household"); a != 1 || h != 1 {
		t.Errorf("after the refusals: assistant %d, household %d memories; want 1 and 1", a, h)
	}
}

// TestShareFollowsAgentCreateRule: a target that does not exist is made
// only when the server makes agents on a write.
func TestShareFollowsAgentCreateRule(t *testing.T) {
	for _, c := range []struct {
		name   string
		so     store.Options
		o      Options
		status int
	}{
		{"on write", store.Options{}, Options{AutoCreate: true}, http.StatusCreated},
		{"explicit", store.Options{ExplicitCreate: true}, Options{AutoCreate: true}, http.StatusNotFound},
		{"fixed list", store.Options{}, Options{Agents: []string{"assistant"}}, http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixtureWith(t, c.so, c.o)
			if c.so.ExplicitCreate {
				if _, err := f.store.Create(t.Context(), "assistant"); err != nil {
					t.Fatal(err)
				}
			}
			f.seedMemory("assistant", "The recycling goes out on Thursdays.")
			var e ErrorBody
			if code := f.post("/v1/agents/assistant/memories/1/share", `{"to":"household"}`, &e); code != c.status {
				t.Errorf("share to a new agent: %d %+v, want %d", code, e, c.status)
			}
		})
	}
}

// TestForgetOverHTTPReachesCopies: DELETE of the original forgets its copy
// in the other agent, and the content stored there again comes back
// flagged; DELETE of a copy leaves its original.
func TestForgetOverHTTPReachesCopies(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	f.seedMemory("assistant", "The alarm code is 2580.")
	f.seedMemory("assistant", "The plants need water on Mondays.")
	for _, id := range []string{"1", "2"} {
		if code := f.post("/v1/agents/assistant/memories/"+id+"/share", `{"to":"household"}`, nil); code != http.StatusCreated {
			t.Fatalf("share %s: %d", id, code)
		}
	}
	if code := f.do(http.MethodDelete, "/v1/agents/assistant/memories/1", nil, nil); code != http.StatusOK {
		t.Fatalf("delete the original: %d", code)
	}
	if code := f.do(http.MethodGet, "/v1/agents/household/memories/1", nil, nil); code != http.StatusNotFound {
		t.Errorf("the copy after the original's forget: %d, want 404", code)
	}
	f.seedMemory("household", "The alarm code is 2580.")
	var page client.MemoryPage
	f.do(http.MethodGet, "/v1/agents/household/memories", nil, &page)
	for _, m := range page.Memories {
		if strings.Contains(m.Content, "2580") && !m.Flagged {
			t.Errorf("the forgotten content came back unflagged in household: %+v", m)
		}
	}
	if code := f.do(http.MethodDelete, "/v1/agents/household/memories/2", nil, nil); code != http.StatusOK {
		t.Fatalf("delete the copy: %d", code)
	}
	if code := f.do(http.MethodGet, "/v1/agents/assistant/memories/2", nil, nil); code != http.StatusOK {
		t.Errorf("the original after its copy's forget: %d, want 200", code)
	}
}

// TestShareTokens: the token must read the memory's agent and write the
// target: a write token for one agent cannot share into another (403), nor
// can a read-only token; a token covering both can. A refused share makes
// no agent.
func TestShareTokens(t *testing.T) {
	k, err := auth.New([]auth.Rule{
		{Name: "assistant", SHA256: auth.Hash("tok-assistant"), Agents: []string{"assistant"}, Write: true},
		{Name: "reader", SHA256: auth.Hash("tok-reader"), Agents: []string{"*"}},
		{Name: "household", SHA256: auth.Hash("tok-household"), Agents: []string{"household"}, Write: true},
		{Name: "both", SHA256: auth.Hash("tok-both"), Agents: []string{"assistant", "household"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{AutoCreate: true, Keyring: k})
	if code, body := f.send("POST", "/v1/agents/assistant/memories", "Bearer tok-assistant", `{"content":"The gate code is 1234."}`); code != http.StatusCreated {
		t.Fatalf("seed: %d %s", code, body)
	}
	for _, c := range []struct {
		token string
		want  int
	}{
		{"tok-assistant", http.StatusForbidden}, // may write assistant, not household
		{"tok-reader", http.StatusForbidden},    // may read both, write neither
		{"tok-household", http.StatusForbidden}, // may not read assistant
		{"", http.StatusUnauthorized},
		{"tok-both", http.StatusCreated},
	} {
		authz := ""
		if c.token != "" {
			authz = "Bearer " + c.token
		}
		code, body := f.send("POST", "/v1/agents/assistant/memories/1/share", authz, `{"to":"household"}`)
		if code != c.want {
			t.Errorf("share with %q: %d %s, want %d", c.token, code, body, c.want)
		}
		if code == http.StatusForbidden && !strings.Contains(body, `"forbidden"`) {
			t.Errorf("share with %q: 403 body %s", c.token, body)
		}
		if c.want != http.StatusCreated {
			if names, _ := f.store.Agents(); len(names) != 1 {
				t.Errorf("after the refused share with %q the agents are %v", c.token, names)
			}
		}
	}
}

// TestRecallNamesTheOrigin: the copy answers in the other agent, its item
// naming the original; the agent's own memories name none.
func TestRecallNamesTheOrigin(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	f.seedMemory("assistant", "We are away until Sunday, keep the heating at 15.")
	f.seedMemory("household", "The heating engineer comes on Monday.")
	if code := f.post("/v1/agents/assistant/memories/1/share", `{"to":"household"}`, nil); code != http.StatusCreated {
		t.Fatalf("share: %d", code)
	}
	var res client.RecallResult
	if code := f.post("/v1/agents/household/recall", `{"query":"what should the heating be kept at"}`, &res); code != http.StatusOK {
		t.Fatalf("recall: %d", code)
	}
	origins := map[string]string{}
	for _, it := range res.Items {
		origins[it.Text] = it.Origin
	}
	if got := origins["We are away until Sunday, keep the heating at 15."]; got != "assistant/memory:1" {
		t.Errorf("the copy's origin = %q, want assistant/memory:1 (items %+v)", got, res.Items)
	}
	if got, ok := origins["The heating engineer comes on Monday."]; !ok || got != "" {
		t.Errorf("household's own memory: origin %q, offered %v", got, ok)
	}
}
