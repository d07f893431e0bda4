package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
)

// TestPrintReplication: dormouse status prints each replica's state, lag,
// Litestream's counters and the last drill, and says when Litestream is
// not running.
func TestPrintReplication(t *testing.T) {
	at := time.Date(2026, 12, 3, 4, 5, 6, 0, time.UTC)
	bytes, errs := int64(3<<20), int64(2)
	r := &client.HealthReplication{Target: "s3://b/p", Running: false, Restarts: 1, Agents: []client.HealthReplica{
		{Agent: "ada", State: "replicating", LagSeconds: 1.25, LastSync: &at, WALBytes: &bytes, SyncErrors: &errs,
			LastDrill: &client.HealthDrill{At: at, OK: false, Reason: "counts differ"}},
		{Agent: "ben", State: "waiting"},
	}}
	var b strings.Builder
	printReplication(&b, r)
	out := b.String()
	for _, want := range []string{
		"replication to s3://b/p: LITESTREAM NOT RUNNING, 1 restarts",
		"replica ada: replicating, lag 1.2s, last sync 2026-12-03T04:05:06Z, 3.0 MiB shipped, 2 sync errors, drill 2026-12-03T04:05:06Z FAILED: counts differ",
		"replica ben: waiting, lag 0.0s, never synced\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}
