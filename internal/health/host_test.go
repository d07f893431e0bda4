package health

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
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
	before := time.Now().Truncate(time.Millisecond)
	insert(t, st, day, "the boiler was serviced")
	after := time.Now()
	r := (&Host{Store: st, Location: time.UTC}).Collect(ctx)
	if len(r.Errors) != 0 || len(r.Agents) != 1 {
		t.Fatalf("Collect() = %d agents, errors %q; want 1 agent", len(r.Agents), r.Errors)
	}
	a := r.Agents[0]
	if a.Name != "main" || a.Memories != 1 || a.Backlog != 1 || a.DBBytes == 0 {
		t.Errorf("agent = %+v, want main with 1 memory, 1 unconsolidated and a file", a)
	}
	// A memory dated three days ago that arrived just now has waited since
	// it arrived, not since its date.
	if o := a.OldestUnconsolidated; o == nil || o.Before(before) || o.After(after) {
		t.Errorf("OldestUnconsolidated = %v, want its arrival, between %v and %v", o, before, after)
	}
	state, reasons := Evaluate(r, Thresholds{ConsolidationOverdue: 36 * time.Hour}, time.Now())
	if state != OK {
		t.Errorf("state with a memory dated 3 days ago that just arrived = %q %q, want ok", state, reasons)
	}
}

// TestBacklogAgeFromArrival: memories that have waited past the threshold
// since they arrived degrade the agent; one dated in the future waits from
// its day's start, not from its arrival.
func TestBacklogAgeFromArrival(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		st, err := store.Open(ctx, store.Options{Dir: t.TempDir(), Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		arrived := time.Now()
		insert(t, st, arrived.AddDate(0, 0, -20), "the boiler was serviced")
		time.Sleep(37 * time.Hour)
		r := (&Host{Store: st, Location: time.UTC}).Collect(ctx)
		if len(r.Agents) != 1 || r.Agents[0].OldestUnconsolidated == nil || !r.Agents[0].OldestUnconsolidated.Equal(arrived) {
			t.Fatalf("Collect() agents = %+v, want main waiting since %v", r.Agents, arrived)
		}
		if state, _ := Evaluate(r, Thresholds{ConsolidationOverdue: 36 * time.Hour}, time.Now()); state != Degraded {
			t.Errorf("state with a memory unconsolidated 37h after it arrived = %q, want degraded", state)
		}

		st2, err := store.Open(ctx, store.Options{Dir: t.TempDir(), Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		dayAfter := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)
		insert(t, st2, dayAfter.Add(9*time.Hour), "the dentist at nine")
		r = (&Host{Store: st2, Location: time.UTC}).Collect(ctx)
		if len(r.Agents) != 1 || r.Agents[0].OldestUnconsolidated == nil || !r.Agents[0].OldestUnconsolidated.Equal(dayAfter) {
			t.Errorf("Collect() agents = %+v, want a future-dated memory waiting from its day's start %v", r.Agents, dayAfter)
		}
	})
}

func insert(t *testing.T, st *store.Store, at time.Time, content string) {
	t.Helper()
	err := st.With(context.Background(), "main", true, func(a *store.Agent) error {
		_, err := a.Insert(context.Background(), []store.Memory{{SessionID: "s1", Timestamp: at, Role: "user",
			Content: content, Importance: 0.5, ContentHash: content}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUnchangedAgentIsNotOpened: a second reading of an agent nothing has
// written to since is the kept one, taken without acquiring the agent (the
// store's last use stays put), while a write is seen at the next reading.
func TestUnchangedAgentIsNotOpened(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	insert(t, st, time.Now(), "the boiler was serviced")
	h := &Host{Store: st, Location: time.UTC}
	// The checkpoint after the insert changes the files once, whenever it
	// runs; a pair of readings it falls between reads twice, rightly, so
	// one of three pairs must show the kept reading.
	kept := false
	for range 3 {
		if r := h.Collect(ctx); len(r.Agents) != 1 || r.Agents[0].Memories != 1 {
			t.Fatalf("Collect() agents = %+v, want main with 1 memory", r.Agents)
		}
		used := st.LastUsed()
		if r := h.Collect(ctx); len(r.Agents) != 1 || r.Agents[0].Memories != 1 {
			t.Fatalf("Collect() again: agents = %+v, want main with 1 memory", r.Agents)
		}
		if kept = st.LastUsed().Equal(used); kept {
			break
		}
	}
	if !kept {
		t.Error("an unchanged agent was acquired again at each second reading")
	}
	insert(t, st, time.Now(), "the gutters were cleared")
	if r := h.Collect(ctx); len(r.Agents) != 1 || r.Agents[0].Memories != 2 {
		t.Errorf("Collect() after a write: agents = %+v, want main with 2 memories", r.Agents)
	}
}

// TestFullAgentIsReadAgain: once an open agent refuses writes for want of
// space, its kept reading no longer stands in for it.
func TestFullAgentIsReadAgain(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Dir: t.TempDir(), Location: time.UTC, MaxPageCount: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	insert(t, st, time.Now(), "the boiler was serviced")
	h := &Host{Store: st, Location: time.UTC}
	if r := h.Collect(ctx); len(r.Agents) != 1 || r.Agents[0].StorageFull {
		t.Fatalf("Collect() agents = %+v, want main, not full", r.Agents)
	}
	err = st.With(ctx, "main", false, func(a *store.Agent) error {
		for i := 0; !a.StorageFull(); i++ {
			if i == 10000 {
				return errors.New("the agent never filled up")
			}
			_, _ = a.Insert(ctx, []store.Memory{{SessionID: "s1", Timestamp: time.Now(), Role: "user",
				Content: strings.Repeat(fmt.Sprintf("filler %d ", i), 40), Importance: 0.5, ContentHash: fmt.Sprint(i)}})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := h.Collect(ctx); len(r.Agents) != 1 || !r.Agents[0].StorageFull {
		t.Errorf("Collect() after the agent filled up: agents = %+v, want main full", r.Agents)
	}
}

// TestClosedAgentIsKeptOnceRead: an agent whose connections all closed (its
// WAL deleted) is opened by the next reading, which creates an empty WAL;
// that changes nothing stored, so the reading after is the kept one.
func TestClosedAgentIsKeptOnceRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, store.Options{Dir: dir, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	insert(t, st, time.Now(), "the boiler was serviced")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err = store.Open(ctx, store.Options{Dir: dir, Location: time.UTC}); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := &Host{Store: st, Location: time.UTC}
	if r := h.Collect(ctx); len(r.Agents) != 1 || r.Agents[0].Memories != 1 {
		t.Fatalf("Collect() agents = %+v, want main with 1 memory", r.Agents)
	}
	used := st.LastUsed()
	if r := h.Collect(ctx); len(r.Agents) != 1 || r.Agents[0].Memories != 1 {
		t.Fatalf("Collect() again: agents = %+v, want main with 1 memory", r.Agents)
	}
	if !st.LastUsed().Equal(used) {
		t.Error("the agent was acquired again though only its empty WAL appeared")
	}
}
