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

// Asked of the user alone, an item opened by someone else and not the
// user's is no answer: with nothing of the user's stored, recall finds
// nothing; with the user's own stored, that is found.
func TestAnotherOpensNoAnswerOfMine(t *testing.T) {
	others := []turn{
		{at: day0, session: "a", role: "user", content: "Tariq's on amlodipine now, one tablet every morning.", ents: []string{"Tariq"}},
		{at: day0.Add(time.Hour), session: "b", role: "user", content: "Joanna's got a season ticket too, in the Kop.", ents: []string{"Joanna"}},
		{at: day0.Add(2 * time.Hour), session: "c", role: "user", content: "The loft hatch sticks in damp weather."},
	}
	for _, tc := range []struct{ q, mine, want string }{
		{"which tablet am I meant to take in the morning?", "I take one ramipril tablet every morning.", "ramipril"},
		{"Where's my season ticket?", "My season ticket is in the Main Stand, seat 40.", "main stand"},
	} {
		res, err := (&Engine{}).Recall(t.Context(), agentWith(t, others), Query{Text: tc.q, AsOf: day0.AddDate(0, 0, 3)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found {
			t.Errorf("%q with only another's stored: found %q; want nothing found", tc.q, res.Context)
		}
		mine := append(slices.Clone(others), turn{at: day0.Add(3 * time.Hour), session: "d", role: "user", content: tc.mine})
		res, err = (&Engine{}).Recall(t.Context(), agentWith(t, mine), Query{Text: tc.q, AsOf: day0.AddDate(0, 0, 3)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || !strings.Contains(strings.ToLower(res.Context), tc.want) {
			t.Errorf("%q with the user's own stored: found=%v %q; want %q", tc.q, res.Found, res.Context, tc.want)
		}
	}
}

// A thing opening a text with "'s" for "is" or "has" is no name, nor is
// the provider a thing is with.
func TestThingsAndProvidersAreNobody(t *testing.T) {
	for _, tc := range []struct {
		s, opener, provider string
		held                bool
	}{
		{"Energy's with Octopus, fixed till March.", "Energy", "Octopus", true},
		{"Boiler's gone again, the engineer comes Friday.", "Boiler", "", false},
		{"Netflix's been cancelled.", "Netflix", "", false},
		{"The car insurance is with Admiral, renews in June.", "", "Admiral", true},
		{"Kemi's with her mum this week.", "", "", false},                  // a name, not a word
		{"Bob's at the allotment.", "", "", false},                         // a first name, though a word
		{"Sister's with Jonah at the match.", "", "Jonah", false},          // a role
		{"Lunch with Beatrix at the garden centre.", "", "Beatrix", false}, // no thing is with her
		{"Jess's car is with Halfords.", "", "Halfords", true},
		{"Jess's car is with Halfords, and Halfords's van is with Ravi.", "", "Halfords", false}, // named otherwise too
	} {
		if got := thingOpener(tc.s); got != tc.opener {
			t.Errorf("thingOpener(%q) = %q; want %q", tc.s, got, tc.opener)
		}
		if tc.provider != "" && heldWith(tc.s, tc.provider) != tc.held {
			t.Errorf("heldWith(%q, %q) = %v; want %v", tc.s, tc.provider, !tc.held, tc.held)
		}
	}
}

// Asked of the user's own, a text that tells of it by a thing and its
// provider ("Energy's with Octopus") is the user's, not about two people.
func TestProviderTextIsTheUsers(t *testing.T) {
	turns := []turn{
		{at: day0, session: "a", role: "user", content: "Energy's with Octopus, the fixed deal ends in March.", ents: []string{"Energy", "Octopus"}},
		{at: day0.Add(time.Hour), session: "b", role: "user", content: "Finished a jigsaw of the Lake District, all 1000 pieces."},
		{at: day0.Add(2 * time.Hour), session: "c", role: "user", content: "The loft hatch sticks in damp weather."},
	}
	res, err := (&Engine{}).Recall(t.Context(), agentWith(t, turns), Query{Text: "when does my energy deal finish?", AsOf: day0.AddDate(0, 0, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || !strings.Contains(res.Context, "Octopus") {
		t.Errorf("found=%v %q; want the Octopus deal", res.Found, res.Context)
	}
}

// A doing "for" an employer or a cause is the user's own ("driving for
// Uber"), though a thing "for" someone is theirs ("a prescription for Dad").
func TestDoneForIsMine(t *testing.T) {
	for _, tc := range []struct{ mem, q, want string }{
		{"Delivering for Deliveroo most evenings now, about twenty hours a week.", "How many hours am I delivering?", "deliveroo"},
		{"Coaching for Tynedale on Sunday mornings, the under-nines.", "when am I coaching?", "tynedale"},
	} {
		turns := []turn{
			{at: day0, session: "a", role: "user", content: tc.mem},
			{at: day0.Add(time.Hour), session: "b", role: "user", content: "Picked up a prescription for Dad, he's on statins now.", ents: []string{"Dad"}},
			{at: day0.Add(2 * time.Hour), session: "c", role: "user", content: "The loft hatch sticks in damp weather."},
		}
		res, err := (&Engine{}).Recall(t.Context(), agentWith(t, turns), Query{Text: tc.q, AsOf: day0.AddDate(0, 0, 3)})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || !strings.Contains(strings.ToLower(res.Context), tc.want) {
			t.Errorf("%q: found=%v %q; want %q", tc.q, res.Found, res.Context, tc.want)
		}
	}
	for _, tc := range []struct {
		s    string
		i    int
		want bool
	}{
		{"Driving for Uber full time now.", 0, true},
		{"I work for Arup.", 1, true},
		{"Got a painting for Mum.", 2, false},
		{"Picked up a prescription for Dad.", 4, false},
	} {
		if got := doneFor(strings.Fields(tc.s), tc.i); got != tc.want {
			t.Errorf("doneFor(%q, %d) = %v; want %v", tc.s, tc.i, got, tc.want)
		}
	}
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

// A day record whose only sentences holding the question's words are
// someone else's is not offered by its other sentences, though its day is
// inside the range asked: "which races did I do in March?" is not answered
// by the oven cleaned the day of Hamza's race.
func TestDayRecordNotOfferedByTheRest(t *testing.T) {
	other, own := offerDay, offerDay.AddDate(0, 0, 9)
	a := agentWith(t, []turn{
		{other, "s1", "user", "Hamza did the Bath half marathon race on Sunday, well done him.", []string{"Hamza"}},
		{other.Add(time.Hour), "s2", "user", "Cleaned the oven racks with bicarb.", nil},
		{own, "s3", "user", "Did the Frome 10k race this morning, 52 minutes.", nil},
	})
	rec := store.Consolidation{Date: other.Format(time.DateOnly), SourceIDs: []int64{1, 2},
		Summary: "Hamza did the Bath half marathon race on Sunday, well done him. Cleaned the oven racks with bicarb."}
	if _, err := a.PutConsolidation(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	expectContext(t, a, Query{Text: "Which races did I do in March?", AsOf: own.AddDate(0, 1, 0)}, []string{"Frome"}, []string{"oven"})
}

// Asked of someone by name, an item that names no one and holds the
// question's words only by their kinds ("afternoons" is a time of day, as a
// shift is a period) says nothing of them: left out beside one naming them.
func TestKindOnlyIsNotTheNamedOnes(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Olamide is on earlies at the sorting depot, six till two.", []string{"Olamide"}},
		{day0.Add(time.Hour), "s2", "user", "I'm on afternoons all this month at the call centre.", nil},
		{day0.Add(2 * time.Hour), "s3", "assistant", "Reminder set: recycling goes out on Thursday night.", nil},
	})
	expectContext(t, a, Query{Text: "What shift does Olamide work?", AsOf: day0.AddDate(0, 0, 3)}, []string{"earlies"},
		[]string{"afternoons", "Thursday"})
}
