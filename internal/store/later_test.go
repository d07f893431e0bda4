package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// deferAt makes files of n memories defer their big migrations, in chunks
// of chunk, run by the test itself when manual.
func deferAt(t *testing.T, n int64, chunk int, manual bool) {
	rows, size, start := laterRows, laterChunk, startLater
	laterRows, laterChunk, startLater = n, chunk, !manual
	t.Cleanup(func() { laterRows, laterChunk, startLater = rows, size, start })
}

// agentAt15 is a data directory whose agent "main" holds n memories indexed
// under the kind "oldkind", set back to what schema 15 left; the memories'
// ids are returned.
func agentAt15(t *testing.T, n int) (string, []int64) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(t.Context(), Options{Dir: dir, Location: time.UTC, DedupWindow: 24 * time.Hour,
		Kinds: func(string) string { return "oldkind" }})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	var mems []Memory
	for i := range n {
		content := fmt.Sprintf("the garden note number %d", i)
		mems = append(mems, Memory{Content: content, ContentHash: testHash(content),
			Timestamp: testTime.Add(time.Duration(i) * time.Minute), Importance: 0.5})
	}
	got, err := a.Insert(t.Context(), mems)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(got))
	for i, g := range got {
		ids[i] = g.ID
	}
	s.Release(a)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	setBackTo15(t, filepath.Join(dir, "agents", "main.db"))
	return dir, ids
}

// openNewKinds opens dir's agent with the kind "newkind" for every memory.
func openNewKinds(t *testing.T, dir string) (*Store, *Agent) {
	t.Helper()
	s := openTest(t, Options{Dir: dir, DedupWindow: 24 * time.Hour, Kinds: func(string) string { return "newkind" }})
	return s, acquire(t, s, "main")
}

