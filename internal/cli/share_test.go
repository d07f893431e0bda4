package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/client"
)

// TestShareCommand: share copies a memory into another agent, on the files
// and through the daemon; show names where the copy came from; a second
// share answers the same copy; forgetting the original forgets the copy.
func TestShareCommand(t *testing.T) {
	check := func(t *testing.T, where ...string) {
		cmd := exitWith(t, where)
		cmd(ExitOK, "ingest", "--agent", "assistant", "We are away until Sunday, keep the heating at 15.")
		if out := cmd(ExitOK, "share", "assistant", "1", "--to", "household"); !strings.Contains(out, "shared assistant/memory:1 as household/memory:1") {
			t.Errorf("share = %q", out)
		}
		var sh client.Shared
		if err := json.Unmarshal([]byte(cmd(ExitOK, "share", "--agent", "assistant", "--json", "memory:1", "--to", "household")), &sh); err != nil ||
			!sh.Existing || sh.ID != 1 {
			t.Errorf("share again = %+v, %v; want the existing copy", sh, err)
		}
		if out := cmd(ExitOK, "show", "--agent", "household", "1"); !strings.Contains(out, "shared from:  assistant/memory:1") {
			t.Errorf("show the copy = %q", out)
		}
		cmd(ExitUsage, "share", "assistant", "1")
		cmd(ExitUsage, "share", "assistant", "fact:1", "--to", "household")
		cmd(ExitUsage, "share", "a", "b", "c", "--to", "household")
		cmd(ExitError, "share", "assistant", "1", "--to", "assistant")
		cmd(ExitError, "share", "assistant", "9", "--to", "household")
		cmd(ExitOK, "forget", "--agent", "assistant", "1")
		cmd(ExitError, "show", "--agent", "household", "1")
	}
	t.Run("files", func(t *testing.T) { check(t, "--data", t.TempDir()) })
	t.Run("daemon", func(t *testing.T) { check(t, testDaemon(t)...) })
}
