package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLeaveCheckpointsKeepsFramesInTheWAL: with LeaveCheckpoints no write
// reaches the database file, not through the background checkpoint, a
// vacuum, an idle connection's close or the store's close: every frame
// stays in the WAL for the process that owns the checkpoints (Litestream)
// to read first. Without it the same writes do reach the file, so the test
// can tell.
func TestLeaveCheckpointsKeepsFramesInTheWAL(t *testing.T) {
	for _, leave := range []bool{true, false} {
		t.Run(fmt.Sprintf("leave=%v", leave), func(t *testing.T) {
			dir := t.TempDir()
			o := Options{Dir: dir, LeaveCheckpoints: leave, Location: time.UTC, ConnIdleClose: time.Second}
			path := filepath.Join(dir, "agents", "keeper.db")

			s := openTest(t, o)
			a := acquire(t, s, "keeper")
			if _, err := a.Insert(t.Context(), []Memory{mem("the first note", "s")}); err != nil {
				t.Fatal(err)
			}
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 40 {
				if _, err := a.Insert(t.Context(), []Memory{mem(fmt.Sprintf("note number %d about the garden", i), "s")}); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(3 * checkpointEvery) // the background checkpoint's turn
			if _, err := a.Vacuum(t.Context()); err != nil {
				t.Fatal(err)
			}
			s.Release(a)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			wal, _ := os.Stat(path + "-wal")
			changed := !bytes.Equal(before, after)
			if leave && (changed || wal == nil || wal.Size() == 0) {
				t.Fatalf("with LeaveCheckpoints the database file changed (%v, %d -> %d bytes) or the WAL is gone (%v)",
					changed, len(before), len(after), wal)
			}
			if !leave && !changed {
				t.Fatalf("without LeaveCheckpoints 41 writes never reached the database file: the test cannot tell")
			}

			s2 := openTest(t, o)
			st, err := acquire(t, s2, "keeper").Stats(t.Context())
			if err != nil || st.Memories != 41 {
				t.Fatalf("reopened: %d memories, %v; want all 41", st.Memories, err)
			}
		})
	}
}
