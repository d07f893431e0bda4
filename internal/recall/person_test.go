package recall

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// notesWithDay stores each note as the user's, with the names capture
// finds in it, and the day's record: summary, or all the notes for "".
func notesWithDay(t *testing.T, day time.Time, summary string, notes ...string) *store.Agent {
	t.Helper()
	var turns []turn
	var ids []int64
	for i, n := range notes {
		turns = append(turns, turn{day.Add(time.Duration(i) * 10 * time.Minute), "s", "user", n, capture.Names(n)})
		ids = append(ids, int64(i+1))
	}
	a := agentWith(t, turns)
	if summary == "" {
		summary = strings.Join(notes, " ")
	}
	rec := store.Consolidation{Date: day.Format(time.DateOnly), Summary: summary, SourceIDs: ids}
	if _, err := a.PutConsolidation(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	return a
}

var offerDay = time.Date(2026, 3, 3, 10, 0, 0, 0, time.UTC)

var offerNotes = []string{
	"Priya thinks the Harland offer undervalues us; she won't sign for less than 1.2 million.",
	"Tom thinks the Harland offer is fair: 850k upfront plus a 300k earn-out.",
	"Tom sent his spreadsheet over. He wants the earn-out tied to revenue.",
}

// A question about one person is not answered by what is about another,
// through a note that shares its words or through the shared day record:
// the record is offered by the asked person's sentences only. A name
// after "the" ("the Harland offer") names a thing, not a person asked
// about; a sentence's "he" is whom the sentence before names; a name
// opening a sentence is one when it is one elsewhere ("Tom sent").
func TestPersonPrecision(t *testing.T) {
	a := notesWithDay(t, offerDay, "", offerNotes...)
	asOf := offerDay.AddDate(0, 0, 2)
	for _, c := range []struct {
		q           string
		want, never []string
	}{
		{"What did Priya think of the offer?", []string{"undervalues"}, []string{"850k", "earn-out", "spreadsheet"}},
		{"What did Priya think of the Harland offer?", []string{"undervalues"}, []string{"850k", "earn-out", "spreadsheet"}},
		{"What does Tom think of the offer?", []string{"850k"}, []string{"undervalues"}},
		// Nobody named: everything that matches.
		{"What do we think of the offer?", []string{"undervalues", "850k"}, nil},
	} {
		expectContext(t, a, Query{Text: c.q, AsOf: asOf}, c.want, c.never)
	}
}

// What is about someone else is offered when nothing else answers.
func TestPersonPrecisionKeepsTheOnlyAnswer(t *testing.T) {
	a := notesWithDay(t, offerDay, "", "Ana is away until Friday.", "Tom's figures for the van came to 850k.")
	e := &Engine{Tuning: TuningWith(0.5)} // Ana's note holds a third of the words: below the floor
	res, err := e.Recall(t.Context(), a, Query{Text: "What were Ana's figures for the van?", AsOf: offerDay.AddDate(0, 0, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || !strings.Contains(res.Context, "850k") {
		t.Errorf("found %v; the only answer is Tom's and should be offered:\n%s", res.Found, res.Context)
	}
}

// A day record is offered by the sentences that hold the question's
// words, with its own citation; a question that is only a date gets the
// whole record.
func TestDayRecordOfferedBySentences(t *testing.T) {
	a := notesWithDay(t, offerDay, "Went to the market for rhubarb. Rang the plumber about the boiler.",
		"Market this morning: rhubarb, eggs and a sourdough loaf.", "Plumber coming Thursday to look at the boiler.")
	asOf := offerDay.AddDate(0, 0, 2)
	record := func(q string) string {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range res.Items {
			if it.ID == "consolidation:1" {
				return it.Text
			}
		}
		t.Fatalf("%q: no day record among %v", q, ids(res.Items))
		return ""
	}
	if got := record("What did I get at the market?"); got != "Went to the market for rhubarb." {
		t.Errorf("day record offered as %q; want the market's sentence only", got)
	}
	if got := record("What did I do on March 3?"); !strings.Contains(got, "rhubarb") || !strings.Contains(got, "boiler") {
		t.Errorf("day record offered as %q for its date; want all of it", got)
	}
}

// TestTheRoleBound: a role asked with "the" ("what did the babysitter ask
// for?") is the question's subject when a memory binds it to a name: the
// aunt's request is left out. Bound to no one, "the plumber" reads no one
// out.
func TestTheRoleBound(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Our babysitter is Philomena.", nil},
		{day0.Add(time.Hour), "s2", "user", "Philomena asked for her pay a week early.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "My aunt asked to stay with us over the bank holiday.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "Gethin said the plumber asked for the boiler manual.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectContext(t, a, Query{Text: "What did the babysitter ask for?", AsOf: asOf}, []string{"pay a week early"}, []string{"bank holiday"})
	expectContext(t, a, Query{Text: "What did the plumber ask for?", AsOf: asOf}, []string{"boiler manual"}, nil)
	for q, want := range map[string]string{
		"What did the babysitter ask for?":    "@babysitter",
		"What did the au pair ask for?":       "@au-pair",
		"Is the Hoover still under warranty?": "",
		"Where is the doctor's surgery?":      "@doctor",
	} {
		if got := theRoleKey(toks(q)); got != want {
			t.Errorf("theRoleKey(%q) = %q, want %q", q, got, want)
		}
	}
	// a role of two words is one role: joined to its name, asked with "the"
	for s, want := range map[string][]binding{
		"Our au pair Wilhelmina starts in September.": {{a: "@au-pair", b: "wilhelmina"}},
		"Our dog walker, Seren, is away in May.":      {{a: "@dog-walker", b: "seren"}},
		"Ate a pair of kippers with Wilhelmina.":      nil,
	} {
		if got := bindingsIn(s); !slices.Equal(got, want) {
			t.Errorf("bindingsIn(%q) = %v, want %v", s, got, want)
		}
	}
	b := agentWith(t, []turn{
		{day0, "s1", "user", "Our au pair Wilhelmina starts in September.", nil},
		{day0.Add(time.Hour), "s2", "user", "Wilhelmina asked for Sunday evenings off.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "My sister asked to borrow the car on Sunday.", nil},
	})
	expectContext(t, b, Query{Text: "What did the au pair ask for?", AsOf: asOf}, []string{"Sunday evenings off"}, []string{"borrow the car"})
}

// TestUsersThingWithSomeone: asked of my thing with someone ("my
// inspection with my landlady", "the inspection with Salome"), what the
// user calls theirs answers, though the question asks of her; another
// person's inspection does not.
func TestUsersThingWithSomeone(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Our landlady is Salome Petrosyan, she lives in the flat downstairs.", []string{"Salome Petrosyan"}},
		{day0.Add(24 * time.Hour), "s2", "user", "Salome has moved my inspection to Friday morning.", []string{"Salome"}},
		{day0.Add(25 * time.Hour), "s3", "user", "Caspar from the letting agency wants his gas inspection done on Monday.", []string{"Caspar"}},
	})
	asOf := day0.Add(72 * time.Hour)
	for _, q := range []string{"When is my inspection with our landlady?", "When is the inspection with Salome?"} {
		expectContext(t, a, Query{Text: q, AsOf: asOf}, []string{"Friday"}, []string{"Monday"})
	}
}

// TestWithPerson: "with" before a person, not before their thing.
func TestWithPerson(t *testing.T) {
	for q, want := range map[string]bool{
		"When is the review with Henrike?":        true,
		"Where is my lunch with my sister?":       true,
		"What's wrong with my son's bike?":        false,
		"What did I do with the old car?":         false,
		"Who did I go to the quiz with on Friday": false,
	} {
		if got := withPerson(toks(q), properNames(q)); got != want {
			t.Errorf("withPerson(%q) = %v, want %v", q, got, want)
		}
	}
}
