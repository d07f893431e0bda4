package watch

import (
	"context"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestAFileDatedAheadIsDatedNow: a file whose own date is further ahead than capture allows (a
// clock gone wrong) is stored dated now, not refused and not dated where recall never looks.
func TestAFileDatedAheadIsDatedNow(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	before := time.Now()
	out, err := e.ing.IngestContent(ctx, "main", "/eval", "ahead.md", []byte("# Ahead\n\nThe file's clock ran fast.\n"),
		before.Add(72*time.Hour))
	if err != nil || out.Status != store.FileOK || out.Inserted != 1 {
		t.Fatalf("IngestContent = %+v, %v", out, err)
	}
	e.agent(func(a *store.Agent) error {
		list, _, err := a.List(ctx, store.ListOptions{})
		if err != nil {
			return err
		}
		if ts := list[0].Timestamp; ts.Before(before.Add(-time.Second)) || ts.After(time.Now()) {
			t.Errorf("memory dated %v, want now (%v)", ts, before)
		}
		return nil
	})
}
