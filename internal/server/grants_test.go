package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/gate"
)

// grantFixture serves home, which reads household and team, with tokens
// for home alone, home and household, and every agent; each agent holds
// one memory.
func grantFixture(t *testing.T, reads map[string][]string) *fixture {
	t.Helper()
	k, err := auth.New([]auth.Rule{
		{Name: "home-only", SHA256: auth.Hash("tok-home"), Agents: []string{"home"}},
		{Name: "home-house", SHA256: auth.Hash("tok-house"), Agents: []string{"home", "household"}},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true},
		{Name: "bot", SHA256: auth.Hash("tok-bot"), Agents: []string{"homebot", "household", "ghost"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{AutoCreate: true, Keyring: k, Reads: gate.NewReads(reads)})
	for agent, text := range map[string]string{
		"home":      "The porch light timer ends at midnight.",
		"household": "We are away until Sunday, keep the heating at 15 degrees.",
		"team":      "The team decided the heating budget goes to the new boiler.",
	} {
		if code, body := f.send("POST", "/v1/agents/"+agent+"/memories", "Bearer tok-admin",
			`{"content":"`+text+`","role":"user"}`); code != http.StatusCreated {
			t.Fatalf("seed %s: %d %s", agent, code, body)
		}
	}
	return f
}

func (f *fixture) recallAs(token, agent, query string) client.RecallResult {
	f.t.Helper()
	code, body := f.send("POST", "/v1/agents/"+agent+"/recall", "Bearer "+token, `{"query":"`+query+`"}`)
	if code != http.StatusOK {
		f.t.Fatalf("recall %s as %s: %d %s", agent, token, code, body)
	}
	var res client.RecallResult
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		f.t.Fatal(err)
	}
	return res
}

func cites(items []client.RecallItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

// TestGrantedItemsFollowTheTokensScope: a token reads a granted agent's
// items only when it covers that agent; the note names the others.
func TestGrantedItemsFollowTheTokensScope(t *testing.T) {
	f := grantFixture(t, map[string][]string{"home": {"household", "team"}})

	res := f.recallAs("tok-admin", "home", "what is the heating kept at?")
	if got := cites(res.Items); !slices.Contains(got, "household/memory:1") || !slices.Contains(got, "team/memory:1") {
		t.Errorf("admin: items %v, want household/memory:1 and team/memory:1", got)
	}
	if res.Note != "" || !strings.Contains(res.Context, "[household/memory:1] ") {
		t.Errorf("admin: note %q, context %q: want no note and the household cited by agent", res.Note, res.Context)
	}

	res = f.recallAs("tok-house", "home", "what is the heating kept at?")
	if got := cites(res.Items); !slices.Contains(got, "household/memory:1") || slices.Contains(got, "team/memory:1") {
		t.Errorf("home-house: items %v, want household/memory:1 and nothing of team", got)
	}
	if want := `granted agent(s) "team" left out: token "home-house" may not read them`; !strings.Contains(res.Note, want) {
		t.Errorf("home-house: note %q, want it to say %q", res.Note, want)
	}

	res = f.recallAs("tok-home", "home", "what is the heating kept at?")
	if len(res.Items) != 0 || res.Found {
		t.Errorf("home-only: found %v, items %v: want nothing of the agents it may not read", res.Found, cites(res.Items))
	}
	if !strings.Contains(res.Note, `"household", "team" left out: token "home-only"`) {
		t.Errorf("home-only: note %q, want both granted agents named", res.Note)
	}
}

// TestAskCitesGrantedItems: an answer from a granted agent's memory cites
// it by agent, and the citation is one of its context's items.
func TestAskCitesGrantedItems(t *testing.T) {
	f := grantFixture(t, map[string][]string{"home": {"household"}})
	code, body := f.send("POST", "/v1/agents/home/ask", "Bearer tok-house", `{"query":"until when are we away?"}`)
	if code != http.StatusOK {
		t.Fatalf("ask: %d %s", code, body)
	}
	var ans client.Answer
	if err := json.Unmarshal([]byte(body), &ans); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ans.Citations, "household/memory:1") || !strings.Contains(ans.Answer, "[household/memory:1]") {
		t.Errorf("answer %q citing %v, want [household/memory:1]", ans.Answer, ans.Citations)
	}
	code, body = f.send("POST", "/v1/agents/home/ask", "Bearer tok-home", `{"query":"until when are we away?"}`)
	if code != http.StatusOK || !strings.Contains(body, `left out: token \"home-only\"`) || strings.Contains(body, "household/memory") {
		t.Errorf("ask as home-only: %d %s, want no household item and a note saying why", code, body)
	}
}

// TestGrantsAreNotTransitive: home reads household, household reads team;
// home sees nothing of team's, and an agent without a grant nothing else's.
func TestGrantsAreNotTransitive(t *testing.T) {
	f := grantFixture(t, map[string][]string{"home": {"household"}, "household": {"team"}})
	if got := cites(f.recallAs("tok-admin", "home", "heating boiler budget").Items); slices.Contains(got, "team/memory:1") {
		t.Errorf("home: items %v, want nothing of team (home reads only household)", got)
	}
	if got := cites(f.recallAs("tok-admin", "household", "heating boiler budget").Items); !slices.Contains(got, "team/memory:1") {
		t.Errorf("household: items %v, want team/memory:1", got)
	}
	if got := cites(f.recallAs("tok-admin", "team", "heating kept at 15").Items); slices.ContainsFunc(got, func(c string) bool { return strings.Contains(c, "/") }) {
		t.Errorf("team (no grant): items %v, want only its own", got)
	}
}

// TestMissingGrantedAgentIsNoted: a granted agent not created yet is
// left out, and the note says so.
func TestMissingGrantedAgentIsNoted(t *testing.T) {
	f := grantFixture(t, map[string][]string{"home": {"household", "garage"}})
	res := f.recallAs("tok-admin", "home", "heating")
	if !slices.Contains(cites(res.Items), "household/memory:1") || !strings.Contains(res.Note, `"garage" left out: no such agent`) {
		t.Errorf("items %v, note %q: want the household's and a note on garage", cites(res.Items), res.Note)
	}
}

// TestReaderNeverWrittenToAnswers: a reader with grants that has stored
// nothing yet answers from the agents it reads (the configuration names
// it), with a read token; an agent with no grant that does not exist is
// still 404.
func TestReaderNeverWrittenToAnswers(t *testing.T) {
	f := grantFixture(t, map[string][]string{"homebot": {"household"}})
	if got := cites(f.recallAs("tok-bot", "homebot", "heating").Items); !slices.Contains(got, "household/memory:1") {
		t.Errorf("homebot, never written to: items %v, want household/memory:1", got)
	}
	if code, body := f.send("POST", "/v1/agents/ghost/recall", "Bearer tok-bot", `{"query":"heating"}`); code != http.StatusNotFound {
		t.Errorf("ghost, no grant and never written to: %d %s, want 404", code, body)
	}
}
