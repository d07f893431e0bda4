package health

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v3/cpu"
	"github.com/shirou/gopsutil/v3/disk"
	"github.com/shirou/gopsutil/v3/host"
	"github.com/shirou/gopsutil/v3/load"
	"github.com/shirou/gopsutil/v3/mem"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// Host collects readings of this machine (through gopsutil, which honours
// HOST_PROC and HOST_SYS) and of every agent in Store.
type Host struct {
	DataDir  string         // whose filesystem's usage is measured
	Store    *store.Store   // nil: no agent readings
	Location *time.Location // the store's day boundaries; nil is time.Local
	Provider *ProviderProbe // nil: the provider is not probed
	// Embeddings reports the background embedder; nil: the semantic arm is off.
	Embeddings interface{ Status() Embeddings }
	// Replication reports the agents' replicas; nil: replication is off.
	Replication func(ctx context.Context) *Replication

	mu      sync.Mutex
	prevCPU *cpu.TimesStat // the previous sample, for CPU % between samples

	readMu sync.Mutex
	read   map[string]keptReading // by agent name
}

// keptReading is an agent's last reading and the stamp of its files when it
// was taken.
type keptReading struct {
	stamp store.FileStamp
	at    time.Time
	a     Agent
}

// readingMaxAge bounds how long an agent's reading is reused while its files
// look unchanged, in case a change kept their sizes and times (two commits
// within the file system's clock tick, the WAL written again from its start).
const readingMaxAge = time.Hour

// Collect implements Collector.
func (h *Host) Collect(ctx context.Context) Readings {
	var r Readings
	fail := func(what string, err error) { r.Errors = append(r.Errors, fmt.Sprintf("%s: %v", what, err)) }
	r.System = h.system(ctx, fail)
	if h.Store != nil {
		r.Agents = h.agents(ctx, fail)
	}
	if h.Provider != nil {
		p := h.Provider.Check(ctx)
		r.Provider = &p
	}
	if h.Embeddings != nil {
		e := h.Embeddings.Status()
		r.Embeddings = &e
	}
	if h.Replication != nil {
		r.Replication = h.Replication(ctx)
	}
	return r
}

func (h *Host) system(ctx context.Context, fail func(string, error)) System {
	var s System
	if ts, err := cpu.TimesWithContext(ctx, false); err != nil || len(ts) == 0 {
		fail("cpu", fmt.Errorf("no cpu times: %v", err))
	} else {
		s.CPUPercent = h.cpuPercent(ts[0])
	}
	if l, err := load.AvgWithContext(ctx); err != nil {
		fail("load", err)
	} else {
		s.Load1, s.Load5, s.Load15 = l.Load1, l.Load5, l.Load15
	}
	// VirtualMemory reads /proc/meminfo, swap included; SwapMemory would ask
	// sysinfo(2) and so ignore HOST_PROC.
	if m, err := mem.VirtualMemoryWithContext(ctx); err != nil {
		fail("memory", err)
	} else {
		s.MemUsedBytes, s.MemTotalBytes = m.Total-m.Available, m.Total
		s.SwapUsedBytes, s.SwapTotal = m.SwapTotal-m.SwapFree, m.SwapTotal
	}
	if h.DataDir != "" {
		s.DiskPath = h.DataDir
		if u, err := disk.UsageWithContext(ctx, h.DataDir); err != nil {
			fail("disk", err)
		} else {
			s.DiskUsedBytes, s.DiskTotal, s.DiskPercent = u.Used, u.Total, u.UsedPercent
		}
	}
	// Sensors that cannot be read are warnings; a host without any is fine.
	temps, _ := host.SensorsTemperaturesWithContext(ctx)
	s.TemperatureC = socTemperature(temps)
	if up, err := host.UptimeWithContext(ctx); err != nil {
		fail("uptime", err)
	} else {
		s.UptimeSeconds = up
	}
	return s
}

// cpuPercent is the busy share of CPU time since the previous sample; nil on
// the first one.
func (h *Host) cpuPercent(t cpu.TimesStat) *float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	prev := h.prevCPU
	h.prevCPU = &t
	if prev == nil {
		return nil
	}
	idle := func(t *cpu.TimesStat) float64 { return t.Idle + t.Iowait }
	total := func(t *cpu.TimesStat) float64 {
		// Guest time is already counted in user and nice.
		return t.User + t.Nice + t.System + t.Idle + t.Iowait + t.Irq + t.Softirq + t.Steal
	}
	dt := total(&t) - total(prev)
	if dt <= 0 {
		return nil
	}
	p := 100 * (dt - (idle(&t) - idle(prev))) / dt
	p = min(max(p, 0), 100)
	return &p
}

// socTemperature picks the SoC's sensor: on a Pi the thermal zone
// "cpu-thermal" (or hwmon "cpu_thermal"); elsewhere the hottest sensor, which
// is what throttles first.
func socTemperature(ts []host.TemperatureStat) *float64 {
	var best *float64
	for _, t := range ts {
		if t.Temperature <= 0 {
			continue
		}
		v := t.Temperature
		key := strings.ToLower(t.SensorKey)
		if strings.Contains(key, "cpu") || strings.Contains(key, "soc") {
			return &v
		}
		if best == nil || v > *best {
			best = &v
		}
	}
	return best
}

