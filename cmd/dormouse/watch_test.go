package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonWatchesFolder runs the daemon with a watched folder: a note present at start and one
// written while it runs are both recalled, `dormouse watch status` and `ingest --file` reach it.
func TestDaemonWatchesFolder(t *testing.T) {
	data, vault := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "early.md"), []byte("# Early\n\nThe heron fishes at dawn.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "dormouse.yaml")
	if err := os.WriteFile(cfg, []byte("watch:\n  - path: "+vault+"\n    agent: notes\n    settle: 100ms\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, data, "DORMOUSE_CONFIG="+cfg)
	recalled := func(word string) bool {
		resp, err := http.Post("http://"+d.addr+"/v1/agents/notes/recall", "application/json",
			strings.NewReader(`{"query":"`+word+`"}`))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var out struct{ Items []struct{ Text string } }
		if json.NewDecoder(resp.Body).Decode(&out) != nil {
			return false
		}
		for _, it := range out.Items {
			if strings.Contains(it.Text, word) {
				return true
			}
		}
		return false
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s\n%s", what, d.stderr.String())
			}
		}
	}
	waitFor("the note present at start", func() bool { return recalled("heron") })
	if err := os.WriteFile(filepath.Join(vault, "later.md"), []byte("# Later\n\nThe otter slides at dusk.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("the note written while running", func() bool { return recalled("otter") })

	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Env = hermeticEnv("DORMOUSE_CONFIG=" + cfg)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("dormouse %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("watch", "status", "--addr", d.addr); !strings.Contains(out, vault) || !strings.Contains(out, "no failing files") {
		t.Errorf("watch status:\n%s", out)
	}
	if out := run("watch", "scan", "--addr", d.addr); !strings.Contains(out, vault) {
		t.Errorf("watch scan:\n%s", out)
	}
	upload := filepath.Join(t.TempDir(), "list.txt")
	if err := os.WriteFile(upload, []byte("Buy lamp oil and rope.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := run("ingest", "--addr", d.addr, "--agent", "notes", "--file", upload); out != "list.txt: stored 1 memories\n" {
		t.Errorf("ingest --file: %q", out)
	}
	waitFor("the uploaded file", func() bool { return recalled("lamp") })
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Errorf("daemon exit: %v\n%s", err, d.stderr.String())
	}
}
