package cli

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// testDaemon serves a data directory over loopback HTTP with the offline
// consolidator and returns the --addr flag that reaches it.
func testDaemon(t *testing.T) []string {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	eng := &consolidate.Engine{Store: st, Consolidator: consolidate.Offline{}}
	ts := httptest.NewServer(server.New(st, &recall.Engine{}, server.Options{AutoCreate: true, Consolidate: eng}))
	t.Cleanup(func() {
		ts.Close()
		st.Close()
	})
	return []string{"--addr", strings.TrimPrefix(ts.URL, "http://")}
}

// exitWith returns a runner of commands with the where flags appended
// that fails the test unless a command exits with the code given; it
// returns stdout and stderr together.
func exitWith(t *testing.T, where []string) func(code int, args ...string) string {
	return func(code int, args ...string) string {
		t.Helper()
		out, errOut, got := runMain(t, "", append(args, where...)...)
		if got != code {
			t.Fatalf("%q: exit %d, want %d: %s%s", args, got, code, out, errOut)
		}
		return out + errOut
	}
}

// TestFactsFromTheCLI lists, shows and corrects facts and shows day
// records, on the files and through the daemon.
func TestFactsFromTheCLI(t *testing.T) {
	twoDaysAgo := time.Now().AddDate(0, 0, -2)
	at := time.Date(twoDaysAgo.Year(), twoDaysAgo.Month(), twoDaysAgo.Day(), 12, 0, 0, 0, time.Local)
	check := func(t *testing.T, where ...string) {
		cmd := exitWith(t, where)
		cmd(ExitOK, "ingest", "--agent", "home", "--at", at.Format(time.RFC3339), "Carol's favourite colour is teal.")
		cmd(ExitOK, "consolidate", "--agent", "home")

		if out := cmd(ExitOK, "facts", "--agent", "home"); !strings.Contains(out, "fact:1") || !strings.Contains(out, "Carol's favourite colour is teal") {
			t.Errorf("facts = %q, want fact:1 about teal", out)
		}
		if out := cmd(ExitOK, "facts", "--agent", "home", "--entity", "Nobody"); strings.Contains(out, "fact:") || !strings.Contains(out, "no facts") {
			t.Errorf("facts --entity Nobody = %q", out)
		}
		show := cmd(ExitOK, "show", "--agent", "home", "fact:1")
		for _, want := range []string{"fact:1", "Carol", "current", "memory:1", "consolidation:1", "Carol's favourite colour is teal"} {
			if !strings.Contains(show, want) {
				t.Errorf("show fact:1 lacks %q:\n%s", want, show)
			}
		}
		day := cmd(ExitOK, "show", "--agent", "home", "consolidation:1")
		for _, want := range []string{"consolidation:1", at.Format(time.DateOnly), "memory:1"} {
			if !strings.Contains(day, want) {
				t.Errorf("show consolidation:1 lacks %q:\n%s", want, day)
			}
		}

		out := cmd(ExitOK, "facts", "correct", "--agent", "home", "--value", "navy", "fact:1", "Carol's", "favourite", "colour", "is", "navy.")
		if !strings.Contains(out, "corrected fact:1: now fact:2") {
			t.Errorf("facts correct = %q", out)
		}
		var cur struct {
			Facts []struct {
				ID      int64
				Value   string
				Content string
			}
		}
		if err := json.Unmarshal([]byte(cmd(ExitOK, "facts", "--agent", "home", "--json")), &cur); err != nil ||
			len(cur.Facts) != 1 || cur.Facts[0].ID != 2 || cur.Facts[0].Value != "navy" || cur.Facts[0].Content != "Carol's favourite colour is navy." {
			t.Errorf("facts --json after the correction = %+v (%v), want only fact:2, navy", cur, err)
		}
		if out := cmd(ExitOK, "facts", "--agent", "home", "--history"); !strings.Contains(out, "superseded by fact:2") {
			t.Errorf("facts --history = %q, want fact:1 superseded by fact:2", out)
		}
		if out := cmd(ExitError, "facts", "correct", "--agent", "home", "fact:1", "Carol likes red."); out !=
			"dormouse facts: only a current fact can be corrected: this one is superseded or rejected (HTTP 409 not_current)\n" {
			t.Errorf("correcting a superseded fact: %q", out)
		}
		cmd(ExitUsage, "facts", "correct", "--agent", "home", "fact:2")
		cmd(ExitUsage, "facts", "correct", "--agent", "home", "memory:1", "text")
		cmd(ExitUsage, "show", "--agent", "home", "fact:x")
		cmd(ExitUsage, "show", "--agent", "home", "day:1")
		if out := cmd(ExitError, "show", "--agent", "home", "fact:9"); !strings.Contains(out, "not found") {
			t.Errorf("show fact:9 = %q", out)
		}
		if out := cmd(ExitOK, "show", "--agent", "home", "1"); !strings.Contains(out, "memory:1") {
			t.Errorf("show 1 = %q", out)
		}
	}
	t.Run("files", func(t *testing.T) { check(t, "--data", t.TempDir()) })
	t.Run("daemon", func(t *testing.T) { check(t, testDaemon(t)...) })
}

// TestParseRef: a bare number is a memory; the kinds show and correct take;
// anything else is refused with what an id looks like.
func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		in, kind string
		id       int64
	}{
		{"12", "memory", 12}, {"memory:3", "memory", 3}, {"fact:7", "fact", 7},
		{"consolidation:2", "consolidation", 2}, {"profile:9", "profile", 9},
		{"0", "", 0}, {"-4", "", 0}, {"memory:", "", 0}, {"fact:x", "", 0},
		{"thread:4", "", 0}, {"household/memory:1", "", 0}, {"", "", 0},
	} {
		kind, id, err := parseRef(c.in)
		if kind != c.kind || id != c.id || (err == nil) != (c.kind != "") {
			t.Errorf("parseRef(%q) = %q, %d, %v; want %q, %d", c.in, kind, id, err, c.kind, c.id)
		}
	}
}
