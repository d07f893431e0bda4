package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// TestCheckpointRestartsTheWALPastAReader: a reader whose snapshot holds
// the passive checkpoint back no longer keeps the WAL growing. Past
// walRestartFrames the checkpoint restarts the WAL once that reader is
// done, and the next commit is written at the WAL's start
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
	if left, err := passiveCheckpoint(k); err != nil || left < walRestartFrames {
		t.Fatalf("passive checkpoint past a reader left %d frames, %v; want at least %d", left, err, walRestartFrames)
	}
	exec(r, "COMMIT")
	if restarted, err := restartWAL(k, time.Second); !restarted || err != nil {
		t.Fatalf("restart once the reader is done = %v, %v; want restarted", restarted, err)
	}
	inWAL := 0
	w.db.WALHook(func(_ *sqlite3.Conn, _ string, frames int) error { inWAL = frames; return nil })
	commits(1)
	if inWAL >= walRestartFrames {
		t.Errorf("the commit after the checkpoint left %d frames in the WAL: it was not restarted", inWAL)
	}
}

// TestRestartGivesUpOnALongRead: a restart that a read still running holds
// back gives up after restartWait, well before the busy timeout, since new
// writes wait while it does.
func TestRestartGivesUpOnALongRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	o := withDefaults(Options{})
	w, r, k := testConn(t, path, o), testConn(t, path, o), testConn(t, path, o)
	for _, sql := range []string{"CREATE TABLE t(x)", "INSERT INTO t VALUES (1)"} {
		if err := w.exec(sql); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.exec("BEGIN; SELECT count(*) FROM t;"); err != nil {
		t.Fatal(err)
	}
	if err := w.exec("INSERT INTO t VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	restarted, err := restartWAL(k, o.BusyTimeout)
	if took := time.Since(start); restarted || err != nil || took >= o.BusyTimeout/2 {
		t.Fatalf("restart past a running read = %v, %v after %v; want it to give up well before the %v busy timeout",
			restarted, err, took, o.BusyTimeout)
	}
}

// testConn opens a connection to the database at path for the rest of the
// test.
func testConn(t *testing.T, path string, o Options) *conn {
	t.Helper()
	c, err := openConn(t.Context(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.close() })
	return c
}
