package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/logging"
	"github.com/dormouse-dev/dormouse/internal/proctest"
)

// TestWriteJSONFailsLoudly: a value that cannot be encoded (a time past
// year 9999) is a 500 in the API's error shape and a logged error, never an
// empty 200.
func TestWriteJSONFailsLoudly(t *testing.T) {
	var logs proctest.Buffer
	srv := New(nil, nil, Options{Logger: logging.Text(&logs, slog.LevelDebug)})
	srv.Handle("GET /unencodable", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"at": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
	}))
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, httptest.NewRequest("GET", "/unencodable", nil))
	rec := w.Result()
	if rec.StatusCode != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.StatusCode)
	}
	var body ErrorBody
	data, _ := io.ReadAll(rec.Body)
	if err := json.Unmarshal(data, &body); err != nil || body.Error.Code != "internal" {
		t.Errorf("body %q (%v), want the API's error shape with code internal", data, err)
	}
	if l := logs.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "year outside of range") {
		t.Errorf("the encoding error was not logged:\n%s", l)
	}
}
