package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestHealthMonitorFromConfig(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	st, err := store.Open(t.Context(), StoreOptions(cfg, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := HealthMonitor(cfg, nil, st, nil)
	want := health.Thresholds{DiskPercent: 90, Backlog: 500, ConsolidationOverdue: 36 * time.Hour, TemperatureC: 80,
		ReplicaLagWarn: 30 * time.Second}
	if diff := cmp.Diff(m.Thresholds, want); diff != "" {
		t.Errorf("thresholds from the defaults (-got +want):\n%s", diff)
	}
	r := m.Report(context.Background())
	if r.System.DiskPath != cfg.DataDir || r.System.DiskTotal == 0 {
		t.Errorf("report measures disk %q (%d bytes), want the data directory %q", r.System.DiskPath, r.System.DiskTotal, cfg.DataDir)
	}
}
