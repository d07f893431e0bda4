package backup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestDeleteAgentBacksUpFirst: the backup holds every memory the agent
// had when it went; a backup that cannot be written keeps the agent.
func TestDeleteAgentBacksUpFirst(t *testing.T) {
	st := openStore(t, t.TempDir())
	insert(t, st, "kept", 3, "k")
	blocked := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := DeleteAgent(t.Context(), st, "kept", Options{Dir: blocked})
	var fe *FailedError
	if !errors.As(err, &fe) {
		t.Fatalf("delete with an unwritable backup directory: err = %v, want a FailedError", err)
	}
	if n := count(t, st, "kept"); n != 3 {
		t.Fatalf("after the failed delete the agent has %d memories, want 3", n)
	}
	dir := t.TempDir()
	saved, removed, err := DeleteAgent(t.Context(), st, "kept", Options{Dir: dir})
	if err != nil || len(removed) == 0 {
		t.Fatalf("delete = %+v, %q, %v", saved, removed, err)
	}
	restored := openStore(t, t.TempDir())
	if err := os.Rename(saved.Path, filepath.Join(restored.Dir(), "kept.db")); err != nil {
		t.Fatal(err)
	}
	if n := count(t, restored, "kept"); n != 3 {
		t.Errorf("the backup holds %d memories, want 3", n)
	}
}

// TestDeleteCorruptAgentSaysWhatToRemove: a corrupt agent, whole or in its middle pages, cannot be
// backed up, so it is not deleted; the error says so, names every file to move away and the
// newest backup to restore when there is one, and the files are untouched.
func TestDeleteCorruptAgentSaysWhatToRemove(t *testing.T) {
	for _, how := range []string{"garbage", "middle"} {
		t.Run(how, func(t *testing.T) {
			dataDir, backups := t.TempDir(), t.TempDir()
			st := openStore(t, dataDir)
			insert(t, st, "bad", 300, "words to fill the pages of the file")
			wants := []string{"no backup to restore"}
			if how == "middle" {
				saved, err := Agent(t.Context(), st, "bad", Options{Dir: backups})
				if err != nil {
					t.Fatal(err)
				}
				wants = []string{"dormouse restore --agent bad --from " + saved.Path}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(st.Dir(), "bad.db")
			b, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			from := 0
			if how == "middle" { // page 1, the schema, intact: the file opens
				from = len(b) / 3
			}
			for i := from; i < len(b)*2/3; i++ {
				b[i] = byte(i*7 + 3)
			}
			if err := os.WriteFile(db, b, 0o600); err != nil {
				t.Fatal(err)
			}

			st = openStore(t, dataDir)
			_, _, err = DeleteAgent(t.Context(), st, "bad", Options{Dir: backups})
			var ce *CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, store.ErrUnavailable) {
				t.Fatalf("delete of a corrupt agent: err = %v, want a CorruptError", err)
			}
			t.Log(err)
			for _, want := range append(wants, db, "stop the daemon") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if got, err := os.ReadFile(db); err != nil || !bytes.Equal(got, b) {
				t.Errorf("the corrupt file after the refused delete: %d bytes, %v; want it untouched", len(got), err)
			}
		})
	}
}
