package store

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// supersedeDay commits one day's record with one phone fact stated by the
// memory id, as the consolidation does.
func supersedeDay(t *testing.T, a *Agent, day time.Time, id int64, value string, retires func(string) bool) {
	t.Helper()
	date := day.Format(time.DateOnly)
	_, err := a.CommitConsolidation(t.Context(), Commit{
		Record:  Consolidation{Date: date, Summary: "phone " + value, SourceIDs: []int64{id}, Model: "offline"},
		Facts:   []Fact{{Entity: "user", Attribute: "phone", Value: value, Content: "my phone is " + value, Confidence: 0.6, SourceMemoryIDs: []int64{id}, ValidFrom: day}},
		Run:     Run{Day: date, Provider: "offline", Status: RunOK},
		Now:     day.Add(24 * time.Hour),
		Retires: retires,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// insertAt stores memories said at the given times and returns their ids.
func insertAt(t *testing.T, a *Agent, said map[string]time.Time, order ...string) map[string]int64 {
	t.Helper()
	ids := map[string]int64{}
	for _, c := range order {
		m := mem(c, "")
		m.Timestamp = said[c]
		ins, err := a.Insert(t.Context(), []Memory{m})
		if err != nil {
			t.Fatal(err)
		}
		ids[c] = ins[0].ID
	}
	return ids
}

// searchIDsUntil is the sorted ids of the memories a search for term finds
// as of until.
func searchIDsUntil(t *testing.T, a *Agent, term string, until time.Time) []int64 {
	t.Helper()
	ids := hitIDs(t, a, SearchOptions{Terms: []string{term}, Until: until, Limit: 100})
	slices.Sort(ids)
	return ids
}

// hitIDs is the ids of the memories a search with o finds, best first.
func hitIDs(t *testing.T, a *Agent, o SearchOptions) []int64 {
	t.Helper()
	hits, err := a.SearchMemories(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// phoneHits is which of the memories a search for "phone" finds as of until.
func phoneHits(t *testing.T, a *Agent, until time.Time) []int64 {
	t.Helper()
	return searchIDsUntil(t, a, "phone", until)
}

// phoneChange is an agent told an old number in January and a new one in
// May, not yet consolidated: the memories' ids by content, and the two times.
func phoneChange(t *testing.T) (a *Agent, ids map[string]int64, jan, may time.Time) {
	t.Helper()
	jan = time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	may = time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)
	said := map[string]time.Time{"my phone is 0612": jan, "new phone: 0687": may}
	a = acquire(t, openTest(t, Options{}), "main")
	return a, insertAt(t, a, said, "my phone is 0612", "new phone: 0687"), jan, may
}

// TestSupersededMemories: when a single-valued fact is superseded, the
// memory that stated the old value names the memory stating the new one;
// recall leaves it out of questions asked at or after the successor and
// keeps it for questions asked before. A day consolidated late (its value
// goes into the history) marks its memory the same way.
func TestSupersededMemories(t *testing.T) {
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)
	said := map[string]time.Time{"my phone is 0612": jan, "new phone: 0687": may, "phone charger is in the car": jan.Add(time.Hour)}
	onePhone := func(attr string) bool { return attr == "phone" }
	for _, tc := range []struct {
		name  string
		order []string // the days consolidated, by their memory
	}{
		{"in order", []string{"my phone is 0612", "new phone: 0687"}},
		{"the older day late", []string{"new phone: 0687", "my phone is 0612"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := acquire(t, openTest(t, Options{}), "main")
			ids := insertAt(t, a, said, "my phone is 0612", "phone charger is in the car", "new phone: 0687")
			for _, c := range tc.order {
				supersedeDay(t, a, said[c], ids[c], c[len(c)-4:], onePhone)
			}
			old, err := a.Get(t.Context(), ids["my phone is 0612"])
			if err != nil {
				t.Fatal(err)
			}
			if old.SupersededBy == nil || *old.SupersededBy != ids["new phone: 0687"] {
				t.Errorf("old memory superseded_by = %v, want memory %d", old.SupersededBy, ids["new phone: 0687"])
			}
			for _, c := range []string{"new phone: 0687", "phone charger is in the car"} {
				if m, err := a.Get(t.Context(), ids[c]); err != nil || m.SupersededBy != nil {
					t.Errorf("memory %q superseded_by = %v, %v; want current", c, m.SupersededBy, err)
				}
			}
			all := []int64{ids["my phone is 0612"], ids["phone charger is in the car"], ids["new phone: 0687"]}
			for _, q := range []struct {
				asOf time.Time
				want []string
			}{{time.Time{}, []string{"0612"}}, {may.Add(-time.Hour), nil}} {
				got, by, err := a.SupersededValues(t.Context(), all, q.asOf)
				if err != nil || !slices.Equal(got, q.want) {
					t.Errorf("superseded values as of %v = %q, %v; want %q", q.asOf, got, err, q.want)
				}
				if wantBy := []int64{ids["new phone: 0687"]}; q.want != nil && !slices.Equal(by, wantBy) {
					t.Errorf("superseded as of %v by %v, want %v", q.asOf, by, wantBy)
				}
			}
			for _, q := range []struct {
				until time.Time
				want  []int64
			}{
				{time.Time{}, []int64{ids["phone charger is in the car"], ids["new phone: 0687"]}},
				{may.Add(time.Hour), []int64{ids["phone charger is in the car"], ids["new phone: 0687"]}},
				{may.Add(-time.Hour), []int64{ids["my phone is 0612"], ids["phone charger is in the car"]}},
			} {
				slices.Sort(q.want)
				if got := phoneHits(t, a, q.until); !slices.Equal(got, q.want) {
					t.Errorf("as of %v: hits %v, want %v", q.until, got, q.want)
				}
			}
		})
	}
}

// TestMultiValuedFactsRetireNoMemory: a superseded fact whose attribute
// Retires does not name (an attribute of several values, or no Retires)
// leaves its memories current.
func TestMultiValuedFactsRetireNoMemory(t *testing.T) {
	a, ids, jan, may := phoneChange(t)
	supersedeDay(t, a, jan, ids["my phone is 0612"], "0612", nil)
	supersedeDay(t, a, may, ids["new phone: 0687"], "0687", func(string) bool { return false })
	if m, err := a.Get(t.Context(), ids["my phone is 0612"]); err != nil || m.SupersededBy != nil {
		t.Errorf("superseded_by = %v, %v; want none", m.SupersededBy, err)
	}
	if got := phoneHits(t, a, time.Time{}); len(got) != 2 {
		t.Errorf("hits %v, want both memories", got)
	}
}

// TestForgottenSuccessor: forgetting the memory that stated the new value
// makes the one it superseded current again, naming no gone memory.
func TestForgottenSuccessor(t *testing.T) {
	a, ids, jan, may := phoneChange(t)
	onePhone := func(attr string) bool { return attr == "phone" }
	supersedeDay(t, a, jan, ids["my phone is 0612"], "0612", onePhone)
	supersedeDay(t, a, may, ids["new phone: 0687"], "0687", onePhone)
	if err := a.Delete(t.Context(), ids["new phone: 0687"]); err != nil {
		t.Fatal(err)
	}
	if m, err := a.Get(t.Context(), ids["my phone is 0612"]); err != nil || m.SupersededBy != nil {
		t.Errorf("superseded_by = %v, %v; want none once its successor is forgotten", m.SupersededBy, err)
	}
	if got := phoneHits(t, a, time.Time{}); !slices.Equal(got, []int64{ids["my phone is 0612"]}) {
		t.Errorf("hits %v, want the old memory", got)
	}
}

// TestReplacedMatching: a search matching a superseded memory's words
// finds what replaced it then, following the chain to the value current as
// of Until; before the first successor was said, nothing is replaced.
func TestReplacedMatching(t *testing.T) {
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)
	aug := time.Date(2026, 8, 9, 8, 0, 0, 0, time.UTC)
	old, mid, cur := "my phone is 0612, give it to the dentist", "new phone: 0687", "new number again: 0699"
	a := acquire(t, openTest(t, Options{}), "main")
	ids := insertAt(t, a, map[string]time.Time{old: jan, mid: may, cur: aug}, old, mid, cur)
	onePhone := func(attr string) bool { return attr == "phone" }
	supersedeDay(t, a, jan, ids[old], "0612", onePhone)
	supersedeDay(t, a, may, ids[mid], "0687", onePhone)
	supersedeDay(t, a, aug, ids[cur], "0699", onePhone)
	for _, q := range []struct {
		until time.Time
		want  int64 // the successor found for the dentist memory, 0 for none
	}{{time.Time{}, ids[cur]}, {aug.Add(-time.Hour), ids[mid]}, {may.Add(-time.Hour), 0}} {
		got, err := a.ReplacedMatching(t.Context(), SearchOptions{Terms: []string{"dentist"}, Until: q.until})
		if err != nil {
			t.Fatal(err)
		}
		var succ int64
		for _, r := range got {
			if r.Old.ID != ids[old] {
				t.Errorf("as of %v: replaced %d, want only the dentist memory %d", q.until, r.Old.ID, ids[old])
			}
			succ = r.New.ID
		}
		if succ != q.want {
			t.Errorf("as of %v: successor %d, want %d", q.until, succ, q.want)
		}
	}
	if got, err := a.ReplacedMatching(t.Context(), SearchOptions{Terms: []string{"charger"}}); err != nil || len(got) != 0 {
		t.Errorf("a term no superseded memory holds: %v, %v; want none", got, err)
	}
}

// TestReplacedMatchingByKind: with Kinds, a superseded memory naming a
// thing of the kind searched ("the dentist": a medical practitioner) finds
// what replaced it, which names neither.
func TestReplacedMatchingByKind(t *testing.T) {
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)
	old, cur := "my phone is 0612, give it to the dentist", "new phone: 0687"
	a := acquire(t, openTest(t, Options{}), "main")
	ids := insertAt(t, a, map[string]time.Time{old: jan, cur: may}, old, cur)
	onePhone := func(attr string) bool { return attr == "phone" }
	supersedeDay(t, a, jan, ids[old], "0612", onePhone)
	supersedeDay(t, a, may, ids[cur], "0687", onePhone)
	for _, kind := range []bool{false, true} {
		got, err := a.ReplacedMatching(t.Context(), SearchOptions{Terms: []string{"practitioner"}, Kinds: kind})
		if err != nil {
			t.Fatal(err)
		}
		if want := 0; kind {
			want = 1
			if len(got) != want || got[0].Old.ID != ids[old] || got[0].New.ID != ids[cur] {
				t.Errorf("by kind: %+v, want the dentist memory replaced by %d", got, ids[cur])
			}
		} else if len(got) != want {
			t.Errorf("by word: %+v, want none (no memory says practitioner)", got)
		}
	}
}

// TestReplacedMatchingReadsOnlyTheSuperseded: the search starts from the
// superseded memories' partial index, never from every memory.
func TestReplacedMatchingReadsOnlyTheSuperseded(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	for _, q := range []string{replacedSQL, replacedKindsSQL} {
		plan := strings.Join(queryPlan(t, a, q, int64(0), "x", 20), " | ")
		if !strings.Contains(plan, "USING INDEX daily_memories_superseded") {
			t.Errorf("plan %q, want it to start from daily_memories_superseded", plan)
		}
	}
}
