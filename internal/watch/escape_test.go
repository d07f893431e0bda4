package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// outsideFolder makes a folder beside the watched one holding x.md, and swaps e.root/sub for a
// symlink to it: what an attacker does within the settle window of an event on sub/x.md.
func (e *env) outsideFolder() string {
	e.t.Helper()
	outside := e.t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.md"), []byte("The outside platypus is a secret.\n"), 0o600); err != nil {
		e.t.Fatal(err)
	}
	e.write("sub/x.md", "The inside echidna.\n")
	if err := os.RemoveAll(filepath.Join(e.root, "sub")); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.root, "sub")); err != nil {
		e.t.Fatal(err)
	}
	return outside
}

// TestNoEscapeThroughASymlinkedFolder: an event on sub/x.md settles after sub became a symlink to
// outside the folder: nothing outside is read.
func TestNoEscapeThroughASymlinkedFolder(t *testing.T) {
	e := newEnv(t)
	e.outsideFolder()
	w := NewWatcher(e.folder(), e.ing, nil)
	if err := w.processBatch(context.Background(), []string{"sub/x.md"}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := e.found("platypus"); len(ids) != 0 {
		t.Errorf("a file outside the folder was stored: %v", ids)
	}
	if got, ok := e.trackedFiles()["sub/x.md"]; ok && got.Status != "skipped" {
		t.Errorf("sub/x.md tracked %+v, want skipped or untracked", got)
	}
}

// TestInboxMovesNothingFromOutside: in an inbox with move, a file reached through a symlinked
// folder is neither stored nor moved into processed/ or failed/.
func TestInboxMovesNothingFromOutside(t *testing.T) {
	e := newEnv(t)
	outside := e.outsideFolder()
	f := e.folder()
	f.Mode, f.Move = "inbox", true
	w := NewWatcher(f, e.ing, nil)
	if err := w.processBatch(context.Background(), []string{"sub/x.md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.md")); err != nil {
		t.Errorf("the outside file was moved: %v", err)
	}
	if ids, _ := e.found("platypus"); len(ids) != 0 {
		t.Errorf("a file outside the folder was stored: %v", ids)
	}
}

// TestInboxMovesNothingOutThroughProcessed: processed/ swapped for a symlink to outside the folder
// does not take the inbox's files out of it.
func TestInboxMovesNothingOutThroughProcessed(t *testing.T) {
	e := newEnv(t)
	outside := e.t.TempDir()
	if err := os.Symlink(outside, filepath.Join(e.root, processedDir)); err != nil {
		t.Fatal(err)
	}
	e.write("receipt.txt", "Paid the plumber 120 euros.\n")
	f := e.folder()
	f.Mode, f.Move = "inbox", true
	if _, err := NewWatcher(f, e.ing, nil).ScanOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "receipt.txt")); err == nil {
		t.Error("the inbox file was moved outside the folder through processed/")
	}
	if _, err := os.Stat(filepath.Join(e.root, "receipt.txt")); err != nil {
		t.Errorf("the inbox file is gone: %v", err)
	}
}
