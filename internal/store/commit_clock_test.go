package store

import (
	"testing"
	"time"
)

// TestCommitConsolidationUsesItsClock: the record and its facts are written
// at the commit's clock (the consolidation engine's), which as_of compares
// with: a record committed "at" the night after its day is visible to a
// question asked the morning after, whatever the wall clock says.
func TestCommitConsolidationUsesItsClock(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	ins, err := a.Insert(ctx, []Memory{mem("Alice's role is engineer", "")})
	if err != nil {
		t.Fatal(err)
	}
	night := time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC)
	if _, err := a.CommitConsolidation(ctx, Commit{
		Record: Consolidation{Date: "2026-02-01", Summary: "Alice's role is engineer", SourceIDs: []int64{ins[0].ID}, Model: "offline"},
		Facts:  []Fact{{Entity: "Alice", Attribute: "role", Value: "engineer", Content: "Alice's role is engineer", Confidence: 0.6}},
		Run:    Run{Day: "2026-02-01", Provider: "offline", Status: RunOK},
		Now:    night,
	}); err != nil {
		t.Fatal(err)
	}
	cs, err := a.Consolidations(ctx, "", "", 10)
	if err != nil || len(cs) != 1 || !cs[0].UpdatedAt.Equal(night) || !cs[0].CreatedAt.Equal(night) {
		t.Fatalf("consolidations = %+v, %v; want one written at %s", cs, err, night)
	}
	hits, err := a.SearchDayRecords(ctx, SearchOptions{Terms: []string{"alice"}, Until: night.Add(9 * time.Hour), Limit: 5})
	if err != nil || len(hits) != 1 {
		t.Errorf("as of the next morning: %d hits, %v; want the record", len(hits), err)
	}
	facts, err := a.Facts(ctx, FactFilter{History: true})
	if err != nil || len(facts) != 1 || !facts[0].CreatedAt.Equal(night) {
		t.Errorf("facts = %+v, %v; want one created at %s", facts, err, night)
	}
}
