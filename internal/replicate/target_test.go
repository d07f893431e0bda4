package replicate

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTargetURLs: an agent's replica is NAME.db under the target, with the
// S3 settings as Litestream's query; logs and /health see no query; the
// configuration Litestream gets is one watched directory entry.
func TestTargetURLs(t *testing.T) {
	s3 := Target{URL: "s3://bucket/pi/kitchen", Endpoint: "http://127.0.0.1:9000", Region: "eu-west-1", PathStyle: true,
		SyncInterval: time.Second}
	for _, c := range []struct {
		t          Target
		url, plain string
	}{
		{Target{URL: "file:///mnt/nas/dormouse"}, "file:///mnt/nas/dormouse/ada.db", "file:///mnt/nas/dormouse"},
		{s3, "s3://bucket/pi/kitchen/ada.db?endpoint=http%3A%2F%2F127.0.0.1%3A9000&forcePathStyle=true&region=eu-west-1",
			"s3://bucket/pi/kitchen"},
		{Target{URL: "s3://bucket"}, "s3://bucket/ada.db", "s3://bucket"},
	} {
		got, err := c.t.AgentURL("ada")
		if err != nil || got != c.url {
			t.Errorf("AgentURL(%q) = %q, %v; want %q", c.t.URL, got, err, c.url)
		}
		if got := c.t.Redacted(); got != c.plain {
			t.Errorf("Redacted(%q) = %q, want %q", c.t.URL, got, c.plain)
		}
	}
	b, err := configYAML(s3, "/var/lib/dormouse/agents", NewLayout("/var/lib/dormouse"), "127.0.0.1:40123")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dir: /var/lib/dormouse/agents", "pattern: '*.db'", "watch: true",
		"meta-dir: /var/lib/dormouse/replication/meta", "sync-interval: 1s", "min-checkpoint-page-count: 1000",
		"path: /var/lib/dormouse/replication/litestream.sock", "addr: 127.0.0.1:40123"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("litestream's configuration lacks %q:\n%s", want, b)
		}
	}
}

// TestParseCounters: Litestream's per-file counters are read by agent, its
// other samples ignored, an escaped label unescaped.
func TestParseCounters(t *testing.T) {
	text := `# HELP litestream_sync_error_count Number of sync errors that have occurred
# TYPE litestream_sync_error_count counter
litestream_sync_error_count{db="/var/lib/dormouse/agents/ada.db"} 3
litestream_sync_count{db="/var/lib/dormouse/agents/ada.db"} 40
litestream_total_wal_bytes{db="/var/lib/dormouse/agents/ada.db"} 1.2e+06
litestream_total_wal_bytes{db="/srv/a\"b/agents/bo.db"} 8232
litestream_replica_operation_bytes{operation="PUT",replica_type="s3"} 99
`
	got, err := parseCounters(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Counters{"ada": {SyncErrors: 3, WALBytes: 1_200_000}, "bo": {WALBytes: 8232}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parseCounters = %v, want %v", got, want)
	}
}
