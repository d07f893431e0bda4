package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// TestCheckpointRestartsTheWALPastAReader: a reader whose snapshot holds
// the passive checkpoint back no longer keeps the WAL growing. Past
// walRestartFrames the checkpoint waits for that reader (here, the busy
// handler ends it), and the next commit is written at the WAL's start
// instead of after the thousand frames before it.
func TestCheckpointRestartsTheWALPastAReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	open := func() *conn {
		c, err := openConn(t.Context(), path, withDefaults(Options{}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.close() })
		return c
	}
	w, r, k := open(), open(), open()
	exec := func(c *conn, sql string) {
		t.Helper()
		if err := c.exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	commits := func(n int) {
		for range n {
			exec(w, "INSERT INTO t VALUES (randomblob(3000))") // a page of its own: a few frames a commit
		}
	}
	exec(w, "CREATE TABLE t(x)")
	commits(10)
	exec(r, "BEGIN; SELECT count(*) FROM t;") // a snapshot the passive checkpoint cannot pass
	commits(walRestartFrames)
	reading := true
	endRead := func() {
		if reading {
			exec(r, "COMMIT")
			reading = false
		}
	}
	if err := k.db.BusyHandler(func(context.Context, int) bool { endRead(); return true }); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint(k); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	endRead()
	inWAL := 0
	w.db.WALHook(func(_ *sqlite3.Conn, _ string, frames int) error { inWAL = frames; return nil })
	commits(1)
	if inWAL >= walRestartFrames {
		t.Errorf("the commit after the checkpoint left %d frames in the WAL: it was not restarted", inWAL)
	}
}
