package daemon_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/fulldisk"
	"github.com/dormouse-dev/dormouse/internal/health"
)

// call sends a JSON request to the daemon and returns the status and body.
func call(t *testing.T, d *daemontest.Daemon, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, d.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// remember stores one memory in agent and returns the status.
func remember(t *testing.T, d *daemontest.Daemon, agent, content string) (int, string) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"content": content})
	return call(t, d, http.MethodPost, "/v1/agents/"+agent+"/memories", string(b))
}

// seed runs a daemon over dir and stores n memories in each agent.
func seed(t *testing.T, dir string, n int, agents ...string) {
	t.Helper()
	d, err := daemontest.Run(daemontest.Config(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		for i := range n {
			if code, body := remember(t, d, a, fmt.Sprintf("note %d of agent %s about the garden %s", i, a, strings.Repeat("words ", 20))); code != http.StatusCreated {
				t.Fatalf("seed %s: %d %s", a, code, body)
			}
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// healthReport is GET /health decoded.
func healthReport(t *testing.T, d *daemontest.Daemon) health.Report {
	t.Helper()
	_, body := call(t, d, http.MethodGet, "/health", "")
	var r health.Report
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("decode /health %s: %v", body, err)
	}
	return r
}

func hasReason(r health.Report, parts ...string) bool {
	for _, reason := range r.Reasons {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(reason, p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestDaemonStartsWithCorruptAgents: a garbage-filled and a truncated agent
// file next to a good one. The daemon starts, the good agent serves, each
// bad one answers 503 agent_unavailable naming the restore command, and
// /health is failing with a reason naming each.
func TestDaemonStartsWithCorruptAgents(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir, 60, "good", "garbage", "truncated")
	agents := filepath.Join(dir, "agents")
	b, err := os.ReadFile(filepath.Join(agents, "truncated.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "truncated.db"), b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "garbage.db"), []byte(strings.Repeat("not a database ", 4096)), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := daemontest.Run(daemontest.Config(dir))
	if err != nil {
		t.Fatalf("the daemon does not start next to corrupt agents: %v", err)
	}
	defer d.Close()
	if code, body := call(t, d, http.MethodGet, "/v1/agents/good/stats", ""); code != http.StatusOK || !strings.Contains(body, `"memories":60`) {
		t.Errorf("the good agent: %d %s, want 200 with its 60 memories", code, body)
	}
	if code, body := remember(t, d, "good", "still writable"); code != http.StatusCreated {
		t.Errorf("a write to the good agent: %d %s", code, body)
	}
	for _, bad := range []string{"garbage", "truncated"} {
		code, body := call(t, d, http.MethodGet, "/v1/agents/"+bad+"/memories?limit=100", "")
		if code != http.StatusServiceUnavailable || !strings.Contains(body, `"agent_unavailable"`) ||
			!strings.Contains(body, "dormouse restore --agent "+bad) {
			t.Errorf("agent %s: %d %s, want 503 agent_unavailable naming the restore command", bad, code, body)
		}
	}
	r := healthReport(t, d)
	if r.State != health.Failing || !hasReason(r, `"garbage"`, "corrupt") || !hasReason(r, `"truncated"`, "corrupt") {
		t.Errorf("/health = %s %q, want failing naming both corrupt agents", r.State, r.Reasons)
	}
}

// TestDaemonStartsOnAFullDisk: on a disk with no space left the daemon
// starts, reads work, writes answer 507 and /health is failing saying why;
// once space is free, writes work without a restart.
func TestDaemonStartsOnAFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, 16<<20)
	seed(t, dir, 20, "main")
	free := fulldisk.Fill(t, dir)
	d, err := daemontest.Run(daemontest.Config(dir))
	if err != nil {
		t.Fatalf("the daemon does not start on a full disk: %v", err)
	}
	defer d.Close()
	if code, body := call(t, d, http.MethodGet, "/v1/agents/main/stats", ""); code != http.StatusOK || !strings.Contains(body, `"memories":20`) {
		t.Errorf("a read on a full disk: %d %s, want 200 with the 20 memories", code, body)
	}
	if code, body := remember(t, d, "main", "does not fit"); code != http.StatusInsufficientStorage || !strings.Contains(body, "storage_full") {
		t.Errorf("a write on a full disk: %d %s, want 507 storage_full", code, body)
	}
	if r := healthReport(t, d); r.State != health.Failing || !hasReason(r, `"main"`, "disk is full") {
		t.Errorf("/health on a full disk = %s %q, want failing saying the agent's writes are refused", r.State, r.Reasons)
	}
	free()
	if code, body := remember(t, d, "main", "fits again"); code != http.StatusCreated {
		t.Errorf("a write once space is free: %d %s, want 201", code, body)
	}
}
