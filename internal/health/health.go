// Package health measures the box and its agents (gopsutil, the store) and
// judges the readings against thresholds: ok, degraded or failing, with reasons.
package health

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// States of a Report, from best to worst.
const (
	OK       = "ok"
	Degraded = "degraded"
	Failing  = "failing"
)

// diskFailingPercent is where a full disk stops being a warning: SQLite
// writes start failing soon after, whatever the configured threshold.
const diskFailingPercent = 98

// System is one reading of the host. Pointers are null when the host does
// not offer the value (no thermal sensor; no previous CPU sample yet).
type System = client.HealthSystem

// Agent is one reading of an agent's file and consolidation.
type Agent struct {
	Name     string `json:"name"`
	DBBytes  int64  `json:"db_bytes"`
	WALBytes int64  `json:"wal_bytes"`
	Memories int64  `json:"memories"`
	Backlog  int64  `json:"backlog"` // unconsolidated memories
	// OldestUnconsolidated is when the longest-waiting unconsolidated
	// memory started to wait: its arrival, not the date it carries (a note
	// dated weeks ago waits from its ingest), or its day's start if later.
	OldestUnconsolidated *time.Time `json:"oldest_unconsolidated,omitempty"`
	LastConsolidated     string     `json:"last_consolidated_date,omitempty"` // the latest day with a record
	LastSuccess          *time.Time `json:"last_success,omitempty"`           // when the last ok run finished
	LastSuccessAgeHours  *float64   `json:"last_success_age_hours,omitempty"`
	LastFailure          *Failure   `json:"last_failure,omitempty"`
	// Consolidation sums every run in the agent's file (for /metrics).
	Consolidation *store.RunTotals `json:"consolidation_runs,omitempty"`
	// FailingFiles are the watched folders' files whose last attempt failed, as "root/path: error".
	FailingFiles []string `json:"failing_files,omitempty"`
	// Unavailable says why the agent cannot be used at all (a corrupt
	// file) and how to restore it; the other readings are then zero.
	Unavailable string `json:"unavailable,omitempty"`
	// StorageFull is set while the agent's writes fail because the disk is
	// full (or it was opened read-only on a full disk).
	StorageFull bool `json:"storage_full,omitempty"`
}

// Failure is the latest failed consolidation run among the recent ones.
type Failure = client.HealthFailure

// Readings is what a Collector measured.
type Readings struct {
	System System  `json:"system"`
	Agents []Agent `json:"agents"`
	// Provider is the LLM provider's reachability; nil when none is probed.
	Provider *Provider `json:"provider,omitempty"`
	// Embeddings is the background embedder's state; nil when the semantic
	// arm of recall is off.
	Embeddings *Embeddings `json:"embeddings,omitempty"`
	// Replication is the agents' replicas; nil when replication is off.
	Replication *Replication `json:"replication,omitempty"`
	// Errors are the readings that could not be taken; the rest still count.
	Errors []string `json:"errors,omitempty"`
}

// Collector takes readings; tests give fixed ones.
type Collector interface {
	Collect(ctx context.Context) Readings
}

// CollectorFunc makes a function a Collector.
type CollectorFunc func(ctx context.Context) Readings

// Collect calls f.
func (f CollectorFunc) Collect(ctx context.Context) Readings { return f(ctx) }

// Thresholds turn readings into a state; zero values switch a check off.
type Thresholds struct {
	DiskPercent          float64
	Backlog              int64
	ConsolidationOverdue time.Duration
	TemperatureC         float64
	ReplicaLagWarn       time.Duration
}

// Report is the judged readings, as GET /health serves them.
type Report struct {
	State   string    `json:"state"`
	Reasons []string  `json:"reasons"`
	At      time.Time `json:"at"`
	Readings
}

