package recall

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// agentsWith opens one store with an agent per name holding its texts, a
// day apart, newest last.
func agentsWith(t *testing.T, texts map[string][]string) map[string]*store.Agent {
	t.Helper()
	st := testStore(t)
	out := map[string]*store.Agent{}
	for name, list := range texts {
		mems := make([]store.Memory, len(list))
		for i, s := range list {
			mems[i] = store.Memory{Content: s, Timestamp: now.Add(-time.Duration(len(list)-i) * 24 * time.Hour),
				Importance: 0.5, ContentHash: fmt.Sprint(name, i)}
		}
		out[name] = agentIn(t, st, name, mems)
	}
	return out
}

func TestRecallFromCitesGrantedItemsByAgent(t *testing.T) {
	a := agentsWith(t, map[string][]string{
		"home":      {"The porch light is on a timer until midnight"},
		"household": {"We are away until Sunday, keep the heating at 15 degrees", "The bins go out on Tuesday night"},
	})
	e := &Engine{Now: func() time.Time { return now }}
	res, err := e.RecallFrom(t.Context(), []Source{{Searcher: a["home"]}, {Agent: "household", Searcher: a["household"]}},
		Query{Text: "what should the heating be kept at?"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) == 0 {
		t.Fatalf("found %v, items %v: want the household's heating", res.Found, ids(res.Items))
	}
	first := res.Items[0]
	if first.ID != "household/memory:1" || first.Agent != "household" || !strings.Contains(first.Text, "heating") {
		t.Errorf("first item %+v, want household/memory:1 about the heating", first)
	}
	if !strings.HasPrefix(res.Context, "[household/memory:1] ") {
		t.Errorf("context %q, want it to cite household/memory:1 first", res.Context)
	}
	for _, it := range res.Items {
		if strings.Contains(it.Text, "porch") {
			t.Errorf("the reader's porch light (no word of the question) was offered: %v", ids(res.Items))
		}
	}
}

func TestRecallFromOwnItemWinsATie(t *testing.T) {
	same := "The wifi password is on the router label"
	a := agentsWith(t, map[string][]string{
		"home":      {"The wifi password is the dog's name backwards"},
		"household": {same},
	})
	e := &Engine{Now: func() time.Time { return now }}
	srcs := []Source{{Searcher: a["home"]}, {Agent: "household", Searcher: a["household"]}}
	res, err := e.RecallFrom(t.Context(), srcs, Query{Text: "what is the wifi password?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Items); len(got) < 2 || got[0] != "memory:1" || got[1] != "household/memory:1" {
		t.Errorf("items %v, want the reader's own memory:1, then household/memory:1", got)
	}
}

func TestRecallFromFloorHoldsPerAgent(t *testing.T) {
	a := agentsWith(t, map[string][]string{
		"home":      {"Feed the cat at seven"},
		"household": {"The boiler service is booked for March"},
	})
	e := &Engine{Now: func() time.Time { return now }}
	srcs := []Source{{Searcher: a["home"]}, {Agent: "household", Searcher: a["household"]}}
	res, err := e.RecallFrom(t.Context(), srcs, Query{Text: "when do I feed the cat?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Items); !res.Found || len(got) != 1 || got[0] != "memory:1" {
		t.Errorf("found %v, items %v: want only the reader's memory:1 (the household fails its floor)", res.Found, got)
	}
	res, err = e.RecallFrom(t.Context(), srcs, Query{Text: "quantum chromodynamics lecture"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || len(res.Items) != 0 || res.Note != noMatch {
		t.Errorf("found %v, items %v, note %q: want nothing found and the reader's note", res.Found, ids(res.Items), res.Note)
	}
}

func TestRecallFromKeepsOneBudgetAndK(t *testing.T) {
	var mine, theirs []string
	for i := range 8 {
		mine = append(mine, fmt.Sprintf("Bin day note %d: the green bin goes out for garden waste", i))
		theirs = append(theirs, fmt.Sprintf("Household bin rota %d: the blue bin goes out for paper", i))
	}
	a := agentsWith(t, map[string][]string{"home": mine, "household": theirs, "team": theirs})
	e := &Engine{Now: func() time.Time { return now }}
	srcs := []Source{{Searcher: a["home"]}, {Agent: "household", Searcher: a["household"]}, {Agent: "team", Searcher: a["team"]}}
	res, err := e.RecallFrom(t.Context(), srcs, Query{Text: "which bin goes out?", K: 5, BudgetTokens: 80})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 || len(res.Items) > 5 || res.Tokens > 80 {
		t.Errorf("%d items, %d tokens: want 1 to 5 items within 80 tokens", len(res.Items), res.Tokens)
	}
	agents := map[string]bool{}
	for _, it := range res.Items {
		agents[it.Agent] = true
	}
	if !agents[""] || !agents["household"] {
		t.Errorf("items %v: want the reader's and the household's in one ranking", ids(res.Items))
	}
}

func TestSplitCite(t *testing.T) {
	for _, c := range []struct{ agent, id string }{{"", "memory:12"}, {"household", "fact:3"}} {
		if a, id := SplitCite(Cite(c.agent, c.id)); a != c.agent || id != c.id {
			t.Errorf("SplitCite(Cite(%q, %q)) = %q, %q", c.agent, c.id, a, id)
		}
	}
}

// TestParseID: an id within one file is a kind and a positive number.
func TestParseID(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind string
		n    int64
		ok   bool
	}{
		{"memory:12", "memory", 12, true}, {"fact:3", "fact", 3, true},
		{"memory:0", "memory", 0, false}, {"memory:-4", "memory", -4, false}, {"memory:x", "memory", 0, false}, {"12", "", 0, false},
	} {
		if kind, n, ok := ParseID(c.in); kind != c.kind || n != c.n || ok != c.ok {
			t.Errorf("ParseID(%q) = %q, %d, %v; want %q, %d, %v", c.in, kind, n, ok, c.kind, c.n, c.ok)
		}
	}
}

// TestRecallFromCountsNoUseInAGrantedAgent: a reader offered a granted
// agent's fact writes nothing into that agent's file.
func TestRecallFromCountsNoUseInAGrantedAgent(t *testing.T) {
	a := agentsWith(t, map[string][]string{"home": {"Feed the cat at seven"}, "household": {"Bob took up pottery"}})
	ctx := t.Context()
	if _, err := a["household"].AddFact(ctx, store.Fact{Entity: "Bob", Attribute: "hobby", Content: "Bob makes pottery bowls",
		Confidence: 0.8, ValidFrom: now.Add(-48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Now: func() time.Time { return now }, CountUse: true}
	res, err := e.RecallFrom(ctx, []Source{{Searcher: a["home"]}, {Agent: "household", Searcher: a["household"]}},
		Query{Text: "what does Bob make in pottery?"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(ids(res.Items), " "), "household/fact:1") {
		t.Fatalf("items %v, want household/fact:1", ids(res.Items))
	}
	fs, err := a["household"].Facts(ctx, store.FactFilter{Entity: "Bob"})
	if err != nil || len(fs) != 1 || fs[0].AccessCount != 0 {
		t.Errorf("household's facts %+v (%v): want one, its access_count 0", fs, err)
	}
}
