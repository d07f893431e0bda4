package store

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDays(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ins, err := a.Insert(ctx, []Memory{memOn("one", 1), memOn("two", 1), memOn("three", 3), memOn("four", 4)})
	if err != nil {
		t.Fatal(err)
	}
	// Day 1 consolidated; day 2 has a record but its memories were deleted.
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-01", Summary: "s", SourceIDs: []int64{ins[0].ID, ins[1].ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-02", Summary: "s"}); err != nil {
		t.Fatal(err)
	}
	got, err := a.Days(ctx, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Day{
		{Day: "2026-02-04", Memories: 1, Unconsolidated: 1},
		{Day: "2026-02-03", Memories: 1, Unconsolidated: 1},
		{Day: "2026-02-02", Consolidated: true},
		{Day: "2026-02-01", Memories: 2, Consolidated: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Days (-want +got):\n%s", diff)
	}
	page, err := a.Days(ctx, "2026-02-03", 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[2:4], page); diff != "" {
		t.Errorf("Days before 2026-02-03, limit 2 (-want +got):\n%s", diff)
	}
}

func TestCorrectFact(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tea, err := a.AddFact(ctx, Fact{Entity: "Alice", EntityType: "person", Attribute: "drink", Value: "tea",
		FactType: "preference", Content: "Alice drinks tea", Confidence: 0.6, SourceMemoryIDs: []int64{7}, ValidFrom: march})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.CorrectFact(ctx, tea, Correction{Content: "Alice drinks green tea", Value: "tea"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ID == tea || res.Outcome != FactCreated {
		t.Errorf("correction of the wording = %+v, want a new fact (not a reinforcement of %d)", res, tea)
	}
	cur, err := a.Facts(ctx, FactFilter{Entity: "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 1 || cur[0].ID != res.ID || cur[0].Content != "Alice drinks green tea" || cur[0].Confidence != 1 ||
		cur[0].Attribute != "drink" || cur[0].EntityType != "person" || cur[0].FactType != "preference" || len(cur[0].SourceMemoryIDs) != 0 {
		t.Errorf("current facts after the correction = %+v", cur)
	}
	old, err := a.Fact(ctx, tea)
	if err != nil {
		t.Fatal(err)
	}
	if old.SupersededBy == nil || *old.SupersededBy != res.ID || old.ValidTo == nil || !old.ValidTo.Equal(cur[0].ValidFrom) {
		t.Errorf("old fact = %+v, want superseded by %d from %v", old, res.ID, cur[0].ValidFrom)
	}

	// A fact without an attribute is superseded too.
	note, err := a.AddFact(ctx, Fact{Entity: "Bob", Content: "Bob lives in Paris", ValidFrom: march})
	if err != nil {
		t.Fatal(err)
	}
	res2, err := a.CorrectFact(ctx, note, Correction{Content: "Bob lives in Lyon"})
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := a.Fact(ctx, note); f.SupersededBy == nil || *f.SupersededBy != res2.ID {
		t.Errorf("attribute-less fact after correction = %+v, want superseded by %d", f, res2.ID)
	}

	// A rejected claim stays rejected, and nothing changes.
	llama, err := a.AddFact(ctx, Fact{Entity: "Bob", Content: "Bob owns a llama", ValidFrom: march})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RejectFact(ctx, llama); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CorrectFact(ctx, res2.ID, Correction{Content: "Bob owns a llama."}); !errors.Is(err, ErrRejected) {
		t.Errorf("correction to a rejected claim: err = %v, want ErrRejected", err)
	}
	if f, _ := a.Fact(ctx, res2.ID); f.ValidTo != nil || f.SupersededBy != nil {
		t.Errorf("fact after a refused correction = %+v, want still current", f)
	}

	for _, tc := range []struct {
		name string
		id   int64
		corr Correction
		want error
	}{
		{"superseded", tea, Correction{Content: "x"}, ErrNotCurrent},
		{"rejected", llama, Correction{Content: "x"}, ErrNotCurrent},
		{"unknown", 9999, Correction{Content: "x"}, ErrNotFound},
		{"unchanged", res.ID, Correction{Content: "alice drinks green tea!", Value: "Tea"}, ErrUnchanged},
	} {
		if _, err := a.CorrectFact(ctx, tc.id, tc.corr); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	var ce *CorrectionError
	for _, c := range []Correction{{}, {Content: strings.Repeat("x", MaxCorrectionBytes+1)}, {Content: "\xff"}} {
		if _, err := a.CorrectFact(ctx, res.ID, c); !errors.As(err, &ce) {
			t.Errorf("CorrectFact(%.20q): err = %v, want a CorrectionError", c.Content, err)
		}
	}
}

func TestFactByID(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	id, err := a.AddFact(ctx, Fact{Entity: "Alice", Content: "Alice is here", SourceMemoryIDs: []int64{3}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := a.Fact(ctx, id)
	if err != nil || f.Content != "Alice is here" || len(f.SourceMemoryIDs) != 1 {
		t.Errorf("Fact(%d) = %+v, %v", id, f, err)
	}
	if _, err := a.Fact(ctx, id+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Fact(unknown): err = %v, want ErrNotFound", err)
	}
}

func TestConsolidationDates(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	id1, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-01", Summary: "one"})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-03", Summary: "two"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.ConsolidationDates(ctx, []int64{id2, id1, 999})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int64]string{id1: "2026-02-01", id2: "2026-02-03"}, got); diff != "" {
		t.Errorf("ConsolidationDates (-want +got):\n%s", diff)
	}
}
