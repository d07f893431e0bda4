package store

import (
	"testing"
	"time"
)

// TestRetireCorrected: a correction retires the memory it corrects, the
// fact and the profile line only that memory stated, and nothing else; an
// as_of before the correction still sees all three, and the day record's
// source text is reported superseded only after it.
func TestRetireCorrected(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	mon := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	fri := mon.AddDate(0, 0, 4)
	said := map[string]time.Time{"I swim at Riverside pool on Tuesdays": mon, "Tuesday is also bin day": mon.Add(time.Hour),
		"I don't swim at Riverside any more": fri}
	ids := insertAt(t, a, said, "I swim at Riverside pool on Tuesdays", "Tuesday is also bin day", "I don't swim at Riverside any more")
	old, other, by := ids["I swim at Riverside pool on Tuesdays"], ids["Tuesday is also bin day"], ids["I don't swim at Riverside any more"]
	_, err := a.CommitConsolidation(ctx, Commit{
		Record: Consolidation{Date: "2026-03-02", Summary: "I swim at Riverside pool on Tuesdays. Tuesday is also bin day.",
			SourceIDs: []int64{old, other}, Model: "offline"},
		Facts: []Fact{
			{Entity: "user", Attribute: "swimming", Value: "Riverside pool", Content: "swims at Riverside", Confidence: 0.6, SourceMemoryIDs: []int64{old}, ValidFrom: mon},
			{Entity: "user", Attribute: "bin day", Value: "Tuesday", Content: "bin day is Tuesday", Confidence: 0.6, SourceMemoryIDs: []int64{other}, ValidFrom: mon},
		},
		Profile: []ProfileLine{{Category: "routine", Subject: "user", Key: "swimming", Value: "Riverside pool",
			Text: "Swims at Riverside pool on Tuesdays.", SourceMemoryIDs: []int64{old}, ValidFrom: mon}},
		Run: Run{Day: "2026-03-02", Provider: "offline", Status: RunOK}, Now: mon.Add(24 * time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RetireCorrected(ctx, []int64{old, by}, by); err != nil {
		t.Fatal(err)
	}
	if err := a.RetireCorrected(ctx, []int64{old}, by); err != nil { // again: nothing changes
		t.Fatal(err)
	}
	for id, want := range map[int64]bool{old: true, other: false, by: false} {
		m, err := a.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.SupersededBy != nil && *m.SupersededBy == by; got != want {
			t.Errorf("memory %d superseded by the correction = %v, want %v", id, got, want)
		}
	}
	for _, q := range []struct {
		asOf        time.Time
		facts       int
		lines       int
		retiredText int
	}{{time.Time{}, 1, 0, 1}, {fri.Add(-time.Hour), 2, 1, 0}} {
		facts, err := a.Facts(ctx, FactFilter{AsOf: q.asOf})
		if err != nil {
			t.Fatal(err)
		}
		lines, err := a.Profile(ctx, q.asOf)
		if err != nil {
			t.Fatal(err)
		}
		texts, err := a.SupersededTexts(ctx, []int64{old, other}, q.asOf)
		if err != nil {
			t.Fatal(err)
		}
		if len(facts) != q.facts || len(lines) != q.lines || len(texts) != q.retiredText {
			t.Errorf("as of %v: %d facts, %d profile lines, %d retired texts; want %d, %d, %d",
				q.asOf, len(facts), len(lines), len(texts), q.facts, q.lines, q.retiredText)
		}
	}
}

// TestRetireCorrectedKeepsARestatedValue: a correction that says a value
// of the corrected memory again ("we've switched Dorota to Mondays")
// leaves that claim current; one that names it as ended retires it.
func TestRetireCorrectedKeepsARestatedValue(t *testing.T) {
	for _, tc := range []struct {
		correction string
		current    bool
	}{
		{"We've switched Dorota to Mondays from next month", true},
		{"Dorota is coming on Mondays instead", true},
		{"We don't use Dorota any more", false},
		{"We stopped Dorota, the hedges are done", false},
		{"We switched from Dorota to a firm", false},
		{"Actually, make it Mondays", false},
		{"Dorota has retired, so we need someone new", false},
		{"Dorota's retiring at Easter", false},
		{"Dorota says the hedges have died back", true},
	} {
		ctx := t.Context()
		a := acquire(t, openTest(t, Options{}), "main")
		mon := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		const stated = "Our gardener Dorota comes on Wednesdays"
		ids := insertAt(t, a, map[string]time.Time{stated: mon, tc.correction: mon.AddDate(0, 0, 7)}, stated, tc.correction)
		if _, err := a.PutFact(ctx, Fact{Entity: "user", Attribute: "gardener", Value: "Dorota", Content: "The user's gardener is Dorota.",
			Confidence: 0.6, SourceMemoryIDs: []int64{ids[stated]}, ValidFrom: mon}); err != nil {
			t.Fatal(err)
		}
		if err := a.RetireCorrected(ctx, []int64{ids[stated]}, ids[tc.correction]); err != nil {
			t.Fatal(err)
		}
		fs, err := a.Facts(ctx, FactFilter{Entity: "user"})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(fs) == 1; got != tc.current {
			t.Errorf("%q: the gardener's fact current = %v, want %v", tc.correction, got, tc.current)
		}
	}
}

// TestRetireCorrectedMovesARestatedDay: a correction that names the old
// weekday beside a new one ("can we do Thursday instead? Tuesday I'm at
// the dentist") moves the claim of when; one naming only the old day
// keeps it.
func TestRetireCorrectedMovesARestatedDay(t *testing.T) {
	for _, tc := range []struct {
		correction string
		current    bool
	}{
		{"Can we do Thursday instead? Tuesday I'm at the dentist.", false},
		{"Moved it to Fridays, Tuesday clashed with football.", false},
		{"Actually, make it the afternoon, Tuesday still works.", true},
	} {
		ctx := t.Context()
		a := acquire(t, openTest(t, Options{}), "main")
		mon := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		const stated = "The boiler service is booked for Tuesday"
		ids := insertAt(t, a, map[string]time.Time{stated: mon, tc.correction: mon.Add(time.Hour)}, stated, tc.correction)
		if _, err := a.PutFact(ctx, Fact{Entity: "boiler service", Attribute: "date", Value: "Tuesday", Content: stated,
			Confidence: 0.6, SourceMemoryIDs: []int64{ids[stated]}, ValidFrom: mon}); err != nil {
			t.Fatal(err)
		}
		if err := a.RetireCorrected(ctx, []int64{ids[stated]}, ids[tc.correction]); err != nil {
			t.Fatal(err)
		}
		fs, err := a.Facts(ctx, FactFilter{Entity: "boiler service"})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(fs) == 1; got != tc.current {
			t.Errorf("%q: the service's date current = %v, want %v", tc.correction, got, tc.current)
		}
	}
}
