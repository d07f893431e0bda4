package store

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWALReplayIsLogged copies an agent's file and WAL while its store has
// them open, as a power cut leaves them, opens the copy, and checks that
// the journal says the WAL was replayed and that every memory is there.
func TestWALReplayIsLogged(t *testing.T) {
	live := openTest(t, Options{})
	a := acquire(t, live, "main")
	var mems []Memory
	for i := range 20 {
		mems = append(mems, mem(fmt.Sprintf("memory %d before the cut", i), "s"))
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	cut := t.TempDir()
	if err := os.Mkdir(filepath.Join(cut, "agents"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{".db", ".db-wal"} {
		b, err := os.ReadFile(filepath.Join(live.dir, "main"+suffix))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cut, "agents", "main"+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	after := openTest(t, Options{Dir: cut, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	st, err := acquire(t, after, "main").Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 20 {
		t.Errorf("after the cut: %d memories, want 20", st.Memories)
	}
	if got := log.String(); !strings.Contains(got, "WAL replayed") || !strings.Contains(got, "agent=main") ||
		!strings.Contains(got, "recovered") {
		t.Errorf("log = %q, want the WAL's replay of agent main", got)
	}
}
