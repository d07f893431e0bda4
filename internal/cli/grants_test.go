package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalRecallReadsGrantedAgents: with --data, recall and ask of a
// reader search the agents agents.<reader>.reads grants it, cited by agent.
func TestLocalRecallReadsGrantedAgents(t *testing.T) {
	data := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "dormouse.yaml")
	if err := os.WriteFile(cfg, []byte("agents:\n  home:\n    reads: [household]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"DORMOUSE_CONFIG=" + cfg}
	for agent, text := range map[string]string{"home": "Turn the porch light on at dusk.\n",
		"household": "We are away until Sunday, keep the heating at 15 degrees.\n"} {
		if _, errOut, code := runEnv(env, text, "ingest", "--data", data, "--agent", agent); code != ExitOK {
			t.Fatalf("ingest %s: exit %d: %s", agent, code, errOut)
		}
	}
	out, errOut, code := runEnv(env, "", "recall", "--data", data, "--agent", "home", "heating")
	if code != ExitOK || !strings.HasPrefix(out, "[household/memory:1] ") {
		t.Errorf("recall: exit %d, %q, stderr %q: want household/memory:1 first", code, out, errOut)
	}
	out, errOut, code = runEnv(env, "", "ask", "--data", data, "--agent", "home", "what is the heating kept at?")
	if code != ExitOK || !strings.Contains(out, "household/memory:1") {
		t.Errorf("ask: exit %d, %q, stderr %q: want it to cite household/memory:1", code, out, errOut)
	}
	out, _, code = runEnv(env, "", "recall", "--data", data, "--agent", "household", "porch light")
	if code != ExitOK || strings.Contains(out, "memory:1]") {
		t.Errorf("recall of household (no grant): exit %d, %q: want nothing of home's", code, out)
	}
}
