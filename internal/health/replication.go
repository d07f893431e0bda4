package health

import (
	"fmt"
	"slices"
	"time"

	"github.com/dormouse-dev/dormouse/client"
)

// Replication is how the agents' replicas off the box are doing; nil in a
// report when replication.url is not set.
type Replication = client.HealthReplication

// Replica is one agent's replica.
type Replica = client.HealthReplica

// Drill is an agent's last restore drill.
type Drill = client.HealthDrill

// drillMaxAge is how old the last drill may be: the timer runs weekly, so
// one missed run (a day's grace) degrades the box.
const drillMaxAge = 8 * 24 * time.Hour

// replicationStopped is when a stopped replication, or a replica that has
// not caught up, turns the box from degraded to failing.
const replicationStopped = 10 * time.Minute

// evaluateReplication adds the replication's reasons: degraded while
// Litestream is down or an agent's lag passes the warning, failing once
// either has lasted replicationStopped.
func evaluateReplication(r *Replication, th Thresholds, now time.Time, worse func(state, reason string)) {
	if r == nil {
		return
	}
	if !r.Running && r.DownSince != nil {
		state, down := Degraded, now.Sub(*r.DownSince)
		if down >= replicationStopped {
			state = Failing
		}
		worse(state, fmt.Sprintf("replication to %s has stopped for %s: litestream is not running (its last error is in the log)",
			r.Target, down.Round(time.Second)))
	}
	for _, a := range r.Agents {
		lag := time.Duration(a.LagSeconds * float64(time.Second))
		switch {
		case lag >= replicationStopped:
			worse(Failing, fmt.Sprintf("agent %q's replica is %s behind (replication stopped?)", a.Agent, lag.Round(time.Second)))
		case th.ReplicaLagWarn > 0 && lag > th.ReplicaLagWarn:
			worse(Degraded, fmt.Sprintf("agent %q's replica is %s behind (over %s)", a.Agent, lag.Round(time.Second), th.ReplicaLagWarn))
		}
		evaluateDrill(a, now, worse)
	}
}

// evaluateDrill degrades the box when an agent's last restore drill
// failed or is older than drillMaxAge. An agent never drilled is not held
// against it (the timer has not run yet on a new box).
func evaluateDrill(a Replica, now time.Time, worse func(state, reason string)) {
	d := a.LastDrill
	switch {
	case d == nil:
	case !d.OK:
		worse(Degraded, fmt.Sprintf("agent %q's last restore drill (%s) failed: %s", a.Agent, d.At.UTC().Format(time.RFC3339), d.Reason))
	case now.Sub(d.At) > drillMaxAge:
		worse(Degraded, fmt.Sprintf("agent %q's last restore drill is %s old (over %s): is dormouse-drill.timer enabled?",
			a.Agent, now.Sub(d.At).Round(time.Hour), drillMaxAge))
	}
}

// replicationFor is r as someone who sees only some agents sees it: their
// replicas, and no error text (it names files).
func replicationFor(r *Replication, sees func(string) bool) *Replication {
	if r == nil {
		return nil
	}
	out := *r
	out.LastError, out.LastErrorAt = "", nil
	out.Agents = slices.DeleteFunc(slices.Clone(r.Agents), func(a Replica) bool { return !sees(a.Agent) })
	for i, a := range out.Agents {
		if a.LastDrill != nil {
			d := *a.LastDrill
			d.Reason = ""
			out.Agents[i].LastDrill = &d
		}
	}
	return &out
}
