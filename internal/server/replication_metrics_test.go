package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/health"
)

// TestReplicationFamilies: each agent's Litestream counters become its
// sync-error and WAL-byte counters; an agent whose counters could not be
// read has neither, rather than zeros.
func TestReplicationFamilies(t *testing.T) {
	errs, bytesShipped := int64(2), int64(81920)
	r := &health.Replication{Running: true, Agents: []health.Replica{
		{Agent: "ada", LagSeconds: 1.5, SyncErrors: &errs, WALBytes: &bytesShipped},
		{Agent: "bo"},
	}}
	var b bytes.Buffer
	for _, f := range replicationFamilies(r) {
		f.write(&b, func(string) bool { return true })
	}
	out := b.String()
	for _, want := range []string{
		"# TYPE dormouse_replica_sync_errors_total counter\n", `dormouse_replica_sync_errors_total{agent="ada"} 2` + "\n",
		"# TYPE dormouse_replica_wal_bytes_total counter\n", `dormouse_replica_wal_bytes_total{agent="ada"} 81920` + "\n",
		`dormouse_replica_lag_seconds{agent="bo"} 0` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, absent := range []string{`dormouse_replica_sync_errors_total{agent="bo"}`, `dormouse_replica_wal_bytes_total{agent="bo"}`} {
		if strings.Contains(out, absent) {
			t.Errorf("%s without counters read:\n%s", absent, out)
		}
	}
}
