package recall

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// withProfile is the household of setup with a profile: the allergy
// (citing memory 1), a job that changed a week ago, and a dog.
func withProfile(t *testing.T) *store.Agent {
	t.Helper()
	a := setup(t)
	jan, week := now.AddDate(0, -2, 0), now.AddDate(0, 0, -7)
	put := func(at time.Time, ls ...store.ProfileLine) {
		t.Helper()
		if _, _, err := a.PutProfileLines(t.Context(), ls, at); err != nil {
			t.Fatal(err)
		}
	}
	put(jan,
		store.ProfileLine{Category: "health", Subject: "user", Key: "allergy", Value: "penicillin",
			Text: "The user is allergic to penicillin.", SourceMemoryIDs: []int64{1}, ValidFrom: jan},
		store.ProfileLine{Category: "work", Subject: "user", Key: "employer", Value: "Arup", Single: true,
			Text: "The user works at Arup as a structural engineer.", SourceMemoryIDs: []int64{9}, ValidFrom: jan}, // 9: newer than 3, so not retired by it
		store.ProfileLine{Category: "pets", Subject: "Rex", Key: "pet", Value: "Rex (labrador)",
			Text: "Rex is the user's labrador.", SourceMemoryIDs: []int64{5}, ValidFrom: jan})
	put(week, store.ProfileLine{Category: "work", Subject: "user", Key: "employer", Value: "Atkins", Single: true,
		Text: "The user works at Atkins as a bridge engineer.", SourceMemoryIDs: []int64{3}, ValidFrom: week})
	return a
}

func profileIDs(items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Kind == "profile" {
			out = append(out, it.Text)
		}
	}
	return out
}

