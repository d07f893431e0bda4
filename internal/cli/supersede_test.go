package cli

import (
	"strings"
	"testing"
	"time"
)

// TestShowNamesTheSuccessor: once the night supersedes the old phone
// number, `show memory:N` of the memory that stated it names the memory
// stating the new one; the new one is current.
func TestShowNamesTheSuccessor(t *testing.T) {
	day := func(ago int) string {
		d := time.Now().AddDate(0, 0, -ago)
		return time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, time.Local).Format(time.RFC3339)
	}
	check := func(t *testing.T, where ...string) {
		cmd := exitWith(t, where)
		cmd(ExitOK, "ingest", "--agent", "home", "--at", day(3), "My phone number is 0612 448 731.")
		cmd(ExitOK, "ingest", "--agent", "home", "--at", day(2), "new number: 0687 220 915, the old SIM is dead.")
		cmd(ExitOK, "consolidate", "--agent", "home")
		if out := cmd(ExitOK, "show", "--agent", "home", "memory:1"); !strings.Contains(out, "superseded by:") || !strings.Contains(out, "memory:2") {
			t.Errorf("show memory:1 does not name its successor:\n%s", out)
		}
		if out := cmd(ExitOK, "show", "--agent", "home", "memory:2"); strings.Contains(out, "superseded") {
			t.Errorf("show memory:2 says superseded:\n%s", out)
		}
	}
	t.Run("files", func(t *testing.T) { check(t, "--data", t.TempDir()) })
	t.Run("daemon", func(t *testing.T) { check(t, testDaemon(t)...) })
}
