package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestUndatedMemoryOnA1970ClockIs503: after a power cut a Pi without a
// battery clock may boot in 1970; until NTP sets it, an undated memory is
// answered 503 clock_implausible (the client sends it again) instead of
// being stored as a 1970 memory, and a memory carrying its timestamp is kept.
func TestUndatedMemoryOnA1970ClockIs503(t *testing.T) {
	boot := time.Date(1970, 1, 1, 0, 5, 0, 0, time.UTC)
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(New(st, &recall.Engine{}, Options{AutoCreate: true, Now: func() time.Time { return boot }}))
	t.Cleanup(func() { ts.Close(); st.Close() })
	post := func(body string) (int, string) {
		resp, err := http.Post(ts.URL+"/v1/agents/main/memories", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(`{"content":"the heating is at 15"}`); code != 503 || !strings.Contains(body, "clock_implausible") {
		t.Errorf("undated: %d %s, want 503 clock_implausible", code, body)
	}
	if code, body := post(`{"content":"the heating is at 15","timestamp":"1970-01-01T00:04:00Z"}`); code != 201 {
		t.Errorf("dated: %d %s, want 201", code, body)
	}
}
