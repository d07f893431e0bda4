package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

const (
	noteAB       = "# Doc\n\n## A\n\nThe quokka lives on Rottnest.\n\n## B\n\nThe bilby digs burrows.\n"
	noteABEdited = "# Doc\n\n## A\n\nThe quokka lives on Rottnest.\n\n## B\n\nThe bilby digs deep burrows.\n"
)

// forgetFound deletes the one current memory matching term, as DELETE /v1/agents/{agent}/memories/{id}
// does.
func (e *env) forgetFound(term string) {
	e.t.Helper()
	ids, _ := e.found(term)
	if len(ids) != 1 {
		e.t.Fatalf("before forgetting: %q found %v, want one memory", term, ids)
	}
	e.agent(func(a *store.Agent) error { return a.Delete(context.Background(), ids[0]) })
}

// flaggedWith reports the flags of every memory, current or not, whose content holds term.
func (e *env) flaggedWith(term string) (flags []bool) {
	e.t.Helper()
	e.agent(func(a *store.Agent) error {
		list, _, err := a.List(context.Background(), store.ListOptions{Limit: 100000})
		for _, m := range list {
			if strings.Contains(m.Content, term) {
				flags = append(flags, m.Flagged)
			}
		}
		return err
	})
	return flags
}

// TestForgettingSticksForUploads: a section of an uploaded note that was forgotten does not come back
// when the note is uploaded again with another section edited.
func TestForgettingSticksForUploads(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	if out, err := e.ing.UploadAt(ctx, "main", "doc.md", []byte(noteAB), at); err != nil || out.Inserted != 2 {
		t.Fatalf("first upload = %+v, %v; want 2 memories", out, err)
	}
	e.forgetFound("quokka")
	if out, err := e.ing.UploadAt(ctx, "main", "doc.md", []byte(noteABEdited), at.Add(time.Hour)); err != nil {
		t.Fatalf("second upload = %+v, %v", out, err)
	}
	e.checkForgotten("quokka", "deep")
}

// TestForgettingSticksForRestoredVersions: a note put back to an earlier version gets that version's
// memories back, but not one whose content was forgotten since.
func TestForgettingSticksForRestoredVersions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	for i, note := range []string{noteAB, noteABEdited} {
		if _, err := e.ing.UploadAt(ctx, "main", "doc.md", []byte(note), at.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	e.forgetFound("quokka")
	if out, err := e.ing.UploadAt(ctx, "main", "doc.md", []byte(noteAB), at.Add(2*time.Hour)); err != nil || !out.Reused {
		t.Fatalf("back to the first version = %+v, %v; want its memories reused", out, err)
	}
	if ids, _ := e.found("quokka"); len(ids) != 0 {
		t.Errorf("forgotten section recalled from the restored version: %v", ids)
	}
	if ids, _ := e.found("bilby"); len(ids) != 1 {
		t.Errorf("restored version: bilby found %v, want one memory", ids)
	}
}

// TestForgettingSticksForWatchedFolders is TestForgettingSticksForUploads for a note in a mirror-mode
// watched folder, edited on disk.
func TestForgettingSticksForWatchedFolders(t *testing.T) {
	e := newEnv(t)
	e.write("doc.md", noteAB)
	w := NewWatcher(e.folder(), e.ing, nil)
	if _, err := w.ScanOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.forgetFound("quokka")
	e.write("doc.md", noteABEdited)
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(e.root, "doc.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ScanOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.checkForgotten("quokka", "deep")
}

// checkForgotten: the forgotten section is stored flagged (listed, never recalled), the edited one is
// current.
func (e *env) checkForgotten(forgotten, edited string) {
	e.t.Helper()
	if ids, _ := e.found(forgotten); len(ids) != 0 {
		e.t.Errorf("forgotten section recalled again: %v", ids)
	}
	if flags := e.flaggedWith(forgotten); len(flags) != 1 || !flags[0] {
		e.t.Errorf("forgotten section's memories: flagged %v, want one, flagged", flags)
	}
	if ids, _ := e.found(edited); len(ids) != 1 {
		e.t.Errorf("edited section: found %v, want one memory", ids)
	}
}
