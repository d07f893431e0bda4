package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedMemoryAcrossAGrant is issue 29's end-to-end story through the
// real binary: a configuration grants homebot (never written to) reads of
// household; the
// assistant's memory is shared into household from the CLI; homebot's
// recall over MCP offers it cited as household/memory:1, while an agent
// without the grant sees nothing of it; forgetting the original from the
// CLI takes the copy out of homebot's recall too.
func TestSharedMemoryAcrossAGrant(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "dormouse.yaml")
	if err := os.WriteFile(cfg, []byte("agents:\n  homebot:\n    reads: [household]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"DORMOUSE_CONFIG=" + cfg}
	d := startDaemon(t, t.TempDir(), env...)
	cli := func(args ...string) string {
		t.Helper()
		out, stderr, code := run(t, env, "", append(args, "--addr", d.addr)...)
		if code != 0 {
			t.Fatalf("dormouse %v: exit %d\n%s%s", args, code, out, stderr)
		}
		return out
	}
	cli("ingest", "--agent", "assistant", "--role", "user", "We are away until Sunday, keep the heating at 15 degrees.")
	cli("ingest", "--agent", "garage", "--role", "tool", "Garage door closed.")
	if out := cli("share", "assistant", "1", "--to", "household"); !strings.Contains(out, "household") {
		t.Errorf("share printed %q; want the copy in household", out)
	}

	cs := mcpSession(t, "--addr", d.addr)
	recall := func(agent string) string {
		return toolText(t, cs, "recall", map[string]any{"query": "what should the heating be set to?", "agent": agent})
	}
	if got := recall("homebot"); !strings.Contains(got, "[household/memory:1]") || !strings.Contains(got, "15 degrees") {
		t.Errorf("homebot's recall over MCP = %q; want the shared memory cited as household/memory:1", got)
	}
	if got := recall("garage"); strings.Contains(got, "household") || strings.Contains(got, "15 degrees") {
		t.Errorf("garage, with no grant, recalled %q", got)
	}

	cli("forget", "--agent", "assistant", "memory:1")
	if got := recall("homebot"); strings.Contains(got, "15 degrees") {
		t.Errorf("after the original was forgotten, homebot still recalls %q", got)
	}
}
