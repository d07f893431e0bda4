package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/store"
)

type turn struct {
	at      time.Time
	session string
	role    string
	content string
	ents    []string
}

func agentWith(t *testing.T, turns []turn) *store.Agent {
	t.Helper()
	mems := make([]store.Memory, len(turns))
	for i, tr := range turns {
		var ents []store.Entity
		for _, e := range tr.ents {
			ents = append(ents, store.Entity{Text: e, Type: "person"})
		}
		mems[i] = store.Memory{Content: tr.content, Timestamp: tr.at, SessionID: tr.session, Role: tr.role,
			Importance: 0.5, ContentHash: fmt.Sprint(i), Entities: ents}
	}
	return memAgent(t, mems)
}

var day0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// conversation is two friends over three days; the ranker tests below
// depend on each line.
var conversation = []turn{
	{day0, "s1", "Bob", "Hey Alice, how was the trip to the mountains?", nil},                              // 1
	{day0.Add(time.Minute), "s1", "Alice", "Wonderful, we hiked every morning and slept in a cabin.", nil}, // 2
	{day0.Add(2 * time.Minute), "s1", "Bob", "What made you start counseling, Alice?", []string{"Alice"}},  // 3
	{day0.Add(3 * time.Minute), "s1", "Alice", "My own journey through therapy; I want to help others.", nil},
	{day0.Add(24 * time.Hour), "s2", "Alice", "Bob, did you finish the pottery class?", []string{"Bob"}},                        // 5
	{day0.Add(24*time.Hour + time.Minute), "s2", "Bob", "Yes, I made a blue bowl for my mother.", nil},                          // 6
	{day0.Add(48 * time.Hour), "s3", "Bob", "I adopted a puppy named Rex yesterday.", nil},                                      // 7
	{day0.Add(48*time.Hour + time.Minute), "s3", "Alice", "Rex is adorable! Alice loves dogs, as you know.", []string{"Alice"}}, // 8
	{day0.Add(48*time.Hour + 2*time.Minute), "s3", "Bob", "The weather is lovely for a walk with the dog today.", nil},          // 9
}

