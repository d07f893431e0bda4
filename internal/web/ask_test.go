package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/llm"
)

// TestAskShowsTheCitedAnswer: the answer's citations link to what they
// cite, and the cited memories are listed.
func TestAskShowsTheCitedAnswer(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	r := f.ask("main", "What does Bob fix?")
	if r.status != http.StatusOK {
		t.Fatalf("POST ask: %d\n%s", r.status, r.body)
	}
	for _, w := range []string{`id="answer"`, "Bob fixed the login timeout on the Atlas proxy.",
		`<a class="cite" href="/agents/main/memories/2">[memory:2]</a>`, `id="cite-memory:2"`, "answered by offline"} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the answer page lacks %q", w)
		}
	}
	if strings.Contains(r.body, "No answer") {
		t.Error("an answered question is shown as abstained")
	}
}

// TestAskSaysWhenItAbstained: a question nothing stored answers says so
// in words, cites nothing and links to a search instead.
func TestAskSaysWhenItAbstained(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	r := f.ask("main", "When is Zoltan's birthday?")
	if r.status != http.StatusOK {
		t.Fatalf("POST ask: %d", r.status)
	}
	for _, w := range []string{"No answer", "Nothing stored answers this question", `href="/agents/main/search?q=When%20is%20Zoltan%27s%20birthday%3f"`} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the abstained answer lacks %q:\n%s", w, r.body)
		}
	}
	if strings.Contains(r.body, `class="cite"`) {
		t.Error("an abstained answer cites something")
	}
	if r := f.get("/agents/main/ask"); r.status != http.StatusOK || strings.Contains(r.body, `id="answer"`) {
		t.Errorf("the empty Ask page: %d, or it shows an answer", r.status)
	}
}

func TestAnswerParts(t *testing.T) {
	links := map[string]string{"memory:2": "/m/2", "fact:7": "/f/7"}
	got := answerParts("Bob fixed it [memory:2]. See [notes] and [fact:7][memory:2].", []string{"memory:2", "fact:7"}, links)
	want := []answerPart{{Text: "Bob fixed it "}, {Cite: "memory:2", Link: "/m/2"}, {Text: ". See [notes] and "},
		{Cite: "fact:7", Link: "/f/7"}, {Cite: "memory:2", Link: "/m/2"}, {Text: "."}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("answerParts =\n%v, want\n%v", got, want)
	}
	if got := answerParts("A [memory:9] uncited.", nil, nil); len(got) != 1 || got[0].Text != "A [memory:9] uncited." {
		t.Errorf("an answer without citations = %v", got)
	}
}

// TestSearchTellsTheRealScoring: a result's parts carry the page's labels,
// never the explain object's keys, and the page no longer prints a
// three-weight formula the ranker does not use.
func TestSearchTellsTheRealScoring(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	r := f.get("/agents/main/search?q=Alice+role")
	for _, w := range []string{`<dt title="how well the query&#39;s words match (BM25), against the best match: 1 for the best">Words</dt>`,
		"<dt title=\"the share of the query&#39;s words the item holds; one holding too few is not offered (recall.min_coverage)\">Words held</dt>"} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the search page lacks %q", w)
		}
	}
	for _, bad := range []string{"explain.", "by_kind", "0.60 × relevance"} {
		if strings.Contains(r.body, bad) {
			t.Errorf("the search page shows %q", bad)
		}
	}
}

// TestSearchShowsRecallsNote: when nothing matches and only the pinned
// profile comes back, the page says so in recall's words and marks the
// pinned item.
func TestSearchShowsRecallsNote(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", `{"content":"I am allergic to penicillin.","importance":0.95,"timestamp":"2026-02-09T12:00:00Z"}`)
	r := f.get("/agents/main/search?q=zebra+migrations")
	for _, w := range []string{`id="recall-note"`, "the pinned profile is offered", "allergic to penicillin",
		`<span class="badge warn">pinned</span>`, ">Pinned</dt>"} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the search page lacks %q:\n%s", w, r.body)
		}
	}
}

// TestAskAbstainsWhenOnlyThePinnedProfileCameBack: a question nothing
// matches still gets the pinned profile from recall, but the pinned
// memory does not address it, so the page says nothing answers rather
// than answering with the allergy.
func TestAskAbstainsWhenOnlyThePinnedProfileCameBack(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	f.seed("main", `{"content":"I am allergic to penicillin.","importance":0.95,"timestamp":"2026-02-03T12:00:00Z"}`)
	r := f.ask("main", "When is Zoltan's birthday?")
	if !strings.Contains(r.body, "Nothing stored answers this question") || strings.Contains(r.body, "allergic to penicillin") {
		t.Errorf("the pinned profile answers a question it does not address:\n%s", r.body)
	}
}

