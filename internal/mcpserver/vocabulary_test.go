package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
)

// ask takes recall's options under recall's names: the question is query,
// as for recall; question, its old name, still works for one release, and
// the two differing is a tool error naming both. session_id narrows both.
func TestAskTakesQueryAndStillTakesQuestion(t *testing.T) {
	d := daemontest.Start(t)
	cs := overStdio(t, mcpserver.New(client.New(d.Addr), mcpserver.Options{Version: "test", Agent: "main"}))
	call(t, cs, "remember", map[string]any{"content": "The launch moved to Friday.", "session_id": "work", "timestamp": "2026-03-02T10:00:00Z"}, false)
	call(t, cs, "remember", map[string]any{"content": "The launch party is on Saturday.", "session_id": "home", "timestamp": "2026-03-02T11:00:00Z"}, false)
	for _, args := range []map[string]any{
		{"query": "When is the launch?", "session_id": "work"},
		{"question": "When is the launch?", "session_id": "work"},
		{"query": "When is the launch?", "question": "When is the launch?", "session_id": "work"},
	} {
		got := call(t, cs, "ask", args, false)
		mustContain(t, "ask", got, "[memory:1]")
		if strings.Contains(got, "[memory:2]") {
			t.Errorf("ask(%v) cites the other session's memory:2: %q", args, got)
		}
	}
	got := call(t, cs, "ask", map[string]any{"query": "When is the launch?", "question": "Who is Bob?"}, true)
	mustContain(t, "ask with both names differing", got, "query", "old name question", "differ")
	got = call(t, cs, "recall", map[string]any{"query": "launch", "session_id": "home"}, false)
	mustContain(t, "recall of one session", got, "[memory:2]")
	if strings.Contains(got, "[memory:1]") {
		t.Errorf("recall of session home offers session work's memory: %q", got)
	}
}
