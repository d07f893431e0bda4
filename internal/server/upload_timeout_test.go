package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/files/pdftest"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// TestMain lets this test binary be the PDF reader's child, as `dormouse extract-pdf` is the
// daemon's.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == files.ChildArg {
		os.Exit(files.ServeChild(os.Args[2:], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// TestUploadPastParseTimeoutGetsItsAnswer: with the default timeouts (a parse may run as long as
// api.write_timeout, and longer than api.read_timeout), a PDF that makes the reader loop is stopped
// at files.parse_timeout and its 422 still reaches the client over a real connection. The timeouts
// are the defaults scaled down together, so the test takes 2 s, not 30.
func TestUploadPastParseTimeoutGetsItsAnswer(t *testing.T) {
	cfg := config.Default()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("the default configuration: %v", err)
	}
	const scale = 15
	cfg.API.ReadTimeout /= scale
	cfg.API.WriteTimeout /= scale
	cfg.Files.ParseTimeout /= scale

	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ing := &watch.Ingester{Store: st, AutoCreate: true, Location: time.UTC,
		PDF: &files.Child{Command: []string{exe, files.ChildArg}, Timeout: time.Duration(cfg.Files.ParseTimeout)}}
	srv := New(st, &recall.Engine{}, Options{AutoCreate: true, Files: ing, UploadTimeout: cfg.UploadTimeout()})
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ReadTimeout = time.Duration(cfg.API.ReadTimeout)
	ts.Config.WriteTimeout = time.Duration(cfg.API.WriteTimeout)
	ts.Start()
	defer ts.Close()

	start := time.Now()
	_, err = client.New(ts.URL).UploadFile(t.Context(), "main", "loop.pdf", pdftest.KidsCycle(), client.UploadOptions{})
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnprocessableEntity || !strings.Contains(apiErr.Message, "files.parse_timeout") {
		t.Fatalf("upload of a looping PDF after %s: %v; want 422 naming files.parse_timeout", time.Since(start).Round(time.Millisecond), err)
	}
}
