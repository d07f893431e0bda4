package store

import (
	"testing"
	"time"
)

// A day record is bounded by its day, not by when it was written: a past
// question (as_of) sees the record of an earlier day consolidated later.
func TestSearchDayRecordsByDay(t *testing.T) {
	st := openTest(t, Options{Location: time.UTC})
	a, err := st.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	if _, err := a.PutConsolidation(t.Context(), Consolidation{Date: "2026-02-01", Summary: "Kicked off the greenhouse project"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		terms []string
		until time.Time
		want  int
	}{
		{[]string{"greenhouse"}, time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), 1},
		{nil, time.Date(2026, 2, 1, 23, 0, 0, 0, time.UTC), 1},
		{[]string{"greenhouse"}, time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), 0},
		{[]string{"volcano"}, time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), 0},
	}
	for _, c := range cases {
		got, err := a.SearchDayRecords(t.Context(), SearchOptions{Terms: c.terms, Until: c.until, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.want {
			t.Errorf("terms %v until %s: %d records, want %d", c.terms, c.until, len(got), c.want)
		}
		if len(got) == 1 && got[0].Date != "2026-02-01" {
			t.Errorf("date %q", got[0].Date)
		}
	}
}

// Neighbours are the turns of the same session beside the given ones.
func TestNeighbours(t *testing.T) {
	st := openTest(t, Options{Location: time.UTC})
	a, err := st.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var mems []Memory
	for i, s := range []string{"a", "a", "a", "b", "b"} {
		mems = append(mems, Memory{Content: "turn " + string(rune('1'+i)), SessionID: s, Timestamp: t0.Add(time.Duration(i) * time.Minute),
			ContentHash: string(rune('a' + i))})
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	got, err := a.Neighbours(t.Context(), []int64{3}, 1, RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Memory 3 ends session a: 2 is beside it, 4 is in session b.
	if len(got) != 1 || got[0].ID != 2 {
		t.Errorf("neighbours of 3: %+v, want memory 2 only", got)
	}
	got, err = a.Neighbours(t.Context(), []int64{1, 2}, 2, RankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != 3 {
		t.Errorf("neighbours of 1, 2: %+v, want memory 3 only", got)
	}
}
