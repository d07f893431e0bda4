package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTheWALShrinksAfterAPeak: a large write grows the WAL past
// walSizeLimit; once it is checkpointed and written from its start again,
// the file is cut back to the limit instead of keeping its peak size on
// disk (39 MB after a catch-up).
func TestTheWALShrinksAfterAPeak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	o := withDefaults(Options{})
	w, k := testConn(t, path, o), testConn(t, path, o)
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for _, sql := range []string{"CREATE TABLE t(x)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 3*1024) INSERT INTO t SELECT randomblob(3000) FROM n"} {
		if err := w.exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if peak := walSize(); peak <= walSizeLimit {
		t.Fatalf("the WAL after a large write: %d bytes, not past the limit %d: the test proves nothing", peak, walSizeLimit)
	}
	if err := checkpoint(k, o.BusyTimeout); err != nil {
		t.Fatal(err)
	}
	if err := w.exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if got := walSize(); got > walSizeLimit {
		t.Errorf("the WAL after a checkpoint and a write: %d bytes, want at most %d", got, walSizeLimit)
	}
}