// kindsOf counts the memories found under each of the two kinds, and
// whether any of the ids given is found under either.
func kindsOf(t *testing.T, a *Agent, gone []int64) (old, new int, found bool) {
	t.Helper()
	err := a.read(t.Context(), func(c *conn) error {
		for _, k := range []struct {
			term string
			n    *int
		}{{"oldkind", &old}, {"newkind", &new}} {
			if err := c.query(t.Context(), "SELECT count(*) FROM memory_kinds WHERE memory_kinds MATCH ?", []any{k.term},
				func(s *sqlite3.Stmt) error { *k.n = s.ColumnInt(0); return nil }); err != nil {
				return err
			}
		}
		for _, id := range gone {
			if err := c.query(t.Context(), "SELECT 1 FROM memory_kinds WHERE rowid = ?", []any{id},
				func(*sqlite3.Stmt) error { found = true; return nil }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return old, new, found
}

// indexes reports whether the probe's old and new indexes exist.
func indexes(t *testing.T, a *Agent) (hashPrefix, dayHash bool) {
	t.Helper()
	err := a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), "SELECT name FROM sqlite_master WHERE type = 'index'", nil, func(s *sqlite3.Stmt) error {
			switch s.ColumnText(0) {
			case "daily_memories_hash_prefix":
				hashPrefix = true
			case "daily_memories_day_hash":
				dayHash = true
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return hashPrefix, dayHash
}

func pending(t *testing.T, a *Agent) bool {
	t.Helper()
	var p bool
	if err := a.read(t.Context(), func(c *conn) error {
		var err error
		p, err = laterPending(c)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDeferredMigrationKeepsEveryMemoryFindable: a file big enough opens at
// the current schema version with migrations 16 and 17 left to do; while
// they wait and between their chunks every stored memory is in the kinds
// index once (under its old kinds or its new), the duplicate probe still
// finds duplicates, and a memory forgotten meanwhile is never indexed
// again; once done, every memory has its new kinds and the probe its new
// index.
func TestDeferredMigrationKeepsEveryMemoryFindable(t *testing.T) {
	deferAt(t, 50, 7, true)
	dir, ids := agentAt15(t, 120)
	_, a := openNewKinds(t, dir)

	v := 0
	if err := a.read(t.Context(), func(c *conn) error { var err error; v, err = c.userVersion(); return err }); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion || !pending(t, a) {
		t.Fatalf("after the open: version %d (want %d), deferred steps pending %v (want true)", v, SchemaVersion, pending(t, a))
	}
	if old, new, _ := kindsOf(t, a, nil); old != len(ids) || new != 0 {
		t.Fatalf("before the deferred steps: %d memories under the old kinds, %d under the new; want %d and 0", old, new, len(ids))
	}
	dup := fmt.Sprintf("the garden note number %d", 3)
	got, err := a.Insert(t.Context(), []Memory{{Content: dup, ContentHash: testHash(dup), Timestamp: testTime.Add(3 * time.Minute), Importance: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Duplicate {
		t.Fatalf("a duplicate stored while the probe's index waits: %+v", got[0])
	}

	var gone []int64
	for chunk := 0; ; chunk++ {
		if chunk == 2 || chunk == 9 { // one forgotten before its chunk, one after
			id := ids[len(ids)/2]
			if chunk == 9 {
				id = ids[3]
			}
			if err := a.Delete(t.Context(), id); err != nil {
				t.Fatal(err)
			}
			gone = append(gone, id)
		}
		var done bool
		if err := a.writeBackground(t.Context(), func(ctx context.Context, c *conn) error {
			var err error
			done, err = laterOnce(ctx, c)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		old, new, found := kindsOf(t, a, gone)
		if old+new != len(ids)-len(gone) || found {
			t.Fatalf("after chunk %d: %d memories under the old kinds and %d under the new, want %d in all; a forgotten one found: %v",
				chunk, old, new, len(ids)-len(gone), found)
		}
		if done {
			break
		}
		if chunk > 100 {
			t.Fatal("the deferred steps never end")
		}
	}
	if old, new, _ := kindsOf(t, a, nil); old != 0 || new != len(ids)-len(gone) {
		t.Errorf("once done: %d memories under the old kinds, %d under the new; want 0 and %d", old, new, len(ids)-len(gone))
	}
	if hp, dh := indexes(t, a); hp || !dh {
		t.Errorf("once done: the hash-prefix index exists %v (want false), the day-keyed one %v (want true)", hp, dh)
	}
	if pending(t, a) {
		t.Error("once done, deferred steps still pending")
	}
	if err := a.Delete(t.Context(), ids[10]); err != nil {
		t.Fatal(err)
	}
	gone = append(gone, ids[10])
	if old, new, found := kindsOf(t, a, gone); new != len(ids)-len(gone) || old != 0 || found {
		t.Errorf("a memory forgotten after the swap: %d under the new kinds (want %d), found %v", new, len(ids)-len(gone), found)
	}
	forgotten := fmt.Sprintf("the garden note number %d", len(ids)/2)
	got, err = a.Insert(t.Context(), []Memory{{Content: forgotten, ContentHash: testHash(forgotten), Timestamp: testTime, Importance: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	var flagged bool
	if err := a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), "SELECT flagged FROM daily_memories WHERE id = ?", []any{got[0].ID},
			func(s *sqlite3.Stmt) error { flagged = s.ColumnInt(0) == 1; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if !flagged {
		t.Error("a forgotten memory stored again after the deferred steps is not flagged")
	}
}

// TestDeferredMigrationRunsAfterTheOpen: the agent's writer does the
// deferred steps on its own, and an agent closed before they end resumes
// them at its next open.
func TestDeferredMigrationRunsAfterTheOpen(t *testing.T) {
	deferAt(t, 50, 5, false)
	dir, ids := agentAt15(t, 400)
	s, a := openNewKinds(t, dir)
	s.Release(a)
	if err := s.Close(); err != nil { // most likely mid-way
		t.Fatal(err)
	}
	_, a = openNewKinds(t, dir)
	deadline := time.Now().Add(30 * time.Second)
	for pending(t, a) {
		if time.Now().After(deadline) {
			t.Fatal("the deferred steps did not end within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if old, new, _ := kindsOf(t, a, nil); old != 0 || new != len(ids) {
		t.Errorf("%d memories under the old kinds, %d under the new; want 0 and %d", old, new, len(ids))
	}
	if hp, dh := indexes(t, a); hp || !dh {
		t.Errorf("the hash-prefix index exists %v (want false), the day-keyed one %v (want true)", hp, dh)
	}
}

// TestSmallFileMigratesAtTheOpen: below laterRows the migrations run at the
// open, as before.
func TestSmallFileMigratesAtTheOpen(t *testing.T) {
	deferAt(t, 500, 5, true)
	dir, ids := agentAt15(t, 120)
	_, a := openNewKinds(t, dir)
	if pending(t, a) {
		t.Error("a small file has deferred steps")
	}
	if old, new, _ := kindsOf(t, a, nil); old != 0 || new != len(ids) {
		t.Errorf("%d memories under the old kinds, %d under the new; want 0 and %d", old, new, len(ids))
	}
	if hp, dh := indexes(t, a); hp || !dh {
		t.Errorf("the hash-prefix index exists %v (want false), the day-keyed one %v (want true)", hp, dh)
	}
}
