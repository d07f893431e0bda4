package consolidate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestNightSettlesOwedForgets: forgetting a shared original while the
// copy's agent is unavailable (its file corrupt) leaves the copy's forget
// owed; once the agent is back, the next night does it, with no other
// forget or share.
func TestNightSettlesOwedForgets(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	open := func() *store.Store {
		st, err := store.Open(ctx, store.Options{Dir: dir, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	ingest(t, st, "assistant", []capture.Input{say("The bins go out on Tuesday night.", now.Add(-24*time.Hour))})
	var copyID int64
	err := st.With(ctx, "assistant", false, func(a *store.Agent) error {
		sh, err := st.Share(ctx, a, 1, "household", true)
		copyID = sh.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	closeStore(t, st)
	file := filepath.Join(dir, "agents", "household.db")
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("not a database, not at all, not in the least"), 0o600); err != nil {
		t.Fatal(err)
	}
	st = open()
	if err := st.With(ctx, "assistant", false, func(a *store.Agent) error { return a.Delete(ctx, 1) }); err != nil {
		t.Fatal(err)
	}
	closeStore(t, st)
	if err := os.WriteFile(file, good, 0o600); err != nil {
		t.Fatal(err)
	}
	st = open()
	defer closeStore(t, st)
	copyHeld := func() bool {
		err := st.With(ctx, "household", false, func(a *store.Agent) error { _, err := a.Get(ctx, copyID); return err })
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	if !copyHeld() {
		t.Fatal("the copy is gone before the night: the agent was not unavailable at the forget")
	}
	if _, err := engine(st, Offline{}).Do(ctx, "assistant", Request{}); err != nil {
		t.Fatal(err)
	}
	if copyHeld() {
		t.Error("the night did not do the owed forget of the shared copy")
	}
}

func closeStore(t *testing.T, st *store.Store) {
	t.Helper()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
