package replicate

import (
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
	b, err := configYAML(s3, "/var/lib/dormouse/agents", NewLayout("/var/lib/dormouse"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dir: /var/lib/dormouse/agents", "pattern: '*.db'", "watch: true",
		"meta-dir: /var/lib/dormouse/replication/meta", "sync-interval: 1s", "min-checkpoint-page-count: 1000",
		"path: /var/lib/dormouse/replication/litestream.sock"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("litestream's configuration lacks %q:\n%s", want, b)
		}
	}
}
