package consolidate

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestRetentionAfterTheNight: the nightly run (Do without a date) prunes
// the raw memories of consolidated days older than RawDays, keeping records
// and facts; a memory arriving late for a pruned day is consolidated into
// the record the day had, not over it.
func TestRetentionAfterTheNight(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	old := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	oldIDs := ingest(t, st, "main", []capture.Input{
		say("Alice lives in Paris.", old),
		say("We decided to ship the beta on Monday.", old.Add(time.Hour)),
	})
	recentIDs := ingest(t, st, "main", []capture.Input{say("Bob prefers green tea.", now.Add(-48*time.Hour))})
	e := engine(st, Offline{})
	e.Retention = Retention{RawDays: 30}
	res, err := e.Do(ctx, "main", Request{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || res.Retention == nil || res.Retention.Pruned != (store.PruneResult{Days: 1, Memories: 2}) {
		t.Fatalf("Do = %+v (retention %+v), want two days consolidated and the old one pruned", res, res.Retention)
	}
	s := stats(t, st, "main")
	if s.Memories != 1 || s.Consolidations != 2 || s.CurrentFacts < 2 {
		t.Errorf("after retention: %+v, want the recent memory, both records and the facts", s)
	}
	a, err := st.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	if _, err := a.Get(ctx, recentIDs[0]); err != nil {
		t.Errorf("recent memory: %v", err)
	}

	// A note about that old day arrives late and the day is consolidated
	// again: the record keeps what was pruned and adds the new memory.
	late := ingest(t, st, "main", []capture.Input{say("The beta launch party is at Luigi's.", old.Add(3*time.Hour))})
	runs, err := e.RunAll(ctx, "main", false)
	if err != nil || len(runs) != 1 || runs[0].Day != "2026-01-10" {
		t.Fatalf("late memory's run = %+v, %v", runs, err)
	}
	recs, _ := a.Consolidations(ctx, "2026-01-10", "2026-01-10", 0)
	if len(recs) != 1 || !slices.Equal(recs[0].SourceIDs, append(slices.Clone(oldIDs), late[0])) {
		t.Fatalf("record of the pruned day = %+v, want the pruned and the late memory as sources", recs)
	}
	for _, want := range []string{"Paris", "beta on Monday", "Luigi"} {
		if !strings.Contains(recs[0].Summary+string(recs[0].KeyFacts), want) {
			t.Errorf("record of the pruned day lost %q: %q", want, recs[0].Summary)
		}
	}
	// Off by default: nothing pruned.
	e.Retention = Retention{}
	if res, err := e.Do(ctx, "main", Request{}); err != nil || res.Retention != nil {
		t.Errorf("Do without retention = %+v, %v", res, err)
	}
}

// TestNightMergesTheMemoryIndexes: three captures leave three segments in
// the memory index (FTS5's automerge waits for four); after the night
// there is nothing left to merge, retention off.
func TestNightMergesTheMemoryIndexes(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	day := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	for i, s := range []string{"Alice lives in Paris.", "We adopted a beagle called Rufus.", "Bob prefers green tea."} {
		ingest(t, st, "main", []capture.Input{say(s, day.Add(time.Duration(i)*time.Hour))})
	}
	if _, err := engine(st, Offline{}).Do(ctx, "main", Request{}); err != nil {
		t.Fatal(err)
	}
	err := st.With(ctx, "main", false, func(a *store.Agent) error {
		before, after, err := a.MergeIndexes(ctx)
		if err == nil && (before != after || after > 2) {
			t.Errorf("after the night the merge still finds %d segments → %d; want at most 2 and nothing to merge", before, after)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