// Evaluate judges readings taken at now.
func Evaluate(r Readings, th Thresholds, now time.Time) (state string, reasons []string) {
	state, reasons = OK, []string{}
	worse := func(s, reason string) {
		if rank(s) > rank(state) {
			state = s
		}
		reasons = append(reasons, reason)
	}
	sys := r.System
	switch {
	case sys.DiskTotal > 0 && sys.DiskPercent > diskFailingPercent:
		worse(Failing, fmt.Sprintf("disk %s is %.1f%% full (over %d%%)", sys.DiskPath, sys.DiskPercent, diskFailingPercent))
	case sys.DiskTotal > 0 && th.DiskPercent > 0 && sys.DiskPercent > th.DiskPercent:
		worse(Degraded, fmt.Sprintf("disk %s is %.1f%% full (over %g%%)", sys.DiskPath, sys.DiskPercent, th.DiskPercent))
	}
	if sys.TemperatureC != nil && th.TemperatureC > 0 && *sys.TemperatureC > th.TemperatureC {
		worse(Degraded, fmt.Sprintf("SoC temperature %.1f°C (over %g°C)", *sys.TemperatureC, th.TemperatureC))
	}
	if p := r.Provider; p != nil && !p.Reachable {
		worse(Degraded, fmt.Sprintf("LLM provider %s unreachable: %s", p.Name, p.Error))
	}
	for _, a := range r.Agents {
		if a.Unavailable != "" {
			worse(Failing, a.Unavailable)
			continue
		}
		if a.StorageFull {
			worse(Failing, fmt.Sprintf("agent %q refuses writes (507): the disk is full; free space and writes resume", a.Name))
		}
		if th.Backlog > 0 && a.Backlog > th.Backlog {
			worse(Degraded, fmt.Sprintf("agent %q has %d unconsolidated memories (over %d)", a.Name, a.Backlog, th.Backlog))
		}
		if th.ConsolidationOverdue > 0 && a.OldestUnconsolidated != nil {
			if age := now.Sub(*a.OldestUnconsolidated); age > th.ConsolidationOverdue {
				worse(Degraded, fmt.Sprintf("agent %q has memories unconsolidated for %s (over %s)",
					a.Name, age.Truncate(time.Hour), th.ConsolidationOverdue))
			}
		}
	}
	evaluateReplication(r.Replication, th, now, worse)
	return state, reasons
}

func rank(state string) int { return slices.Index([]string{OK, Degraded, Failing}, state) }

// Monitor serves reports from a Collector, caching one for TTL so that a
// busy /health or /metrics cannot keep the disk and the store awake, and logs
// each change of state once, at warning level.
type Monitor struct {
	Collector  Collector
	Thresholds Thresholds
	TTL        time.Duration // 0: 5s
	Logger     *slog.Logger
	Now        func() time.Time

	mu    sync.Mutex
	last  *Report
	state string // last state logged; "" before the first report
}

// Report returns the cached report, or a fresh one once it is older than TTL.
func (m *Monitor) Report(ctx context.Context) Report {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	ttl := m.TTL
	if ttl <= 0 {
		ttl = 5 * time.Second
	}
	if m.last != nil && now.Sub(m.last.At) < ttl && !now.Before(m.last.At) {
		return *m.last
	}
	r := Report{Readings: m.Collector.Collect(ctx), At: now}
	r.Agents = slices.Clone(r.Agents)
	for i, a := range r.Agents {
		if a.LastSuccess != nil {
			h := now.Sub(*a.LastSuccess).Hours()
			r.Agents[i].LastSuccessAgeHours = &h
		}
	}
	r.State, r.Reasons = Evaluate(r.Readings, m.Thresholds, now)
	m.last = &r
	if r.State != m.state {
		m.logChange(ctx, m.state, r)
		m.state = r.State
	}
	return r
}

func (m *Monitor) logChange(ctx context.Context, from string, r Report) {
	log := m.Logger
	if log == nil {
		return
	}
	if from == "" && r.State == OK {
		return // starting healthy is not news
	}
	if from == "" {
		from = "unknown"
	}
	log.Warn("health state changed", "from", from, "to", r.State, "reasons", r.Reasons)
}

func (m *Monitor) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}
