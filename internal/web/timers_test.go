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

// testdata/systemctl-show-252.txt is the same command's output, recorded in
// Debian 12's systemd 252 with the package installed (vm-e2e.sh): properties
// in systemd's order, not the one asked for, and --timestamp does not reach
// these two, which come as local time (TZ=UTC, as the daemon runs it).
func TestParseShowSystemd252(t *testing.T) {
	out, err := os.ReadFile("testdata/systemctl-show-252.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := parseShow(out, []string{"dormouse-consolidate.timer", "dormouse-backup.timer"})
	want := []Timer{
		{Unit: "dormouse-consolidate.timer", Known: true, Installed: true, Active: "active",
			Next: time.Date(2026, 12, 1, 0, 2, 40, 0, time.UTC)},
		{Unit: "dormouse-backup.timer", Known: true, Active: "inactive"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseShow (-want +got):\n%s", diff)
	}
	for _, v := range []string{"Tue 2026-12-01 00:01:28 CET", "Di 2026-12-01 00:01:28 UTC", "n/a", "@abc", "@0"} {
		if got := unixStamp(v); !got.IsZero() {
			t.Errorf("unixStamp(%q) = %v, want none", v, got)
		}
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

// FuzzParseShow: any output gives one timer per unit asked about, in order,
// and never a time before the epoch.
func FuzzParseShow(f *testing.F) {
	if b, err := os.ReadFile("testdata/systemctl-show.txt"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("Id=a.timer\nLastTriggerUSec=@-5\nNextElapseUSecRealtime=@99999999999999999999.9\n"))
	f.Add([]byte("Id=\n\n\nId=a.timer\nId=b.timer\n"))
	units := []string{"a.timer", "dormouse-consolidate.timer"}
	f.Fuzz(func(t *testing.T, out []byte) {
		got := parseShow(out, units)
		if len(got) != len(units) {
			t.Fatalf("%d timers for %d units", len(got), len(units))
		}
		for i, tm := range got {
			if tm.Unit != units[i] {
				t.Errorf("timer %d is %q, want %q", i, tm.Unit, units[i])
			}
			for _, x := range []time.Time{tm.Last, tm.Next} {
				if !x.IsZero() && x.Unix() <= 0 {
					t.Errorf("time %v before the epoch", x)
				}
			}
		}
	})
}
