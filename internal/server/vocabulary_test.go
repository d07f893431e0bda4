package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/client"
)

// One name per concept: the session is session_id in every body and query
// parameter, as memories carry it; its old name session is still taken for
// one release, and the two disagreeing is a 400 that says so.
func TestSessionIsSessionIDEverywhereAndSessionStillWorks(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	for _, m := range []string{
		`{"content":"Bob moved to Lisbon","session_id":"s1","timestamp":"2026-02-01T09:00:00Z"}`,
		`{"content":"Bob visited Lisbon again","session_id":"s2","timestamp":"2026-02-02T09:00:00Z"}`,
	} {
		if code := f.post("/v1/agents/main/memories", m, nil); code != http.StatusCreated {
			t.Fatalf("store %s: %d", m, code)
		}
	}
	onlyS1 := func(what string, sessions []string) {
		t.Helper()
		if len(sessions) == 0 {
			t.Errorf("%s: nothing came back", what)
		}
		for _, s := range sessions {
			if s != "s1" {
				t.Errorf("%s: an item of session %q came back, want only s1", what, s)
			}
		}
	}
	for _, body := range []string{`"session_id":"s1"`, `"session":"s1"`, `"session_id":"s1","session":"s1"`} {
		for _, route := range []string{"recall", "ask"} {
			var res client.RecallResult
			if code := f.post("/v1/agents/main/"+route, `{"query":"Lisbon",`+body+`}`, &res); code != http.StatusOK {
				t.Fatalf("%s with %s: %d", route, body, code)
			}
			var sessions []string
			for _, it := range res.Items {
				sessions = append(sessions, it.SessionID)
			}
			onlyS1(route+" with "+body, sessions)
		}
	}
	for _, q := range []string{"session_id=s1", "session=s1"} {
		var page client.MemoryPage
		if code := f.do("GET", "/v1/agents/main/memories?"+q, nil, &page); code != http.StatusOK {
			t.Fatalf("list with %s: %d", q, code)
		}
		var sessions []string
		for _, m := range page.Memories {
			sessions = append(sessions, m.SessionID)
		}
		onlyS1("list with "+q, sessions)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/agents/main/recall", `{"query":"Lisbon","session_id":"s1","session":"s2"}`},
		{"POST", "/v1/agents/main/ask", `{"query":"Lisbon","session_id":"s1","session":"s2"}`},
		{"GET", "/v1/agents/main/memories?session_id=s1&session=s2", ""},
	} {
		code, body := f.sendWith(tc.method, tc.path, tc.body, "Content-Type", "application/json")
		if code != http.StatusBadRequest || !strings.Contains(body, "session_id") || !strings.Contains(body, "old name session") {
			t.Errorf("%s %s with both names differing = %d %s, want 400 naming both", tc.method, tc.path, code, body)
		}
	}
}
