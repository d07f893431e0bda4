package recall

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestUnplaced: a name the text holds only after "at", "in" or "near" is a
// place; one it holds anywhere else, or as a possessive, stays a name.
func TestUnplaced(t *testing.T) {
	for _, tc := range []struct {
		s           string
		names, want []string
	}{
		{"I had my teeth cleaned at Harbourside on Monday.", []string{"Harbourside"}, nil},
		{"The jabs at Westgate Animal Hospital went fine.", []string{"Westgate Animal Hospital"}, nil},
		{"A week in Matera with Sunniva.", []string{"Matera", "Sunniva"}, []string{"Sunniva"}},
		{"Left my scarf in Priya's car.", []string{"Priya"}, []string{"Priya"}},
		{"Met Oisin at the pub; Oisin was late.", []string{"Oisin"}, []string{"Oisin"}},
		{"Dinner at Oisin, then Oisin drove us home.", []string{"Oisin"}, []string{"Oisin"}},
		{"Lunch near Holborn.", []string{"Holborn"}, nil},
		{"For parcels abroad always use Parcelforce, never the Royal Mail.", []string{"Parcelforce", "Royal Mail"}, []string{"Royal Mail"}},
		{"Booked the coach via Megabus and paid through Klarna.", []string{"Megabus", "Klarna"}, nil},
		{"We used Dervla's van; Dervla drove.", []string{"Dervla"}, []string{"Dervla"}},
		{"Her jabs at Westgate Animal Hospital.", []string{"Westgate Animal Hospital", "Westgate", "Hospital"}, nil},
		{"Westgate rang; the jabs at Westgate Animal Hospital.", []string{"Westgate Animal Hospital", "Westgate"}, []string{"Westgate"}},
	} {
		if got := unplaced(tc.names, tc.s); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("unplaced(%v, %q) = %v, want %v", tc.names, tc.s, got, tc.want)
		}
	}
}

// TestPlaceNameKeepsTheRolesMemory: asked of a role the user has ("who's
// my dentist?"), a memory naming the place it is done at, a name capture
// reads as a person, answers; a memory naming a person does not stop
// being someone else's.
func TestPlaceNameKeepsTheRolesMemory(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "I had my teeth cleaned at Kelso on Monday.", ents: []string{"Kelso"}},
		{at: day0.Add(time.Hour), session: "s2", role: "user", content: "The loft hatch sticks in damp weather."},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "Who's my dentist?", AsOf: day0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || !strings.Contains(res.Context, "Kelso") {
		t.Errorf("found=%v context=%q; want the teeth cleaned at Kelso", res.Found, res.Context)
	}
}

// TestAnotherPlaceIsNoAnswer: asked of the user's own at a named place, a
// text placing the same thing at another name is no answer; the place's
// own is, and a question of no place is answered by either.
func TestAnotherPlaceIsNoAnswer(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "We're staying at the Hotel Adornes in Bruges for three nights.", nil},
		{day0.Add(time.Hour), "s2", "user", "The loft hatch sticks in damp weather.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectNothingFound(t, a, Query{Text: "Which hotel are we staying at in Ghent?", AsOf: asOf})
	expectContext(t, a, Query{Text: "Which hotel are we staying at in Bruges?", AsOf: asOf}, []string{"Adornes"}, nil)
	expectContext(t, a, Query{Text: "Which hotel are we staying at?", AsOf: asOf}, []string{"Adornes"}, nil)
}

// TestMeansNameKeepsTheRule: asked of a role ("my aunt"), a standing rule
// naming the service the user uses, a name capture reads as a person,
// answers; the same name as someone who does something does not.
func TestMeansNameKeepsTheRule(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "When I order flowers for the family, always use Petalpost; supermarket bouquets die in a day.", ents: []string{"Petalpost"}},
		{at: day0.Add(time.Hour), session: "s2", role: "user", content: "The loft hatch sticks in damp weather."},
	})
	asOf := day0.Add(48 * time.Hour)
	expectContext(t, a, Query{Text: "My aunt's birthday is on Friday, how should I order her flowers?", AsOf: asOf}, []string{"Petalpost"}, nil)
	b := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "Petalpost always orders flowers from the market stall.", ents: []string{"Petalpost"}},
		{at: day0.Add(time.Hour), session: "s2", role: "user", content: "The loft hatch sticks in damp weather."},
	})
	expectNothingFound(t, b, Query{Text: "How does my aunt order her flowers?", AsOf: asOf})
}
