package store

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ncruces/go-sqlite3"
)

func TestActivity(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ins, err := a.Insert(ctx, []Memory{memOn("one", 1), memOn("two", 1), memOn("three", 3), memOn("four", 4), memOn("five", 4), memOn("later", 20)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-01", Summary: "s", SourceIDs: []int64{ins[0].ID, ins[1].ID}}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []Run{{Day: "2026-02-01", Status: "failed"}, {Day: "2026-02-01", Status: "ok"},
		{Day: "2026-02-02", Status: "partial"}, {Day: "2026-02-03", Status: "failed"}, {Day: "2026-01-31", Status: "ok"}} {
		if _, err := a.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Activity(ctx, "2026-02-01", "2026-02-10")
	if err != nil {
		t.Fatal(err)
	}
	want := []DayActivity{
		{Day: "2026-02-01", Memories: 2, Runs: 2, Failed: 1},
		{Day: "2026-02-02", Runs: 1},
		{Day: "2026-02-03", Memories: 1, Waiting: 1, Runs: 1, Failed: 1},
		{Day: "2026-02-04", Memories: 2, Waiting: 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Activity (-want +got):\n%s", diff)
	}
}

// TestActivityReadsOnlyItsRange: the activity query is answered from the
// day indexes, never by scanning every memory or run (a page at 100k
// memories reads only the weeks it draws).
func TestActivityReadsOnlyItsRange(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	plan := queryPlan(t, a, activitySQL, "2026-02-01", "2026-02-10")
	var memIdx, runIdx bool
	for _, p := range plan {
		memIdx = memIdx || p == "SEARCH daily_memories USING COVERING INDEX daily_memories_day (day>? AND day<?)" ||
			p == "SEARCH daily_memories USING INDEX daily_memories_day (day>? AND day<?)"
		runIdx = runIdx || p == "SEARCH consolidation_runs USING COVERING INDEX consolidation_runs_day (day>? AND day<?)" ||
			p == "SEARCH consolidation_runs USING INDEX consolidation_runs_day (day>? AND day<?)"
	}
	if !memIdx || !runIdx {
		t.Errorf("the activity query's plan does not search the day indexes:\n%q", plan)
	}
}

// TestDaysReadsOnlyItsPage: the days list finds its page's days by index
// range from the cursor and counts each by index, never scanning every
// memory (it did, grouping the whole history before the limit).
func TestDaysReadsOnlyItsPage(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	plan := queryPlan(t, a, daysSQL, "9999-12-32", 7)
	for _, p := range plan {
		if strings.HasPrefix(p, "SCAN daily_memories") || strings.HasPrefix(p, "SCAN consolidated_memories") ||
			strings.HasPrefix(p, "SCAN m") || strings.HasPrefix(p, "SCAN c") {
			t.Errorf("the days query scans a whole table: %q\nplan: %q", p, plan)
		}
	}
}

// memOn is a test memory at ten in the morning of a day of February 2026.
func memOn(content string, day int) Memory {
	m := mem(content, "s")
	m.Timestamp = time.Date(2026, 2, day, 10, 0, 0, 0, time.UTC)
	return m
}

// queryPlan is how SQLite would run sql: EXPLAIN QUERY PLAN's detail lines.
func queryPlan(t *testing.T, a *Agent, sql string, args ...any) []string {
	t.Helper()
	var plan []string
	err := a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), `EXPLAIN QUERY PLAN `+sql, args, func(st *sqlite3.Stmt) error {
			plan = append(plan, st.ColumnText(3))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
