package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/dormouse-dev/dormouse/internal/config"
)

// OpenBench builds the services of cfg over a fresh temporary data
// directory, removed by Close: what `dormouse bench locomo` measures, so
// its figures are those of the daemon's own store (the capture-time
// profile on), consolidation and recall engine, never a copy of their
// wiring. The benchmark is offline (no model, no embeddings, no images)
// and keeps every raw memory (retention would forget LoCoMo's turns, told
// in 2023), and its days are UTC's, as the data's dates are.
func OpenBench(ctx context.Context, cfg config.Config, log *slog.Logger) (*Services, error) {
	dir, err := os.MkdirTemp("", "dormouse-bench-")
	if err != nil {
		return nil, fmt.Errorf("make the benchmark's data directory: %w", err)
	}
	cfg.DataDir = dir
	cfg.Timezone = "UTC"
	cfg.LLM.Provider, cfg.LLM.Vision = "offline", false
	cfg.Recall.Embeddings.Enabled = false
	cfg.Retention.RawDays = 0
	s, err := Open(ctx, cfg, nil, log)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// First in the list, so Close (the last added first) removes the
	// directory once the store has closed.
	s.closers = append([]func() error{func() error { return os.RemoveAll(dir) }}, s.closers...)
	return s, nil
}
