package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// agentWithKinds is a data directory whose agent "main" holds n memories
// indexed under kind by the lexicon named version.
func agentWithKinds(t *testing.T, n int, kind, version string) string {
	t.Helper()
	dir := t.TempDir()
	s, a := openKinds(t, dir, kind, version)
	var mems []Memory
	for i := range n {
		content := fmt.Sprintf("the shed note number %d", i)
		mems = append(mems, Memory{Content: content, ContentHash: testHash(content),
			Timestamp: testTime.Add(time.Duration(i) * time.Minute), Importance: 0.5})
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	closeKinds(t, s, a)
	return dir
}

// openKinds opens dir's agent "main" with a lexicon that gives every text
// the one kind, named version.
func openKinds(t *testing.T, dir, kind, version string) (*Store, *Agent) {
	t.Helper()
	s, err := Open(t.Context(), Options{Dir: dir, Location: time.UTC, DedupWindow: 24 * time.Hour,
		Kinds: func(string) string { return kind }, KindsVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	return s, a
}

func closeKinds(t *testing.T, s *Store, a *Agent) {
	t.Helper()
	s.Release(a)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// kindsCursor is the deferred kinds re-index's cursor, -1 when none waits.
func kindsCursor(t *testing.T, a *Agent) int64 {
	t.Helper()
	cursor := int64(-1)
	if !pending(t, a) {
		return cursor
	}
	if err := a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), "SELECT cursor FROM schema_later WHERE step = ?", []any{kindsStep},
			func(s *sqlite3.Stmt) error { cursor = s.ColumnInt64(0); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	return cursor
}

// TestNewLexiconReindexesTheKinds: a small file opened with another
// lexicon than the one stamped on it has every memory's kinds indexed
// afresh at the open; opened with the same one, or with none, it is left
// as it is.
func TestNewLexiconReindexesTheKinds(t *testing.T) {
	deferAt(t, 500, 5, true)
	dir := agentWithKinds(t, 120, "oldkind", "v1")

	s, a := openKinds(t, dir, "newkind", "v1")
	if old, new, _ := kindsOf(t, a, nil); old != 120 || new != 0 {
		t.Errorf("the same lexicon: %d memories under the old kinds, %d under the new; want 120 and 0", old, new)
	}
	closeKinds(t, s, a)

	s, a = openKinds(t, dir, "newkind", "v2")
	if old, new, _ := kindsOf(t, a, nil); old != 0 || new != 120 || pending(t, a) {
		t.Errorf("a new lexicon: %d memories under the old kinds, %d under the new, deferred %v; want 0, 120, false",
			old, new, pending(t, a))
	}
	closeKinds(t, s, a)

	s, a = openKinds(t, dir, "oldkind", "")
	if old, new, _ := kindsOf(t, a, nil); old != 0 || new != 120 {
		t.Errorf("no lexicon named: %d memories under the old kinds, %d under the new; want 0 and 120", old, new)
	}
	closeKinds(t, s, a)
}

// TestNewLexiconReindexesBigFileAfterTheOpen: on a big file the re-index
// is a deferred step; every memory stays findable between its chunks, and
// a third lexicon met mid-way starts it again.
func TestNewLexiconReindexesBigFileAfterTheOpen(t *testing.T) {
	deferAt(t, 50, 7, true)
	dir := agentWithKinds(t, 120, "oldkind", "v1")

	s, a := openKinds(t, dir, "newkind", "v2")
	if old, new, _ := kindsOf(t, a, nil); old != 120 || new != 0 || kindsCursor(t, a) != 0 {
		t.Fatalf("after the open: %d under the old kinds, %d under the new, cursor %d; want 120, 0, 0", old, new, kindsCursor(t, a))
	}
	runChunks(t, a, 3)
	if c := kindsCursor(t, a); c <= 0 {
		t.Fatalf("after 3 chunks the cursor is %d", c)
	}
	closeKinds(t, s, a)

	s, a = openKinds(t, dir, "newkind", "v3")
	defer closeKinds(t, s, a)
	if c := kindsCursor(t, a); c != 0 {
		t.Errorf("a third lexicon mid-way: cursor %d, want 0 (start again)", c)
	}
	runChunks(t, a, 100)
	if old, new, _ := kindsOf(t, a, nil); old != 0 || new != 120 || pending(t, a) {
		t.Errorf("once done: %d under the old kinds, %d under the new, pending %v; want 0, 120, false", old, new, pending(t, a))
	}
}

// runChunks runs at most n chunks of a's deferred steps, by hand, checking
// that every memory is in the kinds index once after each.
func runChunks(t *testing.T, a *Agent, n int) {
	t.Helper()
	for range n {
		var done bool
		if err := a.writeBackground(t.Context(), func(ctx context.Context, c *conn) error {
			var err error
			done, err = laterOnce(ctx, c)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if old, new, _ := kindsOf(t, a, nil); old+new != 120 {
			t.Fatalf("between chunks: %d under the old kinds and %d under the new, want 120 in all", old, new)
		}
		if done {
			return
		}
	}
}
