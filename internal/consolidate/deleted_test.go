package consolidate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestConsolidationDoesNotRecreateADeletedAgent: the nightly catch-up and
// an on-demand run skip or refuse a deleted agent; no file comes back.
func TestConsolidationDoesNotRecreateADeletedAgent(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.With(t.Context(), "gone", true, func(a *store.Agent) error {
		_, err := a.Insert(t.Context(), []store.Memory{{Content: "x", ContentHash: "x", Timestamp: time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete(t.Context(), "gone", func(*store.Agent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
		Now: func() time.Time { return time.Date(2026, 2, 3, 1, 0, 0, 0, time.UTC) }}
	e.CatchUp(t.Context())
	if _, err := e.RunAll(t.Context(), "gone", true); !errors.Is(err, store.ErrNoAgent) {
		t.Errorf("a run for the deleted agent: err = %v, want ErrNoAgent", err)
	}
	if _, err := os.Stat(filepath.Join(st.Dir(), "gone.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("consolidation recreated the agent's file: %v", err)
	}
}
