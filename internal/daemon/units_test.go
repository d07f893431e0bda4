package daemon

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// unitsDir is the repository's systemd directory.
const unitsDir = "../../systemd"

// TestConsolidateUnitsVerify runs systemd-analyze verify on the nightly
// consolidation units. verify exits 0 on unknown keys and other warnings, so
// any output at all fails the test. ExecStart's binary must exist for
// verify, so the units are checked from a copy pointing at a stub.
func TestConsolidateUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "dormouse")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, name := range []string{"dormouse-consolidate.service", "dormouse-consolidate.timer",
		"dormouse-backup.service", "dormouse-backup.timer", "dormouse-drill.service", "dormouse-drill.timer"} {
		b, err := os.ReadFile(filepath.Join(unitsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "dormouse-consolidate.service" && !bytes.Contains(b, []byte("ExecStart=/usr/bin/dormouse consolidate --all --data /var/lib/dormouse\n")) {
			t.Errorf("%s: ExecStart is not the packaged binary running consolidate --all on /var/lib/dormouse", name)
		}
		if name == "dormouse-backup.service" && !bytes.Contains(b, []byte("ExecStart=/usr/bin/dormouse backup --data /var/lib/dormouse\n")) {
			t.Errorf("%s: ExecStart is not the packaged binary backing up /var/lib/dormouse", name)
		}
		b = bytes.ReplaceAll(b, []byte("/usr/bin/dormouse"), []byte(stub))
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	out, err := exec.CommandContext(t.Context(), analyze, append([]string{"verify"}, paths...)...).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: err %v, output:\n%s", err, out)
	}
}

// TestConsolidateUnitsContent checks the settings the appliance relies on.
func TestConsolidateUnitsContent(t *testing.T) {
	for name, want := range map[string][]string{
		"dormouse-consolidate.service": {
			"Type=oneshot", "User=dormouse", "Nice=10", "IOSchedulingClass=idle", "TimeoutStartSec=",
			"ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
			"SystemCallFilter=@system-service", "UMask=", "StateDirectory=dormouse", "EnvironmentFile=-/etc/default/dormouse",
		},
		"dormouse-consolidate.timer": {
			"OnCalendar=*-*-* 00:00:00", "Persistent=true", "RandomizedDelaySec=", "WantedBy=timers.target",
		},
		"dormouse-backup.service": {
			"Type=oneshot", "User=dormouse", "Nice=10", "IOSchedulingClass=idle", "TimeoutStartSec=",
			"After=dormouse-consolidate.service", "PrivateNetwork=yes", "RestrictAddressFamilies=AF_UNIX\n",
			"ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
			"SystemCallFilter=@system-service", "UMask=0077", "StateDirectory=dormouse", "EnvironmentFile=-/etc/default/dormouse",
			"CapabilityBoundingSet=\n",
		},
		"dormouse-backup.timer": {
			"OnCalendar=*-*-* 03:00:00", "Persistent=true", "RandomizedDelaySec=", "WantedBy=timers.target",
		},
		"dormouse-drill.service": {
			"Type=oneshot", "User=dormouse", "Nice=10", "IOSchedulingClass=idle", "TimeoutStartSec=",
			"ExecStart=/usr/bin/dormouse restore --drill --all --data /var/lib/dormouse",
			"ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
			"SystemCallFilter=@system-service", "UMask=0077", "StateDirectory=dormouse", "EnvironmentFile=-/etc/default/dormouse",
			"CapabilityBoundingSet=\n",
		},
		"dormouse-drill.timer": {
			"OnCalendar=Sun *-*-* 04:00:00", "Persistent=true", "RandomizedDelaySec=", "WantedBy=timers.target",
		},
	} {
		b, err := os.ReadFile(filepath.Join(unitsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(w)).Match(b) {
				t.Errorf("%s lacks %q", name, w)
			}
		}
	}
}

// TestConsolidateTimerCalendar asks systemd what the timer's schedule means:
// every day at midnight.
func TestConsolidateTimerCalendar(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	b, err := os.ReadFile(filepath.Join(unitsDir, "dormouse-consolidate.timer"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^OnCalendar=(.+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("dormouse-consolidate.timer has no OnCalendar=")
	}
	out, err := exec.CommandContext(t.Context(), analyze, "calendar", "--iterations=3", string(m[1])).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze calendar: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Normalized form: *-*-* 00:00:00") {
		t.Errorf("calendar output lacks the normalized form:\n%s", out)
	}
	elapses := regexp.MustCompile(`(?m)(?:Next elapse|Iter\. #\d): \w{3} \d{4}-\d{2}-\d{2} 00:00:00`).FindAllString(string(out), -1)
	if len(elapses) != 3 {
		t.Errorf("want 3 elapses at midnight, got %q in:\n%s", elapses, out)
	}
}
