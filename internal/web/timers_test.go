package web

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testdata/systemctl-show.txt is the shape of `systemctl show
// --timestamp=unix --property=…` for an installed timer that has run, one
// not installed, and one never triggered (systemctl(1): "unix" prints
// "@" and the seconds since the epoch).
func TestParseShow(t *testing.T) {
	out, err := os.ReadFile("testdata/systemctl-show.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := parseShow(out, []string{"dormouse-backup.timer", "dormouse-consolidate.timer", "fresh.timer", "missing.timer"})
	want := []Timer{
		{Unit: "dormouse-backup.timer", Known: true, Active: "inactive"},
		{Unit: "dormouse-consolidate.timer", Known: true, Installed: true, Active: "active",
			Last: time.Date(2026, 2, 10, 0, 3, 12, 0, time.UTC), Next: time.Date(2026, 2, 11, 0, 0, 0, 0, time.UTC)},
		{Unit: "fresh.timer", Known: true, Installed: true, Active: "active",
			Next: time.Date(2026, 2, 11, 0, 0, 0, 250_000_000, time.UTC)},
		{Unit: "missing.timer"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseShow (-want +got):\n%s", diff)
	}
	if got := parseShow(nil, []string{"a.timer"}); got[0].Known {
		t.Errorf("no output: %+v, want unknown", got[0])
	}
}

// Without systemd (this machine, a container, or no systemctl on PATH) every
// timer is unknown, never an error.
func TestSystemdTimersWithoutSystemd(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	got := SystemdTimers("dormouse-consolidate.timer")(t.Context())
	if len(got) != 1 || got[0].Known || got[0].Unit != "dormouse-consolidate.timer" {
		t.Errorf("SystemdTimers without systemctl = %+v", got)
	}
}
