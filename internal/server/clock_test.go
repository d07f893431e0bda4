package server

import (
	"strings"
	"testing"
	"time"
)

// TestUndatedMemoryOnA1970ClockIs503: after a power cut a Pi without a
// battery clock may boot in 1970; until NTP sets it, an undated memory is
// answered 503 clock_implausible (the client sends it again) instead of
// being stored as a 1970 memory, and a memory carrying its timestamp is kept.
func TestUndatedMemoryOnA1970ClockIs503(t *testing.T) {
	boot := time.Date(1970, 1, 1, 0, 5, 0, 0, time.UTC)
	f := newFixture(t, Options{AutoCreate: true, Now: func() time.Time { return boot }})
	url := f.url + "/v1/agents/main/memories"
	if code, body := send(t, "POST", url, `{"content":"the heating is at 15"}`); code != 503 || !strings.Contains(body, "clock_implausible") {
		t.Errorf("undated: %d %s, want 503 clock_implausible", code, body)
	}
	if code, body := send(t, "POST", url, `{"content":"the heating is at 15","timestamp":"2026-03-01T10:00:00Z"}`); code != 201 {
		t.Errorf("dated: %d %s, want 201", code, body)
	}
}