// TestAskIsAPostWithCSRF: a link to the Ask page fills the box and asks
// nothing, so a prefetched or crawled link spends no model call; a POST
// without the page's token is refused, again without one; the box's own
// POST asks once.
func TestAskIsAPostWithCSRF(t *testing.T) {
	calls := 0
	model := fakeModel{generate: func(llm.Request) (string, llm.Usage, error) {
		calls++
		return "Bob fixed the login timeout [memory:2].", llm.Usage{Calls: 1}, nil
	}}
	f := newFixture(t, fixtureOptions{model: model})
	f.seed("main", seedDay)
	r := f.get("/agents/main/ask?q=What+does+Bob+fix%3F")
	if r.status != http.StatusOK || !strings.Contains(r.body, `value="What does Bob fix?"`) || strings.Contains(r.body, `id="answer"`) {
		t.Errorf("GET ask?q=: %d, want the question in the box and no answer:\n%s", r.status, r.body)
	}
	if r := f.post("/agents/main/ask", url.Values{"q": {"What does Bob fix?"}}); r.status != http.StatusForbidden {
		t.Errorf("POST ask without a token: %d, want 403", r.status)
	}
	if calls != 0 {
		t.Fatalf("the model was called %d times before the box was submitted", calls)
	}
	if r := f.ask("main", "What does Bob fix?"); !strings.Contains(r.body, "answered by fake/model") || calls != 1 {
		t.Errorf("POST ask: %d model calls, page:\n%s", calls, r.body)
	}
}

// TestReadOnlyTokenMayAsk: asking reads, so a token that may only read
// the agent asks, as the API's POST /ask allows it.
func TestReadOnlyTokenMayAsk(t *testing.T) {
	k, err := auth.New([]auth.Rule{{Name: "main-reader", SHA256: auth.Hash("tok-read"), Agents: []string{"main"}},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k})
	f.seedAs("tok-admin", "main", `{"content":"The spare key is under the blue pot."}`)
	csrf := f.token("/login")
	if r := f.post("/login", url.Values{"csrf": {csrf}, "token": {"tok-read"}, "next": {"/agents/main"}}); r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", r.status)
	}
	if r := f.ask("main", "Where is the spare key?"); r.status != http.StatusOK || !strings.Contains(r.body, "blue pot") {
		t.Errorf("ask with a read-only token: %d\n%s", r.status, r.body)
	}
	csrf = f.token("/agents/main/memories/1")
	if r := f.post("/agents/main/memories/1/delete", url.Values{"csrf": {csrf}}); r.status != http.StatusForbidden {
		t.Errorf("delete with a read-only token: %d, want 403", r.status)
	}
}

// ask submits the Ask box of agent's page.
func (f *fixture) ask(agent, question string) response {
	f.t.Helper()
	csrf := f.token("/agents/" + agent + "/ask")
	return f.post("/agents/"+agent+"/ask", url.Values{"csrf": {csrf}, "q": {question}})
}

// fakeModel is an answering model whose replies a test writes.
type fakeModel struct {
	generate func(llm.Request) (string, llm.Usage, error)
}

func (m fakeModel) Generate(_ context.Context, req llm.Request) (string, llm.Usage, error) {
	return m.generate(req)
}
func (fakeModel) Provider() string { return "fake" }
func (fakeModel) Model() string    { return "model" }

// TestSearchMetersScaleToTheBestScore: scores are sums of weighted parts,
// often above 1, so the meters' full scale is the best score, not 1 (where
// every strong match showed full).
func TestSearchMetersScaleToTheBestScore(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	r := f.get("/agents/main/search?q=Alice+role")
	m := regexp.MustCompile(`<meter min="0" max="([0-9.]+)" value="([0-9.]+)">`).FindAllStringSubmatch(r.body, -1)
	if len(m) == 0 {
		t.Fatalf("no meters:\n%s", r.body)
	}
	top, _ := strconv.ParseFloat(m[0][2], 64)
	if top <= 1 {
		t.Fatalf("the best score is %v: the fixture wants one above 1 to test the scale", top)
	}
	for _, x := range m {
		if x[1] != m[0][2] {
			t.Errorf("a meter's scale is %s, want the best score %s", x[1], m[0][2])
		}
	}
}

// TestSearchLabelsGrantedItemsByAgent: a search on a reader's page offers
// a granted agent's memory cited by that agent and linked to its page.
func TestSearchLabelsGrantedItemsByAgent(t *testing.T) {
	f := newFixture(t, fixtureOptions{reads: map[string][]string{"home": {"household"}}})
	f.seed("home", `{"content":"Turn the porch light on at dusk.","timestamp":"2026-02-09T12:00:00Z"}`)
	f.seed("household", `{"content":"Keep the heating at 15 degrees while we are away.","timestamp":"2026-02-09T12:00:00Z"}`)
	r := f.get("/agents/home/search?q=heating")
	for _, w := range []string{"household/memory:1", `href="/agents/household/memories/1"`, "heating at 15 degrees"} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the search page lacks %q:\n%s", w, r.body)
		}
	}
}

// TestAskAndSearchNameTheGrantedAgentsLeftOut: a granted agent that does
// not exist is named in a note on the ask and search pages alike.
func TestAskAndSearchNameTheGrantedAgentsLeftOut(t *testing.T) {
	f := newFixture(t, fixtureOptions{reads: map[string][]string{"home": {"garage"}}})
	f.seed("home", `{"content":"The spare key is under the blue pot.","timestamp":"2026-02-09T12:00:00Z"}`)
	want := `granted agent(s) &#34;garage&#34; left out: no such agent`
	if r := f.ask("home", "Where is the spare key?"); !strings.Contains(r.body, `id="ask-note"`) || !strings.Contains(r.body, want) {
		t.Errorf("the ask page does not name the agent left out (%q):\n%s", want, r.body)
	}
	if r := f.get("/agents/home/search?q=spare+key"); !strings.Contains(r.body, `id="recall-note"`) || !strings.Contains(r.body, want) {
		t.Errorf("the search page does not name the agent left out (%q):\n%s", want, r.body)
	}
}
