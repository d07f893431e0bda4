package watch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestIngestDoesNotRecreateADeletedAgent: a watched folder that names a
// deleted agent (AutoCreate, as the daemon wires it) gets an error, and no
// agent file comes back.
func TestIngestDoesNotRecreateADeletedAgent(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in := &Ingester{Store: st, AutoCreate: true, Location: time.UTC}
	mtime := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	if _, err := in.IngestContent(t.Context(), "notes", "/notes", "a.md", []byte("Alice moved to Chicago."), mtime); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete(t.Context(), "notes", func(*store.Agent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_, err = in.IngestContent(t.Context(), "notes", "/notes", "b.md", []byte("Bob likes tea."), mtime)
	var de *store.DeletedError
	if !errors.As(err, &de) {
		t.Errorf("ingest into the deleted agent: err = %v, want a DeletedError", err)
	}
	if _, err := os.Stat(filepath.Join(st.Dir(), "notes.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the watched folder recreated the agent's file: %v", err)
	}
}
