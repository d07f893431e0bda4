package health

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v3/host"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestHostParsesProcAndSys points gopsutil at the fake trees in testdata
// through the same HOST_PROC and HOST_SYS a container deployment would set.
func TestHostParsesProcAndSys(t *testing.T) {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	proc := filepath.Join(t.TempDir(), "proc")
	if err := os.CopyFS(proc, os.DirFS(abs("testdata/proc"))); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOST_PROC", proc)
	t.Setenv("HOST_SYS", abs("testdata/sys"))

	h := &Host{DataDir: t.TempDir()}
	r := h.Collect(context.Background())
	if len(r.Errors) != 0 {
		t.Errorf("Collect() errors: %q", r.Errors)
	}
	s := r.System
	if s.Load1 != 0.42 || s.Load5 != 0.36 || s.Load15 != 0.30 {
		t.Errorf("load = %v %v %v, want 0.42 0.36 0.30 from testdata/proc/loadavg", s.Load1, s.Load5, s.Load15)
	}
	if want := uint64(3884096 * 1024); s.MemTotalBytes != want {
		t.Errorf("MemTotalBytes = %d, want %d", s.MemTotalBytes, want)
	}
	if want := uint64((3884096 - 2942208) * 1024); s.MemUsedBytes != want {
		t.Errorf("MemUsedBytes = %d, want %d (total - available)", s.MemUsedBytes, want)
	}
	if s.SwapTotal != 102396*1024 || s.SwapUsedBytes != (102396-51196)*1024 {
		t.Errorf("swap = %d of %d, want %d of %d", s.SwapUsedBytes, s.SwapTotal, (102396-51196)*1024, 102396*1024)
	}
	if s.TemperatureC == nil || *s.TemperatureC != 61.835 {
		t.Errorf("TemperatureC = %v, want 61.835 from thermal_zone0", s.TemperatureC)
	}
	if s.CPUPercent != nil {
		t.Errorf("CPUPercent = %v on the first sample, want null", *s.CPUPercent)
	}
	if s.DiskTotal == 0 || s.DiskPath != h.DataDir {
		t.Errorf("disk = %d bytes at %q, want the temp dir's filesystem", s.DiskTotal, s.DiskPath)
	}

	// 1000 more jiffies of which 250 idle and 0 iowait: 75% busy.
	stat := "cpu  1500 0 750 8250 500 0 0 0 0 0\n"
	if err := os.WriteFile(filepath.Join(proc, "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
	s = h.Collect(context.Background()).System
	if s.CPUPercent == nil || math.Abs(*s.CPUPercent-75) > 1e-9 {
		t.Errorf("CPUPercent = %v, want 75", s.CPUPercent)
	}
}

func TestSOCTemperature(t *testing.T) {
	got := socTemperature([]host.TemperatureStat{{SensorKey: "nvme_composite", Temperature: 45},
		{SensorKey: "cpu_thermal_input", Temperature: 55}, {SensorKey: "acpitz", Temperature: 70}})
	if got == nil || *got != 55 {
		t.Errorf("socTemperature() = %v, want the cpu sensor's 55", got)
	}
	if got := socTemperature(nil); got != nil {
		t.Errorf("socTemperature(nil) = %v, want nil", *got)
	}
}

func TestHostAgents(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	day := time.Now().UTC().Add(-72 * time.Hour)
	err = st.With(ctx, "main", true, func(a *store.Agent) error {
		_, err := a.Insert(ctx, []store.Memory{{SessionID: "s1", Timestamp: day, Role: "user",
			Content: "the boiler was serviced", Importance: 0.5, ContentHash: "boiler"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := (&Host{Store: st, Location: time.UTC}).Collect(ctx)
	if len(r.Errors) != 0 || len(r.Agents) != 1 {
		t.Fatalf("Collect() = %d agents, errors %q; want 1 agent", len(r.Agents), r.Errors)
	}
	a := r.Agents[0]
	if a.Name != "main" || a.Memories != 1 || a.Backlog != 1 || a.DBBytes == 0 {
		t.Errorf("agent = %+v, want main with 1 memory, 1 unconsolidated and a file", a)
	}
	want := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	if a.OldestUnconsolidated == nil || !a.OldestUnconsolidated.Equal(want) {
		t.Errorf("OldestUnconsolidated = %v, want %v", a.OldestUnconsolidated, want)
	}
	state, _ := Evaluate(r, Thresholds{ConsolidationOverdue: 36 * time.Hour}, time.Now())
	if state != Degraded {
		t.Errorf("state with a 3-day-old unconsolidated memory = %q, want degraded", state)
	}
}
