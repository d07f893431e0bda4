package recall

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPurposeWords(t *testing.T) {
	for q, want := range map[string]string{
		"Have I got any illnesses I need to declare on the gym sign-up sheet?": "i need to declare on the gym sign up sheet",
		"What's my sort code so I can set up the standing order?":              "i can set up the standing order",
		"What's our postcode so that we can tell the courier?":                 "we can tell the courier",
		// at the start, or after a function word, it is the question itself
		"What should I list on the form?":         "",
		"Do I need to renew my passport?":         "",
		"What did Caroline say she should bring?": "",
	} {
		if got := strings.Join(purposeWords(q), " "); got != want {
			t.Errorf("purposeWords(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestPurposeClauseLeavesTheAskedThing: the words of why the user asks do
// not hold the answer under the floor; asked without the clause's reason,
// the same words still count.
func TestPurposeClauseLeavesTheAskedThing(t *testing.T) {
	day0 := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "The clinic diagnosed coeliac disease after the biopsy."},
		{at: day0.Add(time.Hour), session: "s2", role: "user", content: "The loft hatch sticks in the damp."},
		{at: day0.Add(2 * time.Hour), session: "s3", role: "user", content: "Repainted the garden bench sage green."},
	})
	for _, q := range []string{
		"Have I got any illnesses I need to declare on the gym sign-up sheet for the new leisure centre?",
		"Have I got any illnesses I must mention to the school nurse at the parents evening?",
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: q, AsOf: day0.Add(48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || !strings.Contains(res.Context, "coeliac") {
			t.Errorf("%q: found=%v context=%q; want the diagnosis", q, res.Found, res.Context)
		}
	}
	if !slices.Equal(purposeWords("Have I got any illnesses the gym sign-up sheet asks about?"), nil) {
		t.Error("no purpose clause read where none is")
	}
}
