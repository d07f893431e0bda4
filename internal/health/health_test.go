package health

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

var (
	now    = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	std    = Thresholds{DiskPercent: 90, Backlog: 500, ConsolidationOverdue: 36 * time.Hour, TemperatureC: 80}
	diskAt = func(pct float64) System {
		return System{DiskPath: "/var/lib/dormouse", DiskTotal: 100, DiskUsedBytes: uint64(pct), DiskPercent: pct}
	}
)

func TestEvaluate(t *testing.T) {
	hot := diskAt(50)
	hot.TemperatureC = ptr(82.5)
	cool := diskAt(50)
	cool.TemperatureC = ptr(79.9)
	tests := []struct {
		name        string
		r           Readings
		wantState   string
		wantReasons []string
	}{
		{name: "all fine", r: Readings{System: cool, Agents: []Agent{{Name: "main", Backlog: 500,
			OldestUnconsolidated: ptr(now.Add(-36 * time.Hour))}}}, wantState: OK, wantReasons: []string{}},
		{name: "no readings at all", r: Readings{}, wantState: OK, wantReasons: []string{}},
		{name: "disk over threshold", r: Readings{System: diskAt(90.5)}, wantState: Degraded,
			wantReasons: []string{"disk /var/lib/dormouse is 90.5% full (over 90%)"}},
		{name: "disk nearly full", r: Readings{System: diskAt(98.2)}, wantState: Failing,
			wantReasons: []string{"disk /var/lib/dormouse is 98.2% full (over 98%)"}},
		{name: "hot", r: Readings{System: hot}, wantState: Degraded,
			wantReasons: []string{"SoC temperature 82.5°C (over 80°C)"}},
		{name: "backlog", r: Readings{Agents: []Agent{{Name: "main", Backlog: 501}}}, wantState: Degraded,
			wantReasons: []string{`agent "main" has 501 unconsolidated memories (over 500)`}},
		{name: "consolidation overdue", r: Readings{Agents: []Agent{{Name: "coder",
			OldestUnconsolidated: ptr(now.Add(-37 * time.Hour))}}}, wantState: Degraded,
			wantReasons: []string{`agent "coder" has memories unconsolidated for 37h0m0s (over 36h0m0s)`}},
		{name: "failing wins over degraded", r: Readings{System: func() System { s := diskAt(99); s.TemperatureC = ptr(85.0); return s }(),
			Agents: []Agent{{Name: "main", Backlog: 1000}}}, wantState: Failing,
			wantReasons: []string{
				"disk /var/lib/dormouse is 99.0% full (over 98%)",
				"SoC temperature 85.0°C (over 80°C)",
				`agent "main" has 1000 unconsolidated memories (over 500)`,
			}},
		{name: "corrupt agent", r: Readings{Agents: []Agent{{Name: "bad", Unavailable: `agent "bad" is unavailable: restore it`}, {Name: "main"}}},
			wantState: Failing, wantReasons: []string{`agent "bad" is unavailable: restore it`}},
		{name: "writes refused on a full disk", r: Readings{System: diskAt(60), Agents: []Agent{{Name: "main", StorageFull: true}}},
			wantState: Failing, wantReasons: []string{`agent "main" refuses writes (507): the disk is full; free space and writes resume`}},
		{name: "zero thresholds are off", r: Readings{System: hot, Agents: []Agent{{Name: "main", Backlog: 1 << 20}}},
			wantState: OK, wantReasons: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := std
			if strings.HasPrefix(tt.name, "zero") {
				th = Thresholds{}
			}
			state, reasons := Evaluate(tt.r, th, now)
			if state != tt.wantState {
				t.Errorf("Evaluate() state = %q, want %q", state, tt.wantState)
			}
			if diff := cmp.Diff(reasons, tt.wantReasons); diff != "" {
				t.Errorf("Evaluate() reasons (-got +want):\n%s", diff)
			}
		})
	}
}

func TestMonitorCachesAndLogsChanges(t *testing.T) {
	var calls int
	readings := Readings{System: diskAt(50)}
	c := CollectorFunc(func(context.Context) Readings {
		calls++
		return readings
	})
	var logs bytes.Buffer
	clock := now
	m := &Monitor{Collector: c, Thresholds: std, TTL: 5 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), Now: func() time.Time { return clock }}
	ctx := context.Background()

	if got := m.Report(ctx).State; got != OK {
		t.Fatalf("first Report().State = %q, want ok", got)
	}
	readings = Readings{System: diskAt(95)}
	clock = clock.Add(time.Second)
	if got := m.Report(ctx).State; got != OK || calls != 1 {
		t.Errorf("Report() within TTL = %q after %d collections, want the cached ok after 1", got, calls)
	}
	clock = clock.Add(5 * time.Second)
	for range 3 {
		if got := m.Report(ctx).State; got != Degraded {
			t.Errorf("Report() after TTL = %q, want degraded", got)
		}
		clock = clock.Add(10 * time.Second)
	}
	if calls != 4 {
		t.Errorf("collections = %d, want 4", calls)
	}
	if n := strings.Count(logs.String(), "health state changed"); n != 1 {
		t.Errorf("logged %d state changes, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "95.0% full") {
		t.Errorf("log = %q, want a warning with the reason", logs.String())
	}
}

func TestMonitorAgesLastSuccess(t *testing.T) {
	c := CollectorFunc(func(context.Context) Readings {
		return Readings{Agents: []Agent{{Name: "main", LastSuccess: ptr(now.Add(-90 * time.Minute))}}}
	})
	m := &Monitor{Collector: c, Now: func() time.Time { return now }}
	r := m.Report(context.Background())
	if got := r.Agents[0].LastSuccessAgeHours; got == nil || *got != 1.5 {
		t.Errorf("LastSuccessAgeHours = %v, want 1.5", got)
	}
}
