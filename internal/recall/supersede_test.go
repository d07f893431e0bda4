package recall

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// TestTodaysMemoryRetiresTheFact: a memory of today stating a new value of
// a one-valued attribute ("new number: ...") retires, before the night
// supersedes it, the current fact and the older memory holding the old
// value; a question asked before the new memory still gets the old one.
func TestTodaysMemoryRetiresTheFact(t *testing.T) {
	turns := []turn{
		{time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC), "s1", "user", "My phone number is 0612 448 731, the courier can ring it.", nil},
		{time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC), "s2", "user", "new number: 0687 220 915, the old SIM is dead.", nil},
	}
	a := agentWith(t, turns)
	if _, err := a.PutFact(t.Context(), store.Fact{Entity: "user", Attribute: "phone", Value: "0612 448 731",
		Content: "My phone number is 0612 448 731, the courier can ring it", Confidence: 0.6,
		SourceMemoryIDs: []int64{1}, ValidFrom: turns[0].at}); err != nil {
		t.Fatal(err)
	}
	claims := func(content, role string) []claim.Claim { // as the consolidation keys them
		switch {
		case strings.Contains(content, "0612 448 731"):
			return []claim.Claim{{Subject: "user", Key: "phone", Value: "0612 448 731"}}
		case strings.Contains(content, "0687 220 915"):
			return []claim.Claim{{Subject: "user", Key: "phone", Value: "0687 220 915"}}
		}
		return nil
	}
	e := &Engine{Claims: claims}
	ask := func(at time.Time) string {
		res, err := e.Recall(t.Context(), a, Query{Text: "Which phone number should the courier ring?", AsOf: at})
		if err != nil {
			t.Fatal(err)
		}
		return res.Context
	}
	if got := ask(time.Date(2026, 5, 3, 12, 0, 0, 0, time.UTC)); !strings.Contains(got, "0687 220 915") || strings.Contains(got, "0612") {
		t.Errorf("today the context must hold the new number only:\n%s", got)
	}
	if got := ask(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)); !strings.Contains(got, "0612 448 731") {
		t.Errorf("as of March the old number was current:\n%s", got)
	}
}

