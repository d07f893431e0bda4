package daemon

import (
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// The store the daemon opens indexes the kinds of thing memories name (the
// store has no lexicon of its own: the composition root gives it recall's),
// so a search by kind finds "Chicago" for "city".
func TestStoreOptionsIndexKinds(t *testing.T) {
	a := agentOfStoreOptions(t)
	if _, err := a.Insert(t.Context(), []store.Memory{{Content: "We drove to Chicago for the game", Timestamp: time.Now(), ContentHash: "a"}}); err != nil {
		t.Fatal(err)
	}
	hits, err := a.SearchMemories(t.Context(), store.SearchOptions{Terms: []string{"city"}, Limit: 5, Kinds: true})
	if err != nil || len(hits) != 1 {
		t.Errorf("by kind, city: %d hits (%v), want the Chicago memory", len(hits), err)
	}
}

// The store's connection timeouts are the storage section's.
func TestStoreOptionsCloseConnectionsAsConfigured(t *testing.T) {
	cfg := config.Default()
	cfg.Storage.ConnIdleClose = config.Duration(45 * time.Second)
	cfg.Storage.SpareConnIdleClose = config.Duration(5 * time.Second)
	o := StoreOptions(cfg, nil)
	if o.ConnIdleClose != 45*time.Second || o.SpareConnIdleClose != 5*time.Second {
		t.Errorf("ConnIdleClose %v, SpareConnIdleClose %v; want 45s and 5s, the configuration's", o.ConnIdleClose, o.SpareConnIdleClose)
	}
}
