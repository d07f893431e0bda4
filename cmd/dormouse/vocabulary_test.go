package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The CLI's flags are the API's field names (--session-id, --budget-tokens,
// --interaction-type, --timestamp); the old names still work for one release,
// and one flag given under both names with different values is refused.
func TestFlagsNameTheAPIFieldsAndOldNamesStillWork(t *testing.T) {
	data := t.TempDir()
	for _, args := range [][]string{
		{"--session-id", "s1", "--interaction-type", "note", "--timestamp", "2026-02-01T09:00:00Z", "Bob moved to Lisbon"},
		{"--session", "s2", "--type", "note", "--at", "2026-02-02T09:00:00Z", "Bob visited Lisbon again"},
	} {
		if _, stderr, code := run(t, nil, "", append([]string{"ingest", "--data", data, "--agent", "main"}, args...)...); code != 0 {
			t.Fatalf("ingest %v: exit %d: %s", args, code, stderr)
		}
	}
	sessionsOf := func(args ...string) []string {
		t.Helper()
		out, stderr, code := run(t, nil, "", append([]string{"list", "--data", data, "--agent", "main", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("list %v: exit %d: %s", args, code, stderr)
		}
		var page struct {
			Memories []struct {
				SessionID       string `json:"session_id"`
				InteractionType string `json:"interaction_type"`
			} `json:"memories"`
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("list %v: %v\n%s", args, err, out)
		}
		var got []string
		for _, m := range page.Memories {
			if m.InteractionType != "note" {
				t.Errorf("list %v: interaction type %q, want note", args, m.InteractionType)
			}
			got = append(got, m.SessionID)
		}
		return got
	}
	if got := sessionsOf(); strings.Join(got, ",") != "s2,s1" {
		t.Errorf("both memories = %v, want s2,s1 (newest first)", got)
	}
	for _, flag := range []string{"--session-id", "--session"} {
		if got := sessionsOf(flag, "s1"); strings.Join(got, ",") != "s1" {
			t.Errorf("list %s s1 = %v, want s1 alone", flag, got)
		}
	}
	for _, budget := range []string{"--budget-tokens", "--budget"} {
		out, stderr, code := run(t, nil, "", "recall", "--data", data, "--agent", "main", "--session-id", "s1", budget, "50", "Lisbon")
		if code != 0 || !strings.Contains(out, "moved to Lisbon") || strings.Contains(out, "again") {
			t.Errorf("recall %s 50 of session s1: exit %d, %q %s", budget, code, out, stderr)
		}
	}
	_, stderr, code := run(t, nil, "", "list", "--data", data, "--agent", "main", "--session-id", "s1", "--session", "s2")
	if code != 2 || !strings.Contains(stderr, "--session-id") || !strings.Contains(stderr, "old name --session") {
		t.Errorf("both names differing: exit %d, %s; want 2 naming both", code, stderr)
	}
}
