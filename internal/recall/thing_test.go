package recall

import (
	"slices"
	"testing"
	"time"
)

// The thing a question asks about: a possessor, else the user's own last
// noun phrase; only in the sentences that ask.
func TestThingOf(t *testing.T) {
	for q, want := range map[string][]string{
		"When does my bus pass expire?":                               {"bus", "pass"},
		"When does my National Trust membership expire?":              {"national", "trust", "membership"},
		"When does my gym pass run out?":                              {"gym", "pass"},
		"When is my car insurance due?":                               {"car", "insurance"},
		"When are the guinea pig's nails due a clip?":                 {"guinea", "pig"},
		"What is the name of our dog?":                                {"dog"},
		"What width strap does my Garmin need?":                       {"garmin"},
		"Is there anything I can't eat? I'm planning my birthday.":    nil,
		"Where does the dentist text reminders?":                      nil,
		"How much did the cat's jabs cost at the vet on our holiday?": {"cat"},
		"How much was the quote for the skylight?":                    {"skylight"},
		"What was the cost of the new tyres?":                         {"new", "tyres"},
		"What did they quote for the kitchen splashback?":             {"kitchen", "splashback"},
	} {
		words := askedWords(q)
		got, _ := thingOf(asking(q), func(w string) bool { return slices.Contains(words, w) && !timeWord(w) })
		if !slices.Equal(got, want) {
			t.Errorf("thingOf(%q) = %q, want %q (words %q)", q, got, want, words)
		}
	}
}

// A text holding none of the thing asked (by word, or its head by kind)
// shares only what is asked of it: recall finds nothing, when it names
// another thing of the user's own or the thing is a possessor's.
func TestLacksThingAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "a", role: "user", content: "My railway card runs out in June."},
		{at: day0.Add(time.Hour), session: "b", role: "user", content: "Our hamster Fudge's teeth need checking at the vet in May."},
		{at: day0.Add(2 * time.Hour), session: "c", role: "user", content: "Our terrier's claws get trimmed every eight weeks."},
		{at: day0.Add(3 * time.Hour), session: "d", role: "user", content: "The Ideal combi is due its annual service in October."},
	})
	asOf := day0.Add(72 * time.Hour)
	for _, q := range []string{"When does my gym pass run out?", "When do the ferret's teeth need checking?"} {
		expectNothingFound(t, a, Query{Text: q, AsOf: asOf})
	}
	expectContext(t, a, Query{Text: "When do our dog's claws get trimmed?", AsOf: asOf}, []string{"eight weeks"}, nil)
	// a quote for another job, and a diary's bare "Caravan insurance renews…", name another thing
	b := agentWith(t, []turn{
		{at: day0, session: "a", role: "user", content: "The glazier quoted £140 to replace the cracked pane."},
		{at: day0.Add(time.Hour), session: "b", role: "user", content: "Caravan insurance renews on the 3rd of May."},
		{at: day0.Add(2 * time.Hour), session: "c", role: "user", content: "The gutters overflowed onto the porch in the storm."},
	})
	for _, q := range []string{"How much was the quote for the gutters?", "What was the quote for the porch splashback?", "When does my breakdown cover renew?", "When does my pet insurance renew?"} {
		expectNothingFound(t, b, Query{Text: q, AsOf: asOf})
	}
	expectContext(t, b, Query{Text: "What did the glazier quote?", AsOf: asOf}, []string{"140"}, nil)
	expectContext(t, b, Query{Text: "When does the caravan insurance renew?", AsOf: asOf}, []string{"3rd of May"}, nil)
	// naming no other thing of the user's, a text may say the thing asked in other words
	expectContext(t, a, Query{Text: "When is my boiler service due?", AsOf: asOf}, []string{"October"}, nil)
}

// expectNothingFound fails unless recall finds nothing for q.
func expectNothingFound(t *testing.T, a Searcher, q Query) {
	t.Helper()
	res, err := (&Engine{}).Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found {
		t.Errorf("%q: found what does not answer it:\n%s", q.Text, res.Context)
	}
}

// TestNamedAttrOfAThing: asked a warranty or a code of a thing named with
// its make, a text naming the thing but no such attribute, or the
// attribute of another thing, answers nothing; the thing's own does.
func TestNamedAttrOfAThing(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Fitted the new Abus lock on my bike today, very solid.", nil},
		{day0.Add(time.Hour), "s2", "user", "The alarm code for the office is 2219.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "The Bosch dishwasher is guaranteed for five years.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "The loft hatch sticks in damp weather.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectNothingFound(t, a, Query{Text: "What's the combination for the Abus lock?", AsOf: asOf})
	expectContext(t, a, Query{Text: "What's the guarantee on the Bosch dishwasher?", AsOf: asOf}, []string{"five years"}, []string{"Abus"})
}
