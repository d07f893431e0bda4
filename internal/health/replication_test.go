package health

import (
	"strings"
	"testing"
	"time"
)

// TestReplicationStates: a replica past health.replica_lag_warn is
// degraded, one 10 minutes behind or a Litestream down 10 minutes is
// failing, and someone who sees only some agents sees only their replicas
// and no error text.
func TestReplicationStates(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	th := Thresholds{ReplicaLagWarn: 30 * time.Second}
	down := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	for _, c := range []struct {
		name string
		r    Replication
		want string
	}{
		{"in step", Replication{Running: true, Agents: []Replica{{Agent: "ada", LagSeconds: 1}}}, OK},
		{"behind", Replication{Running: true, Agents: []Replica{{Agent: "ada", LagSeconds: 31}}}, Degraded},
		{"stalled", Replication{Running: true, Agents: []Replica{{Agent: "ada", LagSeconds: 600}}}, Failing},
		{"restarting", Replication{Running: false, DownSince: down(2 * time.Second)}, Degraded},
		{"stopped", Replication{Running: false, DownSince: down(10 * time.Minute)}, Failing},
		{"drilled", Replication{Running: true, Agents: []Replica{{Agent: "ada", LastDrill: &Drill{At: *down(7 * 24 * time.Hour), OK: true}}}}, OK},
		{"drill failed", Replication{Running: true, Agents: []Replica{{Agent: "ada", LastDrill: &Drill{At: *down(time.Hour), Reason: "invalid LTX file"}}}}, Degraded},
		{"drill stale", Replication{Running: true, Agents: []Replica{{Agent: "ada", LastDrill: &Drill{At: *down(9 * 24 * time.Hour), OK: true}}}}, Degraded},
	} {
		state, reasons := Evaluate(Readings{Replication: &c.r}, th, now)
		if state != c.want {
			t.Errorf("%s: state %s (%v), want %s", c.name, state, reasons, c.want)
		}
	}

	rep := Report{Readings: Readings{Replication: &Replication{Running: true, LastError: "db=ben.db: denied",
		Agents: []Replica{{Agent: "ada"}, {Agent: "ben", LagSeconds: 40}}}}}
	rep.State, rep.Reasons = Evaluate(rep.Readings, th, now)
	seen := rep.For(func(a string) bool { return a == "ada" })
	if r := seen.Replication; len(r.Agents) != 1 || r.Agents[0].Agent != "ada" || r.LastError != "" {
		t.Errorf("ada's viewer sees %+v; want ada's replica only, no error text", r)
	}
	if strings.Contains(strings.Join(seen.Reasons, " "), "ben") {
		t.Errorf("ada's viewer sees reasons about ben: %v", seen.Reasons)
	}
}
