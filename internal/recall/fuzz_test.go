package recall

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// fuzzLife is a short life whose words reach most of the question's
// analysis: people and roles, possessives, pets, places, dates, money,
// corrections, plans and an acronym.
var fuzzLife = []string{
	"My sister Ana's dog is called Rolo and my own cat is Pip.",
	"Actually, the plumber is coming on Thursday instead of Tuesday.",
	"I no longer drink coffee; I switched to green tea in May.",
	"My boss Dev wants the MOT booked before 3 June, it costs £54.85.",
	"We should visit the Tate Modern next time we are in London.",
	"Three weeks ago we moved the kids to the Riverside swimming club.",
	"I take the tram to work now, it's 25 minutes from Leith.",
}

// FuzzRecallQuery asks arbitrary questions of a small agent: a question
// the request refuses is a RequestError; any other answers without error,
// within its k and token budget, every item cited by an id recall parses.
func FuzzRecallQuery(f *testing.F) {
	for _, q := range []string{
		"what pets do we have?", "When is my sister's dog's vet visit?", "is the MOT due?",
		"how do I get to work?", "which museums did we see in June?", "what did I do three weeks ago",
		"Book me a flight to Tromsø", "who is Ana?", "", "   ", "\x00\xff", "'s 's my my's",
		"in 32 Marchember 99999 weeks ago", strings.Repeat("why ", 300), "£££ 54.85 $ 1e309 %",
	} {
		f.Add(q, uint16(0), uint8(0))
	}
	f.Add("coffee", uint16(5), uint8(1))
	f.Add("0", uint16(4), uint8('v')) // a budget too small for any citation
	a := fuzzAgent(f)
	e := &Engine{Now: func() time.Time { return now }}
	f.Fuzz(func(t *testing.T, question string, budget uint16, k uint8) {
		q, err := Request{Query: question, BudgetTokens: int(budget), K: int(k)}.Parse()
		var re *RequestError
		if errors.As(err, &re) {
			return
		}
		if err != nil {
			t.Fatalf("Parse(%q): %v, want a RequestError or none", question, err)
		}
		res, err := e.Recall(t.Context(), a, q)
		if err != nil {
			t.Fatalf("Recall(%q): %v", question, err)
		}
		if k > 0 && len(res.Items) > int(k) {
			t.Errorf("Recall(%q): %d items, over k %d", question, len(res.Items), k)
		}
		if budget > 0 && res.Tokens > int(budget) {
			t.Errorf("Recall(%q): %d tokens, over the budget %d", question, res.Tokens, budget)
		}
		for _, it := range res.Items {
			if _, _, ok := ParseID(it.ID); !ok || !strings.Contains(res.Context, "["+it.ID+"]") {
				t.Errorf("Recall(%q): item %q does not parse or is not cited in the context:\n%s", question, it.ID, res.Context)
			}
		}
	})
}

func fuzzAgent(f *testing.F) *store.Agent {
	mems := make([]store.Memory, len(fuzzLife))
	for i, c := range fuzzLife {
		mems[i] = store.Memory{Content: c, Role: "user", SessionID: "s", ContentHash: c,
			Timestamp: now.Add(-time.Duration(len(fuzzLife)-i) * 24 * time.Hour), Importance: 0.5}
	}
	return memAgent(f, mems)
}
