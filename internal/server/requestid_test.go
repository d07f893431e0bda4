package server

import (
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/logging"
	"github.com/dormouse-dev/dormouse/internal/proctest"
)

func TestRequestID(t *testing.T) {
	var logs proctest.Buffer
	f := newFixture(t, Options{Logger: logging.Text(&logs, slog.LevelDebug), AutoCreate: true})
	get := func(id string) string {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, f.url+"/healthz", nil)
		if err != nil {
			t.Fatal(err)
		}
		if id != "" {
			req.Header.Set(RequestIDHeader, id)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get(RequestIDHeader)
	}
	if got := get("client-42.a_b"); got != "client-42.a_b" {
		t.Errorf("a client's id came back as %q", got)
	}
	for _, bad := range []string{"", "has space", "semi;colon", strings.Repeat("x", 65)} {
		got := get(bad)
		if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got) {
			t.Errorf("sent %q: got id %q, want 16 fresh hex digits", bad, got)
		}
	}
	if !strings.Contains(logs.String(), "request_id=client-42.a_b") {
		t.Errorf("the request's log line lacks its id:\n%s", logs.String())
	}
}
