package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestForgetCommand: forget takes memory ids (12, memory:12) and fact ids
// (fact:12, --fact 12), on the files and through the daemon; the forgotten
// content ingested again is shown flagged.
func TestForgetCommand(t *testing.T) {
	twoDaysAgo := time.Now().AddDate(0, 0, -2)
	at := time.Date(twoDaysAgo.Year(), twoDaysAgo.Month(), twoDaysAgo.Day(), 12, 0, 0, 0, time.Local).Format(time.RFC3339)
	const claim = "Carol's favourite colour is teal."
	check := func(t *testing.T, where ...string) {
		t.Helper()
		cmd := exitWith(t, where)
		cmd(ExitOK, "ingest", "--agent", "home", "--at", at, claim)
		cmd(ExitOK, "consolidate", "--agent", "home")
		if out := cmd(ExitOK, "forget", "--agent", "home", "fact:1"); !strings.Contains(out, "forgot fact:1") {
			t.Errorf("forget fact:1 = %q", out)
		}
		if out := cmd(ExitOK, "forget", "--agent", "home", "--fact", "--json", "1"); !strings.Contains(out, `"rejected_facts": [`) {
			t.Errorf("forget --fact --json 1 = %q", out)
		}
		if out := cmd(ExitOK, "forget", "--agent", "home", "memory:1"); !strings.Contains(out, "forgot memory:1") {
			t.Errorf("forget memory:1 = %q", out)
		}
		cmd(ExitError, "forget", "--agent", "home", "fact:99")
		cmd(ExitUsage, "forget", "--agent", "home", "fact:x")

		cmd(ExitOK, "ingest", "--agent", "home", "--at", at, "carol's FAVOURITE colour is teal")
		var m store.Memory
		if err := json.Unmarshal([]byte(cmd(ExitOK, "show", "--agent", "home", "--json", "2")), &m); err != nil || !m.Flagged {
			t.Errorf("show --json 2 = %+v, %v; want flagged", m, err)
		}
		if out := cmd(ExitOK, "list", "--agent", "home"); !strings.Contains(out, "[flagged]") {
			t.Errorf("list = %q, want the memory marked flagged", out)
		}
		if out := cmd(ExitOK, "recall", "--agent", "home", "what is Carol's favourite colour?"); strings.Contains(out, "teal") {
			t.Errorf("recall = %q, want nothing about teal", out)
		}
	}
	t.Run("files", func(t *testing.T) { check(t, "--data", t.TempDir()) })
	t.Run("daemon", func(t *testing.T) { check(t, testDaemon(t)...) })
}
