package cli

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// daemonOver serves dir over loopback HTTP and returns the --addr flag
// that reaches it.
func daemonOver(t *testing.T, dir string) []string {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(st, &recall.Engine{}, server.Options{AutoCreate: true}))
	t.Cleanup(func() {
		ts.Close()
		st.Close()
	})
	return []string{"--addr", strings.TrimPrefix(ts.URL, "http://")}
}

// TestProfileFromTheCLI prints the profile by category, as it is and as
// it was, shows a line, and edits and removes lines, on the files and
// through the daemon.
func TestProfileFromTheCLI(t *testing.T) {
	check := func(t *testing.T, where ...string) {
		cmd := exitWith(t, where)
		out := cmd(ExitOK, "profile", "--agent", "home")
		for _, want := range []string{"work:\n", "health:\n", "profile:3", "The user works at Atkins.", "[memory:2]", "The user is allergic to penicillin."} {
			if !strings.Contains(out, want) {
				t.Errorf("profile lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "Arup") || strings.Index(out, "work:") > strings.Index(out, "health:") {
			t.Errorf("profile shows a retired line, or categories out of order:\n%s", out)
		}
		past := cmd(ExitOK, "profile", "--agent", "home", "--as-of", time.Now().AddDate(0, 0, -14).Format(time.RFC3339))
		if !strings.Contains(past, "The user works at Arup.") || strings.Contains(past, "Atkins") || strings.Contains(past, "penicillin") {
			t.Errorf("profile as of two weeks ago:\n%s", past)
		}
		if hist := cmd(ExitOK, "profile", "--agent", "home", "--history"); !strings.Contains(hist, "(replaced by profile:3) The user works at Arup.") {
			t.Errorf("profile --history:\n%s", hist)
		}
		show := cmd(ExitOK, "show", "--agent", "home", "profile:1")
		for _, want := range []string{"profile:1", "user / employer = Arup", "replaced by profile:3", "memory:1"} {
			if !strings.Contains(show, want) {
				t.Errorf("show profile:1 lacks %q:\n%s", want, show)
			}
		}
		if out := cmd(ExitOK, "profile", "edit", "--agent", "home", "3", "The", "user", "is", "a", "bridge", "engineer", "at", "Atkins."); !strings.Contains(out, "edited profile:3: now profile:4: The user is a bridge engineer at Atkins.") {
			t.Errorf("profile edit = %q", out)
		}
		if out := cmd(ExitOK, "profile", "remove", "--agent", "home", "profile:2"); !strings.Contains(out, "removed profile:2") {
			t.Errorf("profile remove = %q", out)
		}
		var now struct{ Profile []struct{ ID, Text string } }
		if err := json.Unmarshal([]byte(cmd(ExitOK, "profile", "--agent", "home", "--json")), &now); err != nil ||
			len(now.Profile) != 1 || now.Profile[0].ID != "profile:4" || !strings.Contains(now.Profile[0].Text, "bridge engineer") {
			t.Errorf("profile --json after the edit and the removal = %+v (%v)", now, err)
		}
		if out := cmd(ExitError, "profile", "remove", "--agent", "home", "profile:2"); !strings.Contains(out, "removed") || !strings.Contains(out, "409") {
			t.Errorf("removing a removed line: %q", out)
		}
		if out := cmd(ExitError, "profile", "edit", "--agent", "home", "profile:3", "x"); !strings.Contains(out, "not_current") {
			t.Errorf("editing a replaced line: %q", out)
		}
		cmd(ExitUsage, "profile", "edit", "--agent", "home", "profile:4")
		cmd(ExitUsage, "profile", "remove", "--agent", "home", "fact:4")
		cmd(ExitUsage, "profile", "--agent", "home", "--as-of", "yesterday")
	}
	t.Run("files", func(t *testing.T) { check(t, "--data", daemontest.ProfileData(t, "home")) })
	t.Run("daemon", func(t *testing.T) { check(t, daemonOver(t, daemontest.ProfileData(t, "home"))...) })
}
