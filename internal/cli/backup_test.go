package cli

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedAddr returns a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	_ = ln.Close()
	return a
}

func TestBackupAndRestoreVerbs(t *testing.T) {
	data := t.TempDir()
	dest := filepath.Join(t.TempDir(), "bk")
	for _, text := range []string{"Alice likes green tea", "Bob moved to Lisbon"} {
		if _, stderr, code := runMain(t, "", "ingest", "--data", data, "--agent", "main", text); code != 0 {
			t.Fatalf("ingest: %d %s", code, stderr)
		}
	}
	if _, stderr, code := runMain(t, "", "ingest", "--data", data, "--agent", "other", "x"); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}

	stdout, stderr, code := runMain(t, "", "backup", "--data", data, "--dest", dest, "--keep", "2", "--json")
	if code != 0 {
		t.Fatalf("backup: %d %s", code, stderr)
	}
	var out struct {
		Backups []struct{ Agent, Path string } `json:"backups"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("backup --json: %v\n%s", err, stdout)
	}
	if len(out.Backups) != 2 || out.Backups[0].Agent != "main" || out.Backups[1].Agent != "other" {
		t.Fatalf("backups = %+v, want main and other", out.Backups)
	}

	// One more memory after the backup; the restore takes it away again.
	if _, stderr, code := runMain(t, "", "ingest", "--data", data, "--agent", "main", "Carol plays the cello"); code != 0 {
		t.Fatalf("ingest: %d %s", code, stderr)
	}
	stdout, _, code = runMain(t, "", "restore", "--data", data, "--dest", dest, "--agent", "main", "--list")
	if code != 0 || !strings.Contains(stdout, out.Backups[0].Path) {
		t.Fatalf("restore --list: %d\n%s", code, stdout)
	}

	// A daemon answering at the address: refused, unless --force.
	daemon := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer daemon.Close()
	addr := strings.TrimPrefix(daemon.URL, "http://")
	_, stderr, code = runMain(t, "", "restore", "--data", data, "--dest", dest, "--agent", "main", "--addr", addr)
	if code != ExitError || !strings.Contains(stderr, "stop it first") {
		t.Fatalf("restore with a daemon up: %d %s", code, stderr)
	}
	stdout, stderr, code = runMain(t, "", "restore", "--data", data, "--dest", dest, "--agent", "main", "--addr", closedAddr(t))
	if code != 0 || !strings.Contains(stdout, "restored agent \"main\"") || !strings.Contains(stdout, ".replaced-") {
		t.Fatalf("restore: %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, _ = runMain(t, "", "list", "--data", data, "--agent", "main")
	if strings.Contains(stdout, "cello") || !strings.Contains(stdout, "Lisbon") {
		t.Errorf("after restore, list shows:\n%s", stdout)
	}
	entries, _ := os.ReadDir(filepath.Join(data, "agents"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !strings.Contains(strings.Join(names, " "), "main.db.replaced-") {
		t.Errorf("no replaced file kept aside: %v", names)
	}
}

func TestBackupRestoreUsage(t *testing.T) {
	data := t.TempDir()
	cases := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"backup", "--data", data, "--agent", "../x"}, ExitUsage, "invalid agent name"},
		{[]string{"backup", "--data", data, "--keep", "-1"}, ExitUsage, "--keep"},
		{[]string{"backup", "--data", data, "extra"}, ExitUsage, "takes no arguments"},
		{[]string{"backup", "--data", data, "--agent", "ghost"}, ExitError, "no such agent"},
		{[]string{"restore", "--data", data}, ExitUsage, "--agent is required"},
		{[]string{"restore", "--data", data, "--agent", "Bad Name"}, ExitUsage, "invalid agent name"},
		{[]string{"restore", "--data", data, "--agent", "main", "--addr", "127.0.0.1:1"}, ExitError, "no backups"},
		// The weekly timer's drill on a box that does not replicate is not a failed unit.
		{[]string{"restore", "--drill", "--all", "--data", data}, ExitOK, "replication.url is not set"},
		{[]string{"restore", "--drill", "--agent", "main", "--data", data}, ExitError, "replication.url is not set"},
	}
	for _, c := range cases {
		stdout, stderr, code := runMain(t, "", c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.out) {
			t.Errorf("%v: code %d, want %d with %q\n%s%s", c.args, code, c.code, c.out, stdout, stderr)
		}
	}
}
