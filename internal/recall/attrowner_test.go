package recall

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The thing an attribute is of, read around the attribute's word.
func TestAttrOwner(t *testing.T) {
	for _, tc := range []struct {
		s, attr string
		want    []string
	}{
		{"The code for the key safe by the back door is 4719.", "code", []string{"key", "safe"}},
		{"What's the code for Gran's key safe?", "code", []string{"key", "safe"}},
		{"The code for our garage door keypad is 4471.", "code", []string{"garage", "door", "keypad"}},
		{"The washing machine's warranty runs out in 2027.", "warranty", []string{"washing", "machine"}},
		{"The warranty on the tumble dryer is two years.", "warranty", []string{"tumble", "dryer"}},
		{"What's the code for Auntie Pam's burglar alarm?", "code", []string{"burglar", "alarm"}},
		{"Our garage door code is 9012.", "code", []string{"garage", "door"}},
		{"Our shed alarm code is 9012.", "code", nil}, // "shed", no noun WordNet knows, ends the phrase unopened
		{"The code is 9012.", "code", nil},
		{"The warranty on Dad's Bosch runs out soon.", "warranty", nil}, // a name, not a thing's noun
	} {
		fs := strings.Fields(tc.s)
		i := slices.IndexFunc(fs, func(f string) bool { return strings.ToLower(bare(f)) == tc.attr })
		if got := attrOwner(fs, i); !slices.Equal(got, tc.want) {
			t.Errorf("attrOwner(%q, %q) = %q, want %q", tc.s, tc.attr, got, tc.want)
		}
	}
}

// Asked an attribute of one thing, a text giving it of another thing
// (however many words either is named by) answers nothing; the thing's
// own, in other words or another shape, still does.
func TestAnotherThingsAttrAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "a", role: "user", content: "The code for the side gate padlock is 3361."},
		{at: day0.Add(time.Hour), session: "b", role: "user", content: "The microwave came with a two-year warranty, until May 2027."},
		{at: day0.Add(2 * time.Hour), session: "c", role: "user", content: "The code for the bike lock is 0415."},
		{at: day0.Add(3 * time.Hour), session: "d", role: "user", content: "Went round to Auntie Pam's for Sunday lunch."},
	})
	asOf := day0.Add(72 * time.Hour)
	for _, q := range []string{
		"What's the code for the shed alarm?",
		"Is the fridge freezer still under warranty?",
		"What's the code for the front door key box?",
	} {
		expectNothingFound(t, a, Query{Text: q, AsOf: asOf})
	}
	expectContext(t, a, Query{Text: "What's the code for the padlock on the side gate?", AsOf: asOf}, []string{"3361"}, nil)
	expectContext(t, a, Query{Text: "Is the microwave still under warranty?", AsOf: asOf}, []string{"May 2027"}, nil)
	expectContext(t, a, Query{Text: "What's the bike lock code?", AsOf: asOf}, []string{"0415"}, nil)
	b := agentWith(t, []turn{
		{at: day0, session: "a", role: "user", content: "Auntie Pam's alarm code is 7788, she asked us to water the plants."},
		{at: day0.Add(time.Hour), session: "b", role: "user", content: "The code for the side gate padlock is 3361."},
	})
	expectContext(t, b, Query{Text: "What's the code for Auntie Pam's burglar alarm?", AsOf: asOf}, []string{"7788"}, nil)
	expectContext(t, b, Query{Text: "What's the alarm code at Auntie Pam's?", AsOf: asOf}, []string{"7788"}, nil)
}
