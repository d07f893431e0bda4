package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stats fetches an agent's stats from a running daemon.
func stats(t *testing.T, addr, agent string) (unconsolidated, consolidations int, last string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/v1/agents/" + agent + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Unconsolidated int    `json:"unconsolidated"`
		Consolidations int    `json:"consolidations"`
		Last           string `json:"last_consolidated_date"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Unconsolidated, st.Consolidations, st.Last
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDaemonConsolidates checks the daemon's triggers end to end: catch-up
// of a past day at start-up, an early rebuild of today once the backlog
// passes the threshold, the timer's job running beside the daemon on the
// same files, and a clean stop.
func TestDaemonConsolidates(t *testing.T) {
	data := t.TempDir()
	past := time.Now().AddDate(0, 0, -2)
	pastNoon := time.Date(past.Year(), past.Month(), past.Day(), 12, 0, 0, 0, time.Local)
	pastDay := pastNoon.Format(time.DateOnly)
	if _, stderr, code := run(t, nil, "", "ingest", "--data", data, "--agent", "main", "--at", pastNoon.Format(time.RFC3339), "Alice's role is engineer."); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}

	d := startDaemon(t, data, "DORMOUSE_CONSOLIDATE_BACKLOG_THRESHOLD=3", "DORMOUSE_CONSOLIDATE_BACKLOG_DEBOUNCE=1s")
	waitFor(t, "catch-up of "+pastDay, func() bool {
		u, c, last := stats(t, d.addr, "main")
		return u == 0 && c == 1 && last == pastDay
	})

	body := `{"memories":[{"content":"Bob fixed the login timeout."},{"content":"Carol approved the Atlas budget."},{"content":"Dana joined the Atlas team."}]}`
	resp, err := http.Post("http://"+d.addr+"/v1/agents/main/memories", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitFor(t, "today's record rebuilt early", func() bool {
		u, c, _ := stats(t, d.addr, "main")
		return u == 0 && c == 2
	})

	// The nightly job runs beside the daemon on the same files.
	older := pastNoon.AddDate(0, 0, -1)
	if _, stderr, code := run(t, nil, "", "ingest", "--addr", d.addr, "--agent", "main", "--at", older.Format(time.RFC3339), "We decided to ship on Friday."); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	out, stderr, code := run(t, nil, "", "consolidate", "--all", "--data", data)
	if code != 0 || !strings.Contains(out, older.Format(time.DateOnly)) {
		t.Errorf("consolidate --all beside the daemon: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if u, c, _ := stats(t, d.addr, "main"); u != 0 || c != 3 {
		t.Errorf("after the nightly job: %d unconsolidated, %d records; want 0 and 3", u, c)
	}
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("daemon exit after SIGTERM: %v\n%s", err, d.stderr.String())
	}
}

// TestConsolidateSaysTodayWaits: with only today's memories waiting,
// consolidate says when they are consolidated and how to do it now, and
// the command it names does it.
func TestConsolidateSaysTodayWaits(t *testing.T) {
	data := t.TempDir()
	utc := []string{"DORMOUSE_TIMEZONE=UTC"}
	if _, stderr, code := run(t, utc, "", "ingest", "--data", data, "--agent", "main", "Alice's role is engineer."); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	out, stderr, code := run(t, utc, "", "consolidate", "--data", data, "--agent", "main")
	for _, want := range []string{"nothing to consolidate", "1 memories wait", "after midnight (00:00 UTC, timezone UTC)",
		"dormouse consolidate --agent main --date " + today} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("consolidate with today's memory waiting: exit %d, stdout %q (want %q), stderr %q", code, out, want, stderr)
		}
	}
	out, stderr, code = run(t, utc, "", "consolidate", "--data", data, "--agent", "main", "--date", today)
	if code != 0 || !strings.Contains(out, today) || strings.Contains(out, "nothing to consolidate") {
		t.Fatalf("the suggested consolidate --date %s: exit %d, stdout %q, stderr %q", today, code, out, stderr)
	}
	out, _, _ = run(t, utc, "", "consolidate", "--data", data, "--agent", "main")
	if strings.TrimSpace(out) != "nothing to consolidate" {
		t.Errorf("consolidate with nothing waiting = %q, want only \"nothing to consolidate\"", out)
	}
}
