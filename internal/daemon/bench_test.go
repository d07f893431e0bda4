package daemon

import (
	"errors"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
)

// TestOpenBenchIsTheDaemonsWiring: what `bench locomo` measures is the
// daemon's store (the capture-time profile on), its recall engine of the
// configuration, and the offline consolidation even when the
// configuration names a model; Close removes its data directory.
func TestOpenBenchIsTheDaemonsWiring(t *testing.T) {
	cfg := config.Default()
	cfg.LLM.Provider = "ollama"
	cfg.Recall.K = 7
	s, err := OpenBench(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := s.Config.DataDir
	if _, ok := s.Consolidate.Consolidator.(consolidate.Offline); !ok {
		t.Errorf("the benchmark's consolidator is %T, want the offline one", s.Consolidate.Consolidator)
	}
	if s.Recall.DefaultK != 7 || !s.Recall.CountUse || s.Recall.Claims == nil {
		t.Errorf("the benchmark's recall engine is not the daemon's of the configuration: %+v", s.Recall)
	}
	if _, err := s.Store.Create(t.Context(), "main"); err != nil {
		t.Fatal(err)
	}
	a, err := s.Store.Acquire(t.Context(), "main", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = capture.Ingest(t.Context(), a, []capture.Input{{Content: "Important, never forget: I'm allergic to penicillin.", Role: "user"}},
		capture.Limits{MaxContent: 1 << 16}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	lines, err := a.Profile(t.Context(), time.Time{})
	s.Store.Release(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Value != "penicillin" {
		t.Errorf("the benchmark's store built no profile at capture: %+v", lines)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the benchmark's data directory %s is still there after Close: %v", dir, err)
	}
}
