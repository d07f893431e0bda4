package watch

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/files/pdftest"
)

// TestMain lets this test binary be the PDF reader's child, as `dormouse extract-pdf` is the
// daemon's.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == files.ChildArg {
		os.Exit(files.ServeChild(os.Args[2:], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// pdfChild runs this test binary as the PDF reader's child.
func pdfChild(t testing.TB, timeout time.Duration) *files.Child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &files.Child{Command: []string{exe, files.ChildArg}, Timeout: timeout}
}

// TestLoopingPDFDoesNotWedgeTheWatcher: a PDF that makes the reader loop fails within the parse
// timeout; the scan (POST /v1/watch/scan) answers, the folder's other files are stored, and the
// watcher stops when asked (SIGTERM).
func TestLoopingPDFDoesNotWedgeTheWatcher(t *testing.T) {
	e := newEnv(t)
	e.ing.PDF = pdfChild(t, time.Second)
	e.write("loop.pdf", string(pdftest.KidsCycle()))
	e.write("note.md", "The wombat is still stored.\n")
	w := NewWatcher(e.folder(), e.ing, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	if _, err := w.Scan(context.Background()); err != nil {
		t.Errorf("scan: %v", err)
	}
	if got := e.trackedFiles()["loop.pdf"]; got.Status != "failed" || !strings.Contains(got.Error, "files.parse_timeout") {
		t.Errorf("loop.pdf tracked %+v, want failed naming files.parse_timeout", got)
	}
	if ids, _ := e.found("wombat"); len(ids) != 1 {
		t.Errorf("the folder's note: found %v, want it stored", ids)
	}
	cancel()
	<-done
}
