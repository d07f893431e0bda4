package store

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDuplicateProbeGoesByHash: the dedup probe of every insert looks the
// content hash up (few rows), never the session's rows of the window (every
// row of the day for clients that send no session_id: quadratic ingest).
func TestDuplicateProbeGoesByHash(t *testing.T) {
	s := openTest(t, Options{DedupWindow: time.Hour})
	a := acquire(t, s, "main")
	plan := queryPlan(t, a, duplicateSQL, "h", "", 0, 1)
	if len(plan) != 1 || !strings.Contains(plan[0], "daily_memories_hash") {
		t.Errorf("the duplicate probe's plan = %q, want a search of daily_memories_hash", plan)
	}
}

// BenchmarkSingleInsertsWithoutSession: one memory a commit, all of one day
// and no session, as a tool log sends them; the duplicate probe must not make
// each insert cost more than the one before.
func BenchmarkSingleInsertsWithoutSession(b *testing.B) {
	s, err := Open(b.Context(), Options{Dir: b.TempDir(), Location: time.UTC, DedupWindow: 24 * time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	day := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	i := 0
	for b.Loop() {
		m := Memory{Content: fmt.Sprintf("job %d finished: 12 files synced, 0 errors", i), Timestamp: day.Add(time.Duration(i) * time.Second)}
		m.ContentHash = fmt.Sprintf("%064d", i)
		if err := s.With(b.Context(), "main", true, func(a *Agent) error {
			_, err := a.Insert(b.Context(), []Memory{m})
			return err
		}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
