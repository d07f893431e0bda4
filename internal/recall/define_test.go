package recall

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestDefine(t *testing.T) {
	definitions := readList(t, "definitions.txt")
	first, _, _ := strings.Cut(definitions, " ")
	lastLine := definitions[strings.LastIndexByte(strings.TrimSuffix(definitions, "\n"), '\n')+1:]
	last, _, _ := strings.Cut(lastLine, " ")
	tests := []struct {
		word string
		want []string // among the answer; nil: no answer
	}{
		{"steakhouse", []string{"restaurant", "steak", "meat"}},
		{"Steakhouses", []string{"steak"}}, // case and plural
		{"dinner", []string{"meal"}},
		{"gym", []string{"training"}},
		{first, []string{}}, // the lexicon's first and last lines are found
		{last, []string{}},
		{"zzzzq", nil},
		{"", nil},
		{"a", nil},
	}
	for _, tt := range tests {
		got := Define(tt.word)
		if tt.want == nil {
			if got != nil {
				t.Errorf("Define(%q) = %v, want none", tt.word, got)
			}
			continue
		}
		if len(got) == 0 {
			t.Errorf("Define(%q) = none, want %v among it", tt.word, tt.want)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("Define(%q) = %v, want %q among it", tt.word, got, w)
			}
		}
	}
}

// TestDefinitionsBridgeTheGap: a question word that nothing stored holds
// reaches a memory through its definition ("steakhouse": a restaurant that
// specializes in steaks; steak is meat), while a word that memories do hold
// is not defined (its own matches are what it asks for), and a definition
// alone does not carry an item over the precision floor.
func TestDefinitionsBridgeTheGap(t *testing.T) {
	turns := []turn{{at: day0, role: "user", content: "I'm vegetarian, I haven't eaten meat in ten years."}}
	for i := range 30 {
		turns = append(turns, turn{at: day0.Add(time.Duration(i+1) * time.Hour), role: "user",
			content: "Booked meeting room " + strings.Repeat("I", i%4+1) + " for the quarterly planning."})
	}
	a := agentWith(t, turns)
	e := &Engine{}
	asOf := day0.Add(30 * 24 * time.Hour)
	res, err := e.Recall(t.Context(), a, Query{Text: "Is a steakhouse a good choice for the user's birthday dinner?", AsOf: asOf, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) == 0 || !strings.Contains(res.Items[0].Text, "vegetarian") || res.Items[0].Explain.Expansion == 0 {
		t.Fatalf("found=%v items=%v; want the vegetarian memory first, by its definition\n%s", res.Found, ids(res.Items), res.Context)
	}
	for _, it := range res.Items {
		if strings.Contains(it.Text, "meeting room") {
			t.Errorf("a meeting-room booking is offered for a dinner question: %q", it.Text)
		}
	}
	// With related words switched off the gap is not bridged: the
	// definition is what found it.
	off := &Engine{Tuning: DefaultTuning}
	off.Tuning.NoExpansion = true
	res, err = off.Recall(t.Context(), a, Query{Text: "Is a steakhouse a good choice for the user's birthday dinner?", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found {
		t.Errorf("without expansion: found=%v items=%v; want nothing found", res.Found, ids(res.Items))
	}
}

func TestCoverageDefined(t *testing.T) {
	defs := map[string][]string{"steakhouse": {"restaurant", "steak", "meat"}}
	words := []string{"steakhouse", "dinner"}
	tests := []struct {
		text string
		want float64
	}{
		{"we had dinner at the steakhouse", 1},
		{"I haven't eaten meat", 0.25}, // half of one of two words
		{"dinner without meat", 0.75},
		{"nothing in common", 0},
	}
	for _, tt := range tests {
		if got := coverageDefined(words, tt.text, defs); got != tt.want {
			t.Errorf("coverageDefined(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestGapDefinitionsOnlyForWordsNothingHolds(t *testing.T) {
	hits := []store.MemoryHit{{Hit: store.Hit{Text: "My gym is Riverside Fitness."}}}
	got := gapDefinitions([]string{"gym", "steakhouse", "zzzzq"}, hits)
	if _, ok := got["gym"]; ok {
		t.Errorf("gym is held by a hit but was defined: %v", got)
	}
	if !slices.Contains(got["steakhouse"], "steak") {
		t.Errorf("steakhouse is held by no hit and was not defined: %v", got)
	}
	if _, ok := got["zzzzq"]; ok || len(got) != 1 {
		t.Errorf("got %v; want only steakhouse", got)
	}
}

func FuzzDefine(f *testing.F) {
	for _, s := range []string{"steakhouse", "gyms", "", "\n", "a b", "zzz\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		for _, d := range Define(w) {
			if d == "" || strings.ContainsAny(d, " \n") {
				t.Fatalf("Define(%q) gave %q", w, d)
			}
		}
	})
}

// TestKindHitsCloseTheGap: a question word some memory holds by kind
// ("car": a sedan is one) is no vocabulary gap, so its definition (a motor
// vehicle; a motor is a machine) does not carry "the washing machine" over
// the floor beside the answer.
func TestKindHitsCloseTheGap(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, role: "user", content: "Bought a second-hand sedan from the garage on Mill Lane."},
		{at: day0.Add(time.Hour), role: "user", content: "The washing machine is leaking again."},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "What car do I drive?", AsOf: day0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) == 0 || !strings.Contains(res.Items[0].Text, "sedan") {
		t.Fatalf("found=%v items=%v; want the sedan first", res.Found, ids(res.Items))
	}
	for _, it := range res.Items {
		if strings.Contains(it.Text, "washing machine") {
			t.Errorf("the washing machine is offered for a question about a car: %v", ids(res.Items))
		}
	}
}

// TestRelatedKindsBridgeTheGap: a question word nothing stored holds
// ("children") reaches a memory by the kinds of its related words (kid:
// a preschool is for children), past the floor, while memories that hold
// neither stay out; with related words switched off nothing is found.
func TestRelatedKindsBridgeTheGap(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, role: "user", content: "Leo starts at the preschool on Monday, I still need name labels."},
		{at: day0.Add(time.Hour), role: "user", content: "The goat's cheese tart at the farm shop was lovely."},
		{at: day0.Add(2 * time.Hour), role: "user", content: "Council tax direct debit set up for the year."},
	})
	q := Query{Text: "Do I have children?", AsOf: day0.Add(48 * time.Hour), Explain: true}
	res, err := (&Engine{}).Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) != 1 || !strings.Contains(res.Items[0].Text, "Leo") || res.Items[0].Explain.ByKind == 0 {
		t.Fatalf("found=%v items=%v; want only the preschool memory, found by kind", res.Found, ids(res.Items))
	}
	off := &Engine{Tuning: DefaultTuning}
	off.Tuning.NoExpansion = true
	if res, err = off.Recall(t.Context(), a, q); err != nil || res.Found {
		t.Errorf("without related words: found=%v items=%v err=%v; want nothing found", res.Found, ids(res.Items), err)
	}
}

