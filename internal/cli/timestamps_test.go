package cli

import (
	"strings"
	"testing"
	"time"
)

// TestIngestRefusesAFarFutureTimestamp: `dormouse ingest --data --at` holds the time to capture's
// rules (in UTC; at most capture.max_future_skew ahead), and stores nothing it refuses.
func TestIngestRefusesAFarFutureTimestamp(t *testing.T) {
	data := t.TempDir()
	for _, at := range []string{"9999-12-31T23:59:59-23:59", time.Now().Add(48 * time.Hour).Format(time.RFC3339)} {
		_, stderr, code := runMain(t, "", "ingest", "--data", data, "--at", at, "dated ahead")
		if code == 0 || !strings.Contains(stderr, "timestamp:") {
			t.Errorf("ingest --at %s: exit %d, stderr %q; want a timestamp error", at, code, stderr)
		}
	}
	if _, stderr, code := runMain(t, "", "ingest", "--data", data, "--at", time.Now().Add(time.Hour).Format(time.RFC3339), "an hour ahead"); code != 0 {
		t.Errorf("ingest an hour ahead: exit %d: %s", code, stderr)
	}
}