func TestRankOrder(t *testing.T) {
	a := agentWith(t, conversation)
	asOf := day0.Add(72 * time.Hour)
	e := &Engine{}
	cases := []struct {
		query string
		want  []string // the leading items, in order
	}{
		// The reply to the question that matches all the words leads: it
		// shares none, but is by the speaker asked about and tells
		// rather than asks; the question follows.
		{"What motivated Alice to start counseling?", []string{"memory:4", "memory:3"}},
		// A name is who spoke, not a word to find: Alice's own turn
		// about hiking beats Bob's greeting that names her.
		{"Where did Alice go hiking?", []string{"memory:2"}},
		// A date phrase picks the day (2 March); the words rank within it:
		// Alice's two turns, her account of the trip first.
		{"what did Alice talk about on March 2", []string{"memory:2", "memory:4"}},
		// Bob's dog walk and the turn that says "dogs" match; the puppy
		// turn, which does not say "dog", comes in beside them.
		{"Does Bob have a dog?", []string{"memory:9", "memory:8", "memory:7"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			res, err := e.Recall(t.Context(), a, Query{Text: c.query, AsOf: asOf, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			got := ids(res.Items)
			if len(got) > len(c.want) {
				got = got[:len(c.want)]
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				b, _ := json.MarshalIndent(res.Items, "", " ")
				t.Errorf("order (-want +got):\n%s\n%s", diff, b)
			}
			if !res.Found {
				t.Errorf("Found = false, want true")
			}
		})
	}
}

// The explanation adds up: its parts, weighed by DefaultTuning here rather
// than by the ranker's own sum, give the item's score, for a question with
// words, one whose date is all it says and one with no words at all.
func TestExplainAddsUp(t *testing.T) {
	a := agentWith(t, conversation)
	e := &Engine{}
	w := DefaultTuning
	withWords := func(x Explain) float64 {
		lex := max(w.Relevance*x.Relevance+w.Expansion*x.Expansion+w.Kind*x.ByKind, w.Neighbour*x.Neighbour)
		return lex + w.Informative*x.Informative + w.Context*x.Context + w.Coverage*x.Coverage +
			w.Importance*x.Importance + w.Use*x.Use + w.Recency*x.Recency + w.Speaker*x.Speaker +
			w.Entity*x.Entity + w.InRange*x.InRange + w.DayRecord*x.DayRecord + w.Semantic*x.Semantic + w.Asking*x.Asks
	}
	dateOnly := func(x Explain) float64 {
		return w.InRange*x.InRange + w.DateImportance*x.Importance + w.DateRecency*x.Recency + w.Entity*x.Entity
	}
	wordless := func(x Explain) float64 { return w.WordlessImportance*x.Importance + w.WordlessRecency*x.Recency }
	cases := []struct {
		query string
		sum   func(Explain) float64
	}{
		{"pottery bowl", withWords},
		{"what did Alice talk about on March 2", withWords},
		{"what happened on March 3", withWords}, // "happened" is a word to search
		{"on March 3", dateOnly},
		{"", wordless},
	}
	for _, c := range cases {
		res, err := e.Recall(t.Context(), a, Query{Text: c.query, AsOf: day0.Add(72 * time.Hour), Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) == 0 {
			t.Fatalf("%q: no items", c.query)
		}
		for _, it := range res.Items {
			if it.Explain == nil {
				t.Fatalf("%q: %s: no explain", c.query, it.ID)
			}
			if it.Explain.Total != it.Score {
				t.Errorf("%q: %s: explain total %v, score %v", c.query, it.ID, it.Explain.Total, it.Score)
			}
			if it.Explain.Pinned {
				continue
			}
			// Each part is rounded to 4 places: the sum may be off by their
			// rounding, weighed.
			if sum := c.sum(*it.Explain); math.Abs(sum-it.Score) > 5e-4 || it.Score <= 0 {
				t.Errorf("%q: %s: parts %+v weigh %.4f, score %v", c.query, it.ID, *it.Explain, sum, it.Score)
			}
		}
	}
	res, err := e.Recall(t.Context(), a, Query{Text: "pottery bowl", AsOf: day0.Add(72 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Explain != nil {
			t.Errorf("%s: explain without asking", it.ID)
		}
	}
}

func TestPrecisionFloor(t *testing.T) {
	a := agentWith(t, conversation)
	e := &Engine{}
	for _, q := range []string{"What is my blood type?", "quantum chromodynamics lecture notes", "What did Carol cook in July 2020?"} {
		res, err := e.Recall(t.Context(), a, Query{Text: q, AsOf: day0.Add(72 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found || len(res.Items) != 0 || res.Note == "" {
			t.Errorf("%q: found=%v items=%v note=%q; want nothing, with a note", q, res.Found, ids(res.Items), res.Note)
		}
	}
	// The floor is configurable: off, the best bad match comes back.
	off := &Engine{Tuning: TuningWith(0)}
	res, err := off.Recall(t.Context(), a, Query{Text: "What is my blood type walk?", AsOf: day0.Add(72 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 {
		t.Error("with the floor off, a partial match should be offered")
	}
}

func TestFilters(t *testing.T) {
	a := agentWith(t, conversation)
	e := &Engine{}
	asOf := day0.Add(72 * time.Hour)
	res, err := e.Recall(t.Context(), a, Query{Text: "Rex puppy dog walk", AsOf: asOf, Role: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 {
		t.Fatal("no items")
	}
	for _, it := range res.Items {
		if it.Kind == "memory" && it.Role != "Bob" {
			t.Errorf("role filter: %s by %q", it.ID, it.Role)
		}
	}
	res, err = e.Recall(t.Context(), a, Query{Text: "Rex adorable dogs", AsOf: asOf, Entity: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"memory:8"}, ids(res.Items)); diff != "" {
		t.Errorf("entity filter (-want +got):\n%s", diff)
	}
}

func TestDateQuestion(t *testing.T) {
	a := agentWith(t, conversation)
	e := &Engine{}
	res, err := e.Recall(t.Context(), a, Query{Text: "what happened yesterday?", AsOf: day0.Add(49 * time.Hour), K: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Yesterday is 3 March: session s2 only.
	if len(res.Items) == 0 {
		t.Fatal("nothing recalled for yesterday")
	}
	for _, it := range res.Items {
		if it.Kind == "memory" && it.SessionID != "s2" {
			t.Errorf("%s (%s) is not from yesterday", it.ID, it.Timestamp)
		}
	}
}

func TestStaleValuesLeftOut(t *testing.T) {
	turns := []turn{
		{time.Date(2026, 3, 2, 10, 15, 0, 0, time.UTC), "s1", "user", "Met with Alice today. Q3 budget is approved, $2.4M.", nil},
		{time.Date(2026, 3, 2, 10, 16, 0, 0, time.UTC), "s1", "assistant", "Noted: Q3 budget approved at $2.4M, per Alice.", nil},
		{time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC), "s2", "user", "Correction from finance: the Q3 budget is $2.1M, not $2.4M.", nil},
	}
	a := agentWith(t, turns)
	e := &Engine{}
	res, err := e.Recall(t.Context(), a, Query{Text: "What is the Q3 budget?", AsOf: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Context, "2.1M") || strings.Contains(res.Context, "2.4M") {
		t.Errorf("context must hold 2.1M and not 2.4M:\n%s", res.Context)
	}
	if len(res.Items) == 0 || res.Items[0].ID != "memory:3" {
		t.Errorf("the correction should lead: %v", ids(res.Items))
	}
	// Before the correction, the old value is current and is offered.
	res, err = e.Recall(t.Context(), a, Query{Text: "What is the Q3 budget?", AsOf: time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Context, "2.4M") {
		t.Errorf("as of 5 March the budget was $2.4M:\n%s", res.Context)
	}
}

func TestStaleFactValuesLeftOut(t *testing.T) {
	turns := []turn{
		{time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), "s1", "user", "Alice's role is team lead of platform.", nil},
		{time.Date(2026, 2, 5, 9, 0, 0, 0, time.UTC), "s2", "user", "Alice got promoted: she is director of engineering now.", nil},
	}
	a := agentWith(t, turns)
	for _, f := range []store.Fact{
		{Entity: "Alice", Attribute: "role", Value: "team lead", Content: "Alice's role is team lead", Confidence: 0.8,
			SourceMemoryIDs: []int64{1}, ValidFrom: turns[0].at},
		{Entity: "Alice", Attribute: "role", Value: "director of engineering", Content: "Alice's role is director of engineering",
			Confidence: 0.8, SourceMemoryIDs: []int64{2}, ValidFrom: turns[1].at},
	} {
		if _, err := a.PutFact(t.Context(), f); err != nil {
			t.Fatal(err)
		}
	}
	e := &Engine{}
	res, err := e.Recall(t.Context(), a, Query{Text: "What is Alice's role?", AsOf: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Context, "director of engineering") || strings.Contains(res.Context, "team lead") {
		t.Errorf("context must hold the current role only:\n%s", res.Context)
	}
}

func TestStaleIn(t *testing.T) {
	cases := []struct {
		in, cleaned string
		stale       []string
	}{
		{"Correction from finance: the Q3 budget is $2.1M, not $2.4M.", "Correction from finance: the Q3 budget is $2.1M.", []string{"2 4m"}},
		{"The standup moved from 9:30 to 10:30.", "The standup moved to 10:30.", []string{"9 30"}},
		{"Meet at 4pm instead of 3pm", "Meet at 4pm", []string{"3pm"}},
		{"Open from 9 am on weekdays", "Open from 9 am on weekdays", nil},
		{"I am not sure about it", "I am not sure about it", nil},
	}
	for _, c := range cases {
		st, cleaned := staleIn(c.in)
		var got []string
		for _, w := range st {
			got = append(got, strings.Join(w, " "))
		}
		if cleaned != c.cleaned || !cmp.Equal(got, c.stale) {
			t.Errorf("staleIn(%q) = %q, %q; want %q, %q", c.in, got, cleaned, c.stale, c.cleaned)
		}
	}
}

func TestExpand(t *testing.T) {
	got := Expand([]string{"penicillin", "puppy"})
	for _, want := range []string{"antibiotic", "dog"} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("Expand: %q missing from %v", want, got)
		}
	}
}

// TestExpandInflections: a question's words are inflected ("cities",
// "married", "driving", "children") where the lexicon holds base forms;
// each reaches its base form's related words.
func TestExpandInflections(t *testing.T) {
	for word, want := range map[string]string{"cities": "metropolis", "married": "wed", "driving": "operate",
		"teaches": "instruct", "planned": "intend", "children": "youngster", "taught": "instruct", "dogs": "canid"} {
		if got := Expand([]string{word}); !slices.Contains(got, want) {
			t.Errorf("Expand(%q) = %v, want %q among it", word, got, want)
		}
	}
}

func TestPinnedProfile(t *testing.T) {
	a := agentWith(t, conversation)
	allergy := store.Memory{Content: "I am allergic to penicillin", Timestamp: day0.Add(-90 * 24 * time.Hour),
		SessionID: "health", Role: "user", Importance: 0.95, ContentHash: "pin"}
	if _, err := a.Insert(t.Context(), []store.Memory{allergy}); err != nil {
		t.Fatal(err)
	}
	e := &Engine{}
	res, err := e.Recall(t.Context(), a, Query{Text: "Did Bob go to the pottery class?", AsOf: day0.Add(72 * time.Hour), Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	last := res.Items[len(res.Items)-1]
	if last.Text != allergy.Content || last.Explain == nil || !last.Explain.Pinned || !strings.Contains(res.Context, "penicillin") {
		t.Errorf("the profile memory is not pinned last: %v\n%s", ids(res.Items), res.Context)
	}
	// Nothing matches the words: the profile is still offered, and Found
	// says nothing matched.
	res, err = e.Recall(t.Context(), a, Query{Text: "Is there anything I should avoid?", AsOf: day0.Add(72 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || len(res.Items) != 1 || res.Items[0].Text != allergy.Content {
		t.Errorf("found=%v items=%v; want the pinned profile only, found false", res.Found, ids(res.Items))
	}
	// Asked by kind, it is found: penicillin is a medicine.
	res, err = e.Recall(t.Context(), a, Query{Text: "Is there any medicine I should avoid?", AsOf: day0.Add(72 * time.Hour), Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) == 0 || res.Items[0].Text != allergy.Content || res.Items[0].Explain.ByKind == 0 {
		t.Errorf("found=%v items=%v; want the allergy first, found by kind", res.Found, ids(res.Items))
	}
	// A tight budget leaves it out rather than overflowing.
	res, err = e.Recall(t.Context(), a, Query{Text: "Did Bob go to the pottery class?", AsOf: day0.Add(72 * time.Hour), BudgetTokens: 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > 20 {
		t.Errorf("context of %d tokens over a budget of 20", res.Tokens)
	}
}

// A question naming only someone nothing stored names is not answered with
// another person's memory; one known name among the question's is enough to
// go on.
func TestUnknownNameAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, role: "user", content: "Alice's birthday is on 3 June, she likes orchids."},
	})
	e := &Engine{}
	asOf := day0.Add(24 * time.Hour)
	res, err := e.Recall(t.Context(), a, Query{Text: "When is Bob's birthday?", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || len(res.Items) != 0 || !strings.Contains(res.Note, `"bob"`) {
		t.Errorf("Bob's birthday: found=%v items=%v note=%q; want nothing, naming bob", res.Found, ids(res.Items), res.Note)
	}
	for _, q := range []string{"When is Alice's birthday?", "Does Alice celebrate her birthday with Bob?"} {
		res, err := e.Recall(t.Context(), a, Query{Text: q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || len(res.Items) == 0 {
			t.Errorf("%q: found=%v items=%v note=%q; want Alice's birthday", q, res.Found, ids(res.Items), res.Note)
		}
	}
}

// A speaker whom no memory's text names is known all the same: "What is
// Ann's dog called?" is answered from Ann's own turn ("Ann Lee"), while a
// name the role's first word only begins ("Annabel") or a speaker heard
// only later is not known.
func TestSpeakerIsAKnownName(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, role: "Ann Lee", content: "Yesterday I adopted a dog called Rex."},
		{at: day0.Add(48 * time.Hour), role: "Cleo", content: "My dog is called Pip."},
	})
	e := &Engine{}
	res, err := e.Recall(t.Context(), a, Query{Text: "What is Ann's dog called?", AsOf: day0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) == 0 || !strings.Contains(res.Items[0].Text, "Rex") {
		t.Errorf("Ann's dog: found=%v items=%v note=%q; want Ann's turn", res.Found, ids(res.Items), res.Note)
	}
	for _, q := range []string{"What is Annabel's dog called?", "What is Cleo's dog called?"} {
		res, err := e.Recall(t.Context(), a, Query{Text: q, AsOf: day0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found || len(res.Items) != 0 {
			t.Errorf("%q: found=%v items=%v; want nothing (no such speaker by then)", q, res.Found, ids(res.Items))
		}
	}
}

// A question about a time is answered from that time: what was stored at
// other times is left out when anything then answers it, and "the last
// meeting with Bob" is the newest one with Bob.
func TestDatesSelect(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.DateTime, s); return tm }
	a := agentWith(t, []turn{
		{at("2026-02-03 07:00:00"), "t1", "user", "Trip to Leeds for Hannah's wedding.", nil},
		{at("2026-04-08 06:30:00"), "t2", "user", "Trip to Lisbon for the robotics conference.", nil},
		{at("2026-04-23 21:00:00"), "b1", "user", "Yesterday I went bowling with the neighbours, two strikes!", nil},
		{at("2026-06-12 12:00:00"), "t3", "user", "Trip to Oslo to see family.", nil},
		{at("2026-07-01 10:00:00"), "m1", "user", "Meeting with Bob: we agreed on Sunvolt as the supplier.", []string{"Bob"}},
		{at("2026-07-15 10:00:00"), "m2", "user", "Meeting with Bob: he approved the revised budget.", []string{"Bob"}},
		{at("2026-07-20 10:00:00"), "m3", "user", "Meeting with Carol: she wants the logo in teal.", []string{"Carol"}},
	})
	asOf := at("2026-07-22 09:00:00")
	for _, c := range []struct {
		q           string
		want, never []string
	}{
		{"What trips did I take in April?", []string{"Lisbon"}, []string{"Leeds", "Oslo"}},
		{"What trips did I take?", []string{"Lisbon", "Leeds", "Oslo"}, nil},
		{"What came out of the last meeting with Bob?", []string{"approved"}, []string{"Sunvolt", "teal"}},
		// Nothing stored in May: the date does not select, the words do.
		{"What trips did I take in May?", []string{"Lisbon"}, nil},
		// A date that bounds the question: what answers comes from the
		// right side of it, whenever that was.
		{"Which trips had I taken as of May?", []string{"Leeds", "Lisbon"}, []string{"Oslo"}},
		{"What trips did I take before June?", []string{"Leeds", "Lisbon"}, []string{"Oslo"}},
		{"What trips did I take after March?", []string{"Lisbon", "Oslo"}, []string{"Leeds"}},
		// Nothing stored on the day: what was told the day after is.
		{"What sport did I play on April 22?", []string{"bowling"}, []string{"Lisbon", "Oslo"}},
		{"What did I play on the Wednesday before April 25?", []string{"bowling"}, []string{"Lisbon", "Oslo"}},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(res.Context, w) {
				t.Errorf("%q: context lacks %q:\n%s", c.q, w, res.Context)
			}
		}
		for _, w := range c.never {
			if strings.Contains(res.Context, w) {
				t.Errorf("%q: context holds %q:\n%s", c.q, w, res.Context)
			}
		}
	}
}

// Items that say the same thing but for a number take one place.
func TestNearDuplicatesTakeOnePlace(t *testing.T) {
	turns := []turn{{day0, "s", "user", "Dana Whitfield joined as our new accountant; she handles payroll.", nil}}
	for i := range 25 {
		turns = append(turns, turn{day0.Add(time.Duration(i+1) * time.Hour), "s", "user",
			fmt.Sprintf("Forwarded receipt %d to Dana for the quarterly books.", i+1), nil})
	}
	a := agentWith(t, turns)
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "Who is Dana?", AsOf: day0.Add(48 * time.Hour), K: 5})
	if err != nil {
		t.Fatal(err)
	}
	// The introduction comes before the second receipt; the other
	// receipts fill the places left.
	intro, second := strings.Index(res.Context, "accountant"), -1
	if i := strings.Index(res.Context, "Forwarded receipt"); i >= 0 {
		if j := strings.Index(res.Context[i+1:], "Forwarded receipt"); j >= 0 {
			second = i + 1 + j
		}
	}
	if intro < 0 || second < 0 || intro > second || len(res.Items) != 5 {
		t.Errorf("want the introduction before the second receipt, 5 items:\n%s", res.Context)
	}
}

// searchRecorder is a store agent that remembers the options of each
// memory search and how many hits it gave, and the memories whose
// neighbours were asked for.
type searchRecorder struct {
	*store.Agent
	opts        []store.SearchOptions
	hits        []int
	neighboured []int64
}

func (s *searchRecorder) SearchMemories(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error) {
	h, err := s.Agent.SearchMemories(ctx, o)
	s.opts, s.hits = append(s.opts, o), append(s.hits, len(h))
	return h, err
}

func (s *searchRecorder) Neighbours(ctx context.Context, ids []int64, span int, o store.SearchOptions) ([]store.MemoryHit, error) {
	s.neighboured = append(s.neighboured, ids...)
	return s.Agent.Neighbours(ctx, ids, span, o)
}

// TestNeighboursOfTheReturnedItems: the turns around the k items to be
// returned are read, not those around the hits below them.
func TestNeighboursOfTheReturnedItems(t *testing.T) {
	var turns []turn
	for i := range 40 {
		turns = append(turns, turn{at: day0.Add(time.Duration(i) * time.Minute), role: "user", session: "s",
			content: fmt.Sprintf("Day %d of the pottery course went well.", i)})
	}
	s := &searchRecorder{Agent: agentWith(t, turns)}
	for _, k := range []int{3, 12} {
		s.neighboured = nil
		res, err := (&Engine{}).Recall(t.Context(), s, Query{Text: "pottery course", K: k, AsOf: day0.Add(48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) != k || len(s.neighboured) != k {
			t.Errorf("k %d: %d items, neighbours of %v; want %d of each", k, len(res.Items), s.neighboured, k)
		}
	}
}

// TestKindOfFindsTheQuestionAsked: asked of a speaker, "what type of" finds
// the other speaker's question in that form, whose reply answers; a note
// naming the thing says no "type", so no item must hold it.
func TestKindOfFindsTheQuestionAsked(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "Joanna", "What type of movies do you like best?", nil},
		{day0.Add(time.Minute), "s1", "Nate", "Action and sci-fi, the effects are so cool!", nil},
		{day0.Add(24 * time.Hour), "s2", "Nate", "I watched two movies with my brother, I enjoy a quiet night in.", nil},
		{day0.Add(24*time.Hour + time.Minute), "s2", "Joanna", "Movies at the drive-in are the best, I enjoy those.", nil},
		{day0.Add(48 * time.Hour), "s3", "Nate", "I enjoy long walks with the dog, you should come.", nil},
		{day0.Add(48*time.Hour + time.Minute), "s3", "Joanna", "That's kind of you, I enjoy walks too.", nil},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "What type of movies does Nate enjoy?", AsOf: day0.Add(72 * time.Hour), K: 2})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range res.Items {
		ids = append(ids, it.ID)
	}
	if !slices.Contains(ids, "memory:2") {
		t.Errorf("the reply to the question in its form is not among the first two: %v", ids)
	}
	if words, forms := askedAndFormWords("What kind of bicycle do I have?"); slices.Contains(words, "kind") || !slices.Equal(forms, []string{"kind"}) {
		t.Errorf("askedAndFormWords = %v, %v; want kind a form, not a word", words, forms)
	}
}

// TestFollowUpAnswerInherits: the answer to a question the other speaker
// asked about one of the best hits ("How was it? Anything fun?") inherits
// FollowUp of the hit's score; the same turn after a remark that asks
// nothing, or after a question by its own speaker, inherits as any
// neighbour two turns out.
func TestFollowUpAnswerInherits(t *testing.T) {
	at := func(h, m int) time.Time { return day0.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	a := agentWith(t, []turn{
		{at(0, 0), "s1", "Mia", "We went camping at the lake with the kids last weekend.", nil}, // 1
		{at(0, 1), "s1", "Leo", "Sounds great! How was it? Anything fun?", nil},
		{at(0, 2), "s1", "Mia", "We roasted marshmallows and told stories all night.", nil}, // 3: answers 2
		{at(24, 0), "s2", "Mia", "We went camping by the river with the dogs.", nil},        // 4
		{at(24, 1), "s2", "Leo", "Sounds great, the river is lovely.", nil},
		{at(24, 2), "s2", "Mia", "We grilled corn and sang songs all evening.", nil}, // 6: no question before
		{at(48, 0), "s3", "Mia", "We went camping in the hills once more.", nil},     // 7
		{at(48, 1), "s3", "Mia", "Did I tell you? Would you like to come?", nil},
		{at(48, 2), "s3", "Mia", "We picked berries and swam in a pond.", nil}, // 9: the question is her own
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "What did Mia do while camping?", AsOf: at(72, 0), Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*Explain{}
	for _, it := range res.Items {
		byID[it.ID] = it.Explain
	}
	share := DefaultTuning.FollowUp / DefaultTuning.Neighbour
	for _, c := range []struct {
		answer, hit string
		share       float64
	}{{"memory:3", "memory:1", share}, {"memory:6", "memory:4", 1}, {"memory:9", "memory:7", 1}} {
		ans, hit := byID[c.answer], byID[c.hit]
		if ans == nil || hit == nil {
			t.Fatalf("%s or %s not offered: %v", c.answer, c.hit, ids(res.Items))
		}
		if want := c.share * hit.Total; math.Abs(ans.Neighbour-want) > 1e-3 {
			t.Errorf("%s inherits %.4f of %s's %.4f, want %.4f", c.answer, ans.Neighbour, c.hit, hit.Total, want)
		}
	}
}

func TestAskingTurnSinks(t *testing.T) {
	at := func(h, m int) time.Time { return day0.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	a := agentWith(t, []turn{
		{at(0, 0), "s1", "Mia", "I signed up for a pottery class on Monday.", nil},     // 1
		{at(0, 1), "s1", "Leo", "Nice! What made you try pottery, Mia?", nil},          // 2: asks, and holds the words
		{at(0, 2), "s1", "Mia", "A friend showed me her bowls and I was hooked.", nil}, // 3: the reply answers
		{at(24, 0), "s2", "Mia", "Want to try pottery with me? I love it.", nil},       // 4: Mia's own question
		{at(24, 1), "s2", "Leo", "Sure, sounds fun.", nil},
	})
	ask := func(q string) map[string]*Explain {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: q, AsOf: at(48, 0), Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]*Explain{}
		for _, it := range res.Items {
			byID[it.ID] = it.Explain
		}
		return byID
	}
	got := ask("What made Mia try pottery?")
	leo, reply, own := got["memory:2"], got["memory:3"], got["memory:4"]
	if leo == nil || reply == nil || own == nil {
		t.Fatalf("memories 2, 3 and 4 should be offered: %v", got)
	}
	if leo.Asks != 1 || own.Asks != 0 || reply.Asks != 0 {
		t.Errorf("asks: Leo's question %v, Mia's reply %v, Mia's own question %v; want 1, 0, 0", leo.Asks, reply.Asks, own.Asks)
	}
	if told := got["memory:1"]; told == nil || leo.Total >= told.Total {
		t.Errorf("Leo's question (%.4f) should rank below what Mia told: %+v", leo.Total, told)
	}
	// The reply inherits from the question as it was before it sank.
	if want := DefaultTuning.Reply / DefaultTuning.Neighbour * (leo.Total - DefaultTuning.Asking); math.Abs(reply.Neighbour-want) > 1e-3 {
		t.Errorf("the reply inherits %.4f, want %.4f", reply.Neighbour, want)
	}
	if nobody := ask("what made someone try pottery?")["memory:2"]; nobody == nil || nobody.Asks != 0 {
		t.Errorf("asked of no speaker, Leo's question should be offered and not sink: %+v", nobody)
	}
}

func TestVoicesAreWhomItAsks(t *testing.T) {
	both := []string{"jon", "gina"}
	for _, c := range []struct {
		q             string
		names, speaks []string
		want          []string
	}{
		{"What did Jon say about Gina's store?", both, both, []string{"jon"}},
		{"What book did Gina recommend to Jon?", []string{"gina", "jon"}, []string{"gina", "jon"}, []string{"gina"}},
		{"What did Jon tell Paris about Gina?", []string{"jon", "paris", "gina"}, both, []string{"jon", "paris"}},
		{"What do Jon and Gina both have in common?", both, both, both},
		{"Who is Jon and Gina's favourite dancer?", both, both, both},
		{"Did both Jon or Gina go?", both, both, both},
		{"What did Jon say about Gina's store?", both, []string{"jon"}, both}, // Gina never speaks
	} {
		if got := voices(c.q, c.names, c.speaks); !slices.Equal(got, c.want) {
			t.Errorf("voices(%q, %v, %v) = %v, want %v", c.q, c.names, c.speaks, got, c.want)
		}
	}
	a := agentWith(t, []turn{
		{day0, "s1", "Gina", "My store finally opened downtown, Jon!", nil},
		{day0.Add(time.Minute), "s1", "Jon", "Your store looks amazing, Gina, the hard work paid off.", nil},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "What did Jon say about Gina's store?", AsOf: day0.Add(time.Hour), Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if want := map[string]float64{"memory:1": 0, "memory:2": 1}[it.ID]; it.Kind == "memory" && it.Explain.Speaker != want {
			t.Errorf("%s (%s): speaker %v, want %v", it.ID, it.Role, it.Explain.Speaker, want)
		}
	}
	if len(res.Items) == 0 || res.Items[0].ID != "memory:2" {
		t.Errorf("Jon's turn should come first: %v", ids(res.Items))
	}
}
