package store

import (
	"fmt"
	"os"
	"path/filepath"
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
	if !strings.Contains(strings.Join(plan, "\n"), "daily_memories_day_hash") {
		t.Errorf("the duplicate probe's plan = %q, want a search of daily_memories_day_hash", plan)
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

// TestDedupFindsMemoriesStoredBeforeTheHashPrefix: a memory stored in a
// file of schema 12 (an index of the whole hash) is found as the duplicate
// of the same memory sent after migration 13 replaced that index.
func TestDedupFindsMemoriesStoredBeforeTheHashPrefix(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agents", "old.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := openConn(t.Context(), path, withDefaults(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(t.Context(), c, 12); err != nil {
		t.Fatal(err)
	}
	m := Memory{Content: "backup job finished", Timestamp: testTime, ContentHash: fmt.Sprintf("%064x", 12345), Importance: 0.5}
	if err := c.exec(fmt.Sprintf(`INSERT INTO daily_memories (ts, day, content, importance, content_hash, created_at)
		VALUES (%d, '2026-01-01', '%s', 0.5, '%s', 0)`, m.Timestamp.UnixMilli(), m.Content, m.ContentHash)); err != nil {
		t.Fatal(err)
	}
	c.close()
	a := acquire(t, openTest(t, Options{Dir: dir, DedupWindow: time.Hour}), "old")
	got, err := a.Insert(t.Context(), []Memory{m})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Duplicate || got[0].ID != 1 {
		t.Errorf("the memory sent again = %+v, want the duplicate of memory 1", got[0])
	}
}

// TestDedupAcrossDays: the probe looks up every UTC day of its window, so a
// memory sent again past midnight, or days later in a window of days, is
// the duplicate of the first.
func TestDedupAcrossDays(t *testing.T) {
	midnight := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		window time.Duration
		first  time.Time
		again  time.Time
	}{
		{"past midnight", time.Hour, midnight.Add(-10 * time.Minute), midnight.Add(20 * time.Minute)},
		{"before midnight", time.Hour, midnight.Add(20 * time.Minute), midnight.Add(-10 * time.Minute)},
		{"days later", 72 * time.Hour, midnight.Add(-47 * time.Hour), midnight.Add(23 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := acquire(t, openTest(t, Options{DedupWindow: c.window}), "main")
			first, again := mem("same words", "s1"), mem("same words", "s1")
			first.Timestamp, again.Timestamp = c.first, c.again
			got, err := a.Insert(t.Context(), []Memory{first, again})
			if err != nil {
				t.Fatal(err)
			}
			if !got[1].Duplicate || got[1].ID != got[0].ID {
				t.Errorf("the memory sent again = %+v, want the duplicate of %+v", got[1], got[0])
			}
		})
	}
}
