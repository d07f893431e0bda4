package daemon

import (
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// The store the daemon opens builds the profile of a memory the extractor
// marks important (one recall pins) as soon as it is stored; an ordinary
// memory waits for the night.
func TestStoreOptionsBuildTheProfileAtCapture(t *testing.T) {
	a := agentOfStoreOptions(t)
	now := time.Now()
	res, err := capture.Ingest(t.Context(), a, []capture.Input{
		{Content: "Important, never forget: I'm allergic to penicillin.", Role: "user"},
		{Content: "Our cat Miso knocked over a glass this morning.", Role: "user"},
	}, capture.Limits{MaxContent: 1 << 16}, now)
	if err != nil {
		t.Fatal(err)
	}
	for i, important := range []bool{true, false} {
		m, err := a.Get(t.Context(), res[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if (m.Importance >= recall.DefaultTuning.PinImportance) != important {
			t.Fatalf("the test's premise: memory %d has importance %.2f (pinned from %.2f)", i, m.Importance, recall.DefaultTuning.PinImportance)
		}
	}
	lines, err := a.Profile(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Key != "allergy" || lines[0].Value != "penicillin" || len(lines[0].SourceMemoryIDs) != 1 || lines[0].SourceMemoryIDs[0] != res[0].ID {
		t.Errorf("profile at capture = %+v; want the penicillin allergy citing memory %d, and not the cat", lines, res[0].ID)
	}
}

// agentOfStoreOptions is agent main of a store opened with the daemon's
// options on the default configuration.
func agentOfStoreOptions(t *testing.T) *store.Agent {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	st, err := store.Open(t.Context(), StoreOptions(cfg, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a, err := st.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Release(a) })
	return a
}
