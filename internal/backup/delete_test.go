package backup

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