func TestWithoutStaleSentences(t *testing.T) {
	stale := [][]string{{"grey", "volkswagen", "golf"}}
	for _, tc := range []struct {
		in    string
		words []string
		want  string
		ok    bool
	}{
		{"My car is a grey Volkswagen Golf. The car service is booked for March.", []string{"service"}, "The car service is booked for March.", true},
		{"The car service is booked for March. Nothing stale here.", []string{"service"}, "The car service is booked for March. Nothing stale here.", true},
		{"My car is a grey Volkswagen Golf. Lunch with Dana was fun!", []string{"car"}, "Lunch with Dana was fun!", false},
		{"My car is a grey Volkswagen Golf.", []string{"car"}, "", false},
		{"The budget is $2.4M… My car is a grey Volkswagen Golf! Service in March?", []string{"budget"}, "The budget is $2.4M… Service in March?", true},
	} {
		got, ok := withoutStaleSentences(tc.in, stale, tc.words)
		if got != tc.want || ok != tc.ok {
			t.Errorf("withoutStaleSentences(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDayRecordLosesTheStaleSentence: a day record stating a superseded
// value is offered without that sentence, not dropped with what else it
// says. (A record is offered by its sentences that match the question: the
// tyres are asked about so that what is left is not a copy of memory 2.)
func TestDayRecordLosesTheStaleSentence(t *testing.T) {
	jan := time.Date(2026, 1, 25, 13, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 16, 17, 0, 0, 0, time.UTC)
	a := agentWith(t, []turn{
		{jan, "s1", "user", "My car is a grey Volkswagen Golf.", nil},
		{jan.Add(time.Minute), "s1", "user", "The service is booked for March at Dunmore Motors.", nil},
		{may, "s2", "user", "Sold the Golf and bought a Kia Niro.", nil},
	})
	ctx := t.Context()
	for _, d := range []struct {
		at      time.Time
		summary string
		fact    store.Fact
		ids     []int64
	}{
		{jan, "My car is a grey Volkswagen Golf. The service is booked for March at Dunmore Motors. The tyres need checking then too.",
			store.Fact{Entity: "user", Attribute: "car", Value: "grey Volkswagen Golf", Content: "My car is a grey Volkswagen Golf", SourceMemoryIDs: []int64{1}, ValidFrom: jan}, []int64{1, 2}},
		{may, "Sold the Golf and bought a Kia Niro.",
			store.Fact{Entity: "user", Attribute: "car", Value: "Kia Niro", Content: "Sold the Golf and bought a Kia Niro", SourceMemoryIDs: []int64{3}, ValidFrom: may}, []int64{3}},
	} {
		date := d.at.Format(time.DateOnly)
		if _, err := a.CommitConsolidation(ctx, store.Commit{
			Record: store.Consolidation{Date: date, Summary: d.summary, SourceIDs: d.ids, Model: "offline"},
			Facts:  []store.Fact{d.fact}, Run: store.Run{Day: date, Provider: "offline", Status: store.RunOK}, Now: d.at.Add(12 * time.Hour),
			Retires: func(attr string) bool { return attr == "car" },
		}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := (&Engine{}).Recall(ctx, a, Query{Text: "Where is the car service booked, and what about the tyres?", AsOf: may.Add(72 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var record string
	for _, it := range res.Items {
		if it.Kind == "consolidation" && strings.Contains(it.Text, "Dunmore") {
			record = it.Text
		}
	}
	if record == "" || strings.Contains(record, "Volkswagen") {
		t.Errorf("the January record should be offered without the Golf: %q\n%s", record, res.Context)
	}
	if strings.Contains(res.Context, "grey Volkswagen Golf") {
		t.Errorf("the stale car is offered:\n%s", res.Context)
	}
}

// TestConsolidatedMemoriesAreNotReadForClaims: when the night has read
// every memory among the candidates, their facts already carry their
// claims, and recall reads no memory text for them.
func TestConsolidatedMemoriesAreNotReadForClaims(t *testing.T) {
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	a := agentWith(t, []turn{{jan, "s1", "user", "My phone number is 0612 448 731.", nil}})
	if _, err := a.CommitConsolidation(t.Context(), store.Commit{
		Record: store.Consolidation{Date: "2026-01-14", Summary: "My phone number is 0612 448 731.", SourceIDs: []int64{1}, Model: "offline"},
		Run:    store.Run{Day: "2026-01-14", Provider: "offline", Status: store.RunOK}, Now: jan.Add(14 * time.Hour),
	}); err != nil {
		t.Fatal(err)
	}
	read := 0
	e := &Engine{Claims: func(string, string) []claim.Claim { read++; return nil }}
	res, err := e.Recall(t.Context(), a, Query{Text: "what is my phone number?", AsOf: jan.Add(48 * time.Hour)})
	if err != nil || len(res.Items) == 0 {
		t.Fatalf("recall = %v, %v; want the memory", res.Items, err)
	}
	if read != 0 {
		t.Errorf("Claims read %d memories, want none: every one is consolidated", read)
	}
}

// agentWithNewSIM is an agent that said first (in January, its number
// 0612 448 731) and in May "Got a new SIM: 0687 220 915", each day
// consolidated, the May fact retiring January's; and May's time.
func agentWithNewSIM(t *testing.T, first string) (*store.Agent, time.Time) {
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)
	a := agentWith(t, []turn{
		{jan, "s1", "user", first, nil},
		{may, "s2", "user", "Got a new SIM: 0687 220 915.", nil},
	})
	for i, d := range []struct {
		at    time.Time
		value string
	}{{jan, "0612 448 731"}, {may, "0687 220 915"}} {
		date := d.at.Format(time.DateOnly)
		id := int64(i + 1)
		if _, err := a.CommitConsolidation(t.Context(), store.Commit{
			Record: store.Consolidation{Date: date, Summary: "phone " + d.value, SourceIDs: []int64{id}, Model: "offline"},
			Facts: []store.Fact{{Entity: "user", Attribute: "phone", Value: d.value, Content: "phone " + d.value,
				SourceMemoryIDs: []int64{id}, ValidFrom: d.at}},
			Run: store.Run{Day: date, Provider: "offline", Status: store.RunOK}, Now: d.at.Add(12 * time.Hour),
			Retires: func(attr string) bool { return attr == "phone" },
		}); err != nil {
			t.Fatal(err)
		}
	}
	return a, may
}

// TestReplacedMemoryStandsForTheOld: a question whose words only the
// superseded memory holds ("the dentist") is answered by the memory that
// replaced it, which names no dentist; asked before the change, by the old.
func TestReplacedMemoryStandsForTheOld(t *testing.T) {
	a, may := agentWithNewSIM(t, "My mobile is 0612 448 731, the dentist texts reminders to it.")
	for _, q := range []struct {
		asOf      time.Time
		want, not string
	}{{may.Add(72 * time.Hour), "0687 220 915", "0612"}, {may.Add(-time.Hour), "0612 448 731", "0687"}} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "Where does the dentist text reminders?", AsOf: q.asOf})
		if err != nil {
			t.Fatal(err)
		}
		var mems []string
		for _, it := range res.Items {
			if it.Kind == "memory" {
				mems = append(mems, it.Text)
			}
		}
		if got := strings.Join(mems, " | "); !strings.Contains(got, q.want) || strings.Contains(got, q.not) {
			t.Errorf("as of %v: memories %q, want the one with %s and none with %s", q.asOf, got, q.want, q.not)
		}
	}
}

// TestReplacedMemoryStandsForTheOldByKind: a question whose word only
// names the kind of a thing the superseded memory names ("dentist": the
// orthodontist) is answered by the memory that replaced it, which names
// neither.
func TestReplacedMemoryStandsForTheOldByKind(t *testing.T) {
	a, may := agentWithNewSIM(t, "My mobile is 0612 448 731, the orthodontist has it on file.")
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "Does the dentist have my details?", AsOf: may.Add(72 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var mems []string
	for _, it := range res.Items {
		if it.Kind == "memory" {
			mems = append(mems, it.Text)
		}
	}
	if got := strings.Join(mems, " | "); !strings.Contains(got, "0687 220 915") || strings.Contains(got, "0612") {
		t.Errorf("memories %q, want the new SIM standing for the orthodontist's number, not the old one", got)
	}
}

// TestWithoutSentencesOf: a day record loses the sentences a retired
// memory said, and is not offered when what is left misses the question.
func TestWithoutSentencesOf(t *testing.T) {
	said := [][]string{text.Words("Choir is on Monday at the church hall, 7pm. Bring the new folder.")}
	for _, tc := range []struct {
		in, want string
		words    []string
		ok       bool
	}{
		{"Choir is on Monday at the church hall, 7pm. The boiler was serviced.", "The boiler was serviced.", []string{"boiler"}, true},
		{"Choir is on Monday at the church hall, 7pm. The boiler was serviced.", "The boiler was serviced.", []string{"choir"}, false},
		{"Choir is on Thursday now. The boiler was serviced.", "Choir is on Thursday now. The boiler was serviced.", []string{"choir"}, true},
	} {
		got, ok := withoutSentencesOf(tc.in, said, tc.words)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("withoutSentencesOf(%q, %q) = %q, %v; want %q, %v", tc.in, tc.words, got, ok, tc.want, tc.ok)
		}
	}
}