// RunDurationBoundsMS are the buckets of the consolidation run duration
// histogram: a second to the units' two-hour limit.
var RunDurationBoundsMS = []int64{1e3, 5e3, 15e3, 60e3, 300e3, 900e3, 3600e3, 7200e3}

// runsLooked is how many recent runs are searched for the last success and
// failure: enough for weeks of nightly runs, cheap to read.
const runsLooked = 50

func (h *Host) agents(ctx context.Context, fail func(string, error)) []Agent {
	names, err := h.Store.Agents()
	if err != nil {
		fail("agents", err)
		return nil
	}
	slices.Sort(names)
	loc := h.Location
	if loc == nil {
		loc = time.Local
	}
	kept := h.keptReadings()
	next := make(map[string]keptReading, len(names))
	out := make([]Agent, 0, len(names))
	for _, name := range names {
		if k, ok := h.unchanged(name, kept[name]); ok {
			next[name] = k
			out = append(out, k.a)
			continue
		}
		k, err := h.readAgent(ctx, name, loc)
		if errors.Is(err, store.ErrUnavailable) {
			out = append(out, Agent{Name: name, Unavailable: err.Error()})
			continue
		}
		if err != nil {
			fail("agent "+name, err)
			continue
		}
		if k.at != (time.Time{}) {
			next[name] = k
		}
		out = append(out, k.a)
	}
	h.keepReadings(next)
	return out
}

// readAgent reads one agent; the result is worth keeping (at is set) only if
// its files could be stamped first, so a write between stamp and read only
// ever makes the kept reading newer than its stamp.
func (h *Host) readAgent(ctx context.Context, name string, loc *time.Location) (keptReading, error) {
	stamp, stampErr := h.Store.FileStamp(name)
	var k keptReading
	err := h.Store.With(ctx, name, false, func(sa *store.Agent) error {
		var err error
		k.a, err = agentReading(ctx, sa, loc)
		return err
	})
	if err == nil && stampErr == nil {
		k.stamp, k.at = stamp, time.Now()
	}
	return k, err
}

// unchanged reports whether k, the agent's kept reading, still holds: its
// files are as they were, it is not too old, and the agent neither was nor
// is refusing writes (a refused write need not change the files). Reusing
// it leaves the agent unopened, so scrapes of /metrics and the periodic
// summary let idle agents close their connections and the store go quiet.
func (h *Host) unchanged(name string, k keptReading) (keptReading, bool) {
	if k.at == (time.Time{}) || time.Since(k.at) > readingMaxAge || k.a.StorageFull || h.Store.StorageFull(name) {
		return k, false
	}
	stamp, err := h.Store.FileStamp(name)
	return k, err == nil && stamp == k.stamp
}

func (h *Host) keptReadings() map[string]keptReading {
	h.readMu.Lock()
	defer h.readMu.Unlock()
	return h.read
}

func (h *Host) keepReadings(m map[string]keptReading) {
	h.readMu.Lock()
	defer h.readMu.Unlock()
	h.read = m
}

// waitingSince is when the longest-waiting unconsolidated memory started
// to wait: when it arrived, or when its day began if that is later (a
// memory dated tomorrow waits for its day like today's do). Nil: none wait.
func waitingSince(days []store.WaitingDay, loc *time.Location) *time.Time {
	var oldest *time.Time
	for _, d := range days {
		since := d.FirstArrival
		if start, err := time.ParseInLocation(time.DateOnly, d.Day, loc); err == nil && start.After(since) {
			since = start
		}
		if oldest == nil || since.Before(*oldest) {
			oldest = &since
		}
	}
	return oldest
}

func agentReading(ctx context.Context, sa *store.Agent, loc *time.Location) (Agent, error) {
	st, err := sa.Stats(ctx)
	if err != nil {
		return Agent{}, err
	}
	a := Agent{Name: sa.Name(), DBBytes: st.DBBytes, WALBytes: st.WALBytes, Memories: st.Memories,
		Backlog: st.Unconsolidated, LastConsolidated: st.LastConsolidated, StorageFull: sa.StorageFull()}
	failing, err := sa.FailedFiles(ctx) // watched folders
	if err != nil {
		return Agent{}, err
	}
	for _, f := range failing {
		a.FailingFiles = append(a.FailingFiles, f.Root+"/"+f.Path+": "+f.Error)
	}
	if st.Unconsolidated > 0 {
		days, err := sa.WaitingDays(ctx)
		if err != nil {
			return Agent{}, err
		}
		a.OldestUnconsolidated = waitingSince(days, loc)
	}
	totals, err := sa.RunTotals(ctx, RunDurationBoundsMS)
	if err != nil {
		return Agent{}, err
	}
	a.Consolidation = &totals
	runs, err := sa.Runs(ctx, "", runsLooked)
	if err != nil {
		return Agent{}, err
	}
	for _, r := range runs { // newest first
		switch {
		case r.Status == store.RunOK && a.LastSuccess == nil:
			t := r.FinishedAt
			a.LastSuccess = &t
		case r.Status == store.RunFailed && a.LastFailure == nil:
			a.LastFailure = &Failure{Day: r.Day, At: r.FinishedAt, Error: r.Error}
		}
	}
	return a, nil
}