// TestLightVerbBridgesNothing: a light verb's related words are verbs'
// ("take": move), and a memory holding a thing of a kind spelt alike ("a
// jab" is a move) does not answer "what insulin do I take?".
func TestLightVerbBridgesNothing(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, role: "user", content: "Had my flu jab at the pharmacy."},
		{at: day0.Add(time.Hour), role: "user", content: "The toaster only browns one side now."},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "What insulin do I take?", AsOf: day0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found {
		t.Errorf("found %v; want nothing", ids(res.Items))
	}
}

func BenchmarkDefine(b *testing.B) {
	words := strings.Fields("steakhouse Steakhouses dinner gym restaurants zzzzq cities")
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			Define(w)
		}
	}
}

// TestRelatedWordsTakeTheirBestMatches: the related words' search makes
// candidates of its best relatedCands matches only, however many memories
// hold a related word, while the question's own words take the full
// window's best.
func TestRelatedWordsTakeTheirBestMatches(t *testing.T) {
	rel := Expand([]string{"holiday"})
	if len(rel) == 0 {
		t.Fatal("no related word of holiday")
	}
	var turns []turn
	n := coverageCands + 20
	for i := range n {
		turns = append(turns, turn{at: day0.Add(time.Duration(i) * time.Minute), role: "user",
			content: fmt.Sprintf("Note %d: a %s was mentioned.", i, rel[0])})
		turns = append(turns, turn{at: day0.Add(time.Duration(i)*time.Minute + time.Second), role: "user",
			content: fmt.Sprintf("Entry %d about the holiday plans.", i)})
	}
	s := &searchRecorder{Agent: agentWith(t, turns)}
	if _, err := (&Engine{}).Recall(t.Context(), s, Query{Text: "holiday", AsOf: day0.Add(48 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	related, own := -1, -1
	for i, o := range s.opts {
		switch {
		case !o.Kinds && slices.Contains(o.Terms, rel[0]):
			related = s.hits[i]
		case !o.Kinds && slices.Contains(o.Terms, "holiday"):
			own = s.hits[i]
		}
	}
	if own != coverageCands || related < 0 || related > relatedCands || related >= own {
		t.Errorf("the question's own words gave %d hits, the related words %d; want %d and at most %d",
			own, related, coverageCands, min(relatedCands, coverageCands-1))
	}
}
