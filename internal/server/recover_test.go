package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/logging"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// A handler's panic is answered: a 500 in the error shape naming the
// request's id, which the log's record of the panic carries too; a panic
// after the answer began cuts that answer; the server serves on.
func TestAPanicIsAnsweredWithItsRequestID(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var log bytes.Buffer
	srv := New(st, &recall.Engine{}, Options{Logger: logging.Text(&log, slog.LevelDebug)})
	srv.mux.HandleFunc("GET /v1/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	srv.mux.HandleFunc("GET /v1/panic-late", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"partial":`))
		panic("late boom")
	})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	resp, err := http.Get(ts.URL + "/v1/panic")
	if err != nil {
		t.Fatalf("a panicking handler got no answer: %v", err)
	}
	var body ErrorBody
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	id := resp.Header.Get(RequestIDHeader)
	if err != nil || resp.StatusCode != http.StatusInternalServerError || body.Error.Code != "internal" || id == "" || !strings.Contains(body.Error.Message, id) {
		t.Errorf("got %d %+v (id %q, %v), want a 500 internal naming the request id", resp.StatusCode, body, id, err)
	}
	if !strings.Contains(log.String(), "request_id="+id) || !strings.Contains(log.String(), "boom") {
		t.Errorf("the log has no record of the panic with request_id=%s:\n%s", id, log.String())
	}

	if resp, err := http.Get(ts.URL + "/v1/panic-late"); err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			t.Error("an answer a panic interrupted was delivered as if whole")
		}
	}
	resp, err = http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatalf("after the panics: %v", err)
	}
	resp.Body.Close()
}