// TestProfileAnswersAParaphrase: a question sharing no word with what is
// stored gets the profile line that shares its concept, first, as a
// profile item, and found says it was answered.
func TestProfileAnswersAParaphrase(t *testing.T) {
	a := withProfile(t)
	e := &Engine{Now: func() time.Time { return now }}
	for _, tc := range []struct{ q, want string }{
		{"Is there any medicine I should stay away from?", "penicillin"}, // penicillin is a medicine
		{"What do I do for a living?", "Atkins"},                         // work
		{"Do we have any animals at home?", "labrador"},                  // a pet is an animal
	} {
		res, err := e.Recall(t.Context(), a, Query{Text: tc.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Items) == 0 || res.Items[0].Kind != "profile" || !strings.HasPrefix(res.Items[0].ID, "profile:") ||
			!strings.Contains(res.Items[0].Text, tc.want) || !res.Found {
			t.Errorf("%q: found %v, items %v: want the profile line about %s first, found", tc.q, res.Found, res.Items, tc.want)
		}
		if !strings.Contains(res.Context, "["+res.Items[0].ID+"] ") {
			t.Errorf("%q: context %q does not cite the line", tc.q, res.Context)
		}
	}
}

// TestProfileOnlyWhatSharesAConcept: lines about other things are not
// offered, and the profile does not make found true for a question it
// does not address.
func TestProfileOnlyWhatSharesAConcept(t *testing.T) {
	a := withProfile(t)
	e := &Engine{Now: func() time.Time { return now }}
	res, err := e.Recall(t.Context(), a, Query{Text: "When is the garden sprinkler on?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := profileIDs(res.Items); len(got) != 0 {
		t.Errorf("sprinkler question offered profile lines %q", got)
	}
	// A line holding one of six words does not address the question, as a
	// memory would not pass the precision floor.
	res, err = e.Recall(t.Context(), a, Query{Text: "Which shop sold the dog's lead, harness and collar?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := profileIDs(res.Items); len(got) != 0 {
		t.Errorf("a question about the dog's gear offered profile lines %q", got)
	}
	res, err = e.Recall(t.Context(), a, Query{Text: "zebra crossings in Lisbon"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || len(profileIDs(res.Items)) != 0 {
		t.Errorf("unrelated question: found %v, items %v; want not found and no profile line", res.Found, res.Items)
	}
}

// TestProfileAsOf: a question as of the past sees the profile as it was.
func TestProfileAsOf(t *testing.T) {
	a := withProfile(t)
	e := &Engine{Now: func() time.Time { return now }}
	res, err := e.Recall(t.Context(), a, Query{Text: "Where is my job?", AsOf: now.AddDate(0, 0, -14)})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(profileIDs(res.Items), " "); !strings.Contains(got, "Arup") || strings.Contains(got, "Atkins") {
		t.Errorf("job as of two weeks ago: profile lines %q, want Arup's alone", got)
	}
}

// TestProfileLeftOutByMemoryFilters: a role, source, entity or session
// filter asks for memories only, so profile lines are left out as facts
// are.
func TestProfileLeftOutByMemoryFilters(t *testing.T) {
	a := withProfile(t)
	e := &Engine{Now: func() time.Time { return now }}
	for _, q := range []Query{
		{Text: "medicine allergy", Session: "health"},
		{Text: "medicine allergy", Role: "user"},
		{Text: "medicine allergy", Source: "chat"},
		{Text: "medicine allergy", Entity: "Bob"},
	} {
		res, err := e.Recall(t.Context(), a, q)
		if err != nil {
			t.Fatal(err)
		}
		if got := profileIDs(res.Items); len(got) != 0 {
			t.Errorf("%+v offered profile lines %q", q, got)
		}
	}
}

// TestProfileTokensBoundAndOff: the lines take at most ProfileTokens; 0
// turns the profile off, the pinned memories with it, since they are one
// profile.
func TestProfileTokensBoundAndOff(t *testing.T) {
	a := withProfile(t)
	q := Query{Text: "medicine I should avoid, my job and my animals"}
	all := &Engine{Now: func() time.Time { return now }}
	res, err := all.Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	if got := profileIDs(res.Items); len(got) != 3 {
		t.Fatalf("default: profile lines %q, want all three", got)
	}
	one := &Engine{Now: all.Now, Tuning: DefaultTuning}
	one.Tuning.ProfileTokens = 20 // one line's worth
	if res, err = one.Recall(t.Context(), a, q); err != nil {
		t.Fatal(err)
	}
	if got := profileIDs(res.Items); len(got) != 1 {
		t.Errorf("profile_tokens 20: profile lines %q, want one", got)
	}
	off := &Engine{Now: all.Now, Tuning: DefaultTuning}
	off.Tuning.ProfileTokens = 0
	if res, err = off.Recall(t.Context(), a, Query{Text: "zebra crossings in Lisbon"}); err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 0 {
		t.Errorf("profile off: items %v for an unrelated question, want none (no pinned memories either)", res.Items)
	}
}

// TestPinnedMemoryStatedByALineIsOfferedOnce: the important allergy memory
// is what the allergy line states; when the line is offered, the memory is
// not pinned beside it.
func TestPinnedMemoryStatedByALineIsOfferedOnce(t *testing.T) {
	a := withProfile(t)
	e := &Engine{Now: func() time.Time { return now }}
	res, err := e.Recall(t.Context(), a, Query{Text: "Is there any medicine I should stay away from?"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ids(res.Items), "memory:7") {
		t.Errorf("items %v: want the other important memory (7) still pinned", ids(res.Items))
	}
	if slices.Contains(ids(res.Items), "memory:1") && !slices.ContainsFunc(res.Items, func(it Item) bool {
		return it.ID == "memory:1" && (it.Explain == nil || !it.Explain.Pinned)
	}) {
		t.Errorf("items %v: memory:1 pinned beside the line that states it", ids(res.Items))
	}
}

// BenchmarkProfileStage is what the profile stage adds to one question:
// reading a 66-line profile and matching every line against the question's
// concepts.
func BenchmarkProfileStage(b *testing.B) {
	a := memAgent(b, nil)
	var lines []store.ProfileLine
	for _, c := range claim.Categories {
		cat := c.Name
		for j := range 6 {
			v := fmt.Sprintf("%s value %d", cat, j)
			lines = append(lines, store.ProfileLine{Category: cat, Subject: "user", Key: cat, Value: v,
				Text: "The user's " + cat + " is " + v + ", as said in the spring.", SourceMemoryIDs: []int64{1}, ValidFrom: now.Add(-time.Hour)})
		}
	}
	if _, _, err := a.PutProfileLines(b.Context(), lines, now); err != nil {
		b.Fatal(err)
	}
	r := &ranker{e: &Engine{}, s: a, t: DefaultTuning, k: 10, asOf: now, words: []string{"medicine", "avoid", "doctor"}}
	for b.Loop() {
		if _, _, err := r.profileLines(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStaleLineLeftOutAndItsMemoryStillPinned: a line whose value a current
// fact has superseded is not offered, and the important memory it cites is
// pinned as it would be without the line.
func TestStaleLineLeftOutAndItsMemoryStillPinned(t *testing.T) {
	a := setup(t)
	ctx := t.Context()
	old, err := a.AddFact(ctx, store.Fact{Entity: "user", EntityType: "person", Attribute: "rent", Value: "1,450 a month",
		FactType: "attribute", Content: "The user's rent is 1,450 a month.", Confidence: 0.8, ValidFrom: now.AddDate(0, -2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CorrectFact(ctx, old, store.Correction{Content: "The user's rent is 1,520 a month.", Value: "1,520 a month"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.PutProfileLines(ctx, []store.ProfileLine{{Category: "home", Subject: "user", Key: "rent", Value: "1,450 a month",
		Single: true, Text: "The user's rent is 1,450 a month.", SourceMemoryIDs: []int64{1}, ValidFrom: now.AddDate(0, -2, 0)}}, now); err != nil {
		t.Fatal(err)
	}
	// The correction is dated by the clock, so the question is asked now.
	res, err := (&Engine{}).Recall(ctx, a, Query{Text: "How much is the rent?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := profileIDs(res.Items); len(got) != 0 || !strings.Contains(res.Context, "1,520") {
		t.Errorf("items %v: want the current rent, and no profile line stating the old one", res.Items)
	}
	if !slices.Contains(ids(res.Items), "memory:1") {
		t.Errorf("items %v: the important memory the stale line cites is not pinned", ids(res.Items))
	}
}

// TestCategoryWordsAreTheVocabulary: recall's question words are keyed by
// the one vocabulary's categories, every one of them and nothing else, so
// a category added to internal/claim is asked about too.
func TestCategoryWordsAreTheVocabulary(t *testing.T) {
	var names []string
	for _, c := range claim.Categories {
		names = append(names, c.Name)
		if len(categoryWords[c.Name]) == 0 {
			t.Errorf("category %q has no question words", c.Name)
		}
	}
	for c := range categoryWords {
		if !slices.Contains(names, c) {
			t.Errorf("question words for %q, which is not a category of internal/claim", c)
		}
	}
}

// TestProfileRoutedByTopic: a question naming a role is routed to the
// lines naming a member of it ("what's my diet?": lactose intolerant) and
// to its category's lines, and not to the others.
func TestProfileRoutedByTopic(t *testing.T) {
	a := setup(t)
	jan := now.AddDate(0, -2, 0)
	if _, _, err := a.PutProfileLines(t.Context(), []store.ProfileLine{
		{Category: "health", Subject: "user", Key: "intolerance", Value: "lactose",
			Text: "The user is lactose intolerant.", ValidFrom: jan},
		{Category: "pets", Subject: "Mochi", Key: "pet", Value: "Mochi (tabby)",
			Text: "Mochi is the user's tabby.", ValidFrom: jan},
		{Category: "vehicle", Subject: "user", Key: "car", Value: "Skoda Fabia",
			Text: "The user drives a Skoda Fabia.", ValidFrom: jan},
		{Category: "home", Subject: "user", Key: "city", Value: "Leeds",
			Text: "The user lives in Leeds.", ValidFrom: jan},
	}, jan); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Now: func() time.Time { return now }}
	for _, tc := range []struct{ q, want string }{
		{"What's my diet?", "lactose"},     // intolerance: a member of diet
		{"What pets do we have?", "Mochi"}, // the pets category
		{"How do I commute?", "Skoda"},     // drive: a member; vehicle: the category
	} {
		res, err := e.Recall(t.Context(), a, Query{Text: tc.q})
		if err != nil {
			t.Fatal(err)
		}
		got := profileIDs(res.Items)
		if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, tc.want) }) {
			t.Errorf("%q: profile lines %q, want the one naming %q", tc.q, got, tc.want)
		}
		if slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "Leeds") }) {
			t.Errorf("%q: profile lines %q, want not the home line", tc.q, got)
		}
	}
}

// A line about someone else alone ("Barnaby is allergic to wasps.") does
// not answer a question of the user alone; asked who, or of them, it does.
func TestOtherLineNotTheUsers(t *testing.T) {
	a := setup(t)
	at := now.AddDate(0, 0, -7)
	if _, _, err := a.PutProfileLines(t.Context(), []store.ProfileLine{{Category: "health", Subject: "Barnaby", Key: "allergy",
		Value: "wasps", Text: "Barnaby is allergic to wasps.", ValidFrom: at}}, at); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Now: func() time.Time { return now }}
	for q, want := range map[string]bool{"Am I allergic to anything?": false, "Who is allergic to wasps?": true} {
		res, err := e.Recall(t.Context(), a, Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(res.Context, "wasps"); got != want {
			t.Errorf("%q: offers Barnaby's allergy %v, want %v:\n%s", q, got, want, res.Context)
		}
	}
}

// A line's category is reached only by the question's own word or by the
// category its topic routes to, not by a word the lexicon relates: a
// Spanish class is no question of family (WordNet: class, family), though
// "what pets do we have?" is routed to the pets lines.
func TestCategoryReachedByRoutingOnly(t *testing.T) {
	sister := store.ProfileLine{Category: "family", Subject: "Sinead", Key: "sister", Value: "Sinead", Text: "Sinead is the user's sister."}
	if s := questionConcepts([]string{"spanish", "class"}).match(readConcepts(sister)); s != 0 {
		t.Errorf("a Spanish class matches the sister's line: %v", s)
	}
	if s := questionConcepts([]string{"family"}).match(readConcepts(sister)); s == 0 {
		t.Error("the family question does not match the sister's line")
	}
	pet := store.ProfileLine{Category: "pets", Subject: "user", Key: "pet", Value: "Pickle", Text: "The user has a tortoise called Pickle."}
	if s := questionConcepts([]string{"pets"}).match(readConcepts(pet)); s == 0 {
		t.Error("the pets question does not match the pets line")
	}
}
