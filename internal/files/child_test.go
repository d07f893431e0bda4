package files

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/files/pdftest"
)

// TestMain lets this test binary be the PDF reader's child, as `dormouse extract-pdf` is the
// daemon's.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ChildArg {
		os.Exit(ServeChild(os.Args[2:], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// testChild runs this test binary as the child.
func testChild(t testing.TB, timeout time.Duration) *Child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Child{Command: []string{exe, ChildArg}, Timeout: timeout}
}

// TestPDFThatLoopsIsStopped: a PDF that makes the reader loop fails the file once the parse
// timeout has passed, naming the setting, and nothing keeps spinning.
func TestPDFThatLoopsIsStopped(t *testing.T) {
	child := testChild(t, 2*time.Second)
	for name, data := range map[string][]byte{"kids.pdf": pdftest.KidsCycle(), "parent.pdf": pdftest.ParentCycle()} {
		parts, err := Parse(context.Background(), name, data, mtime, Options{PDF: child})
		if err == nil || IsSkip(err) || !strings.Contains(err.Error(), "files.parse_timeout") {
			t.Errorf("%s: Parse = %d parts, %v; want a failure naming files.parse_timeout", name, len(parts), err)
		}
	}
}

// TestPDFInChild: the child reads what the process would, and says the same about a bad file.
func TestPDFInChild(t *testing.T) {
	child := testChild(t, 0)
	parts, err := Parse(context.Background(), "docs/report.pdf", pdftest.Minimal("Quarterly revenue grew"), mtime, Options{PDF: child})
	if err != nil || len(parts) != 1 || !strings.Contains(parts[0].Content, "Quarterly revenue grew") {
		t.Errorf("Parse in the child = %q, %v; want the page's text", contents(parts), err)
	}
	_, err = Parse(context.Background(), "bad.pdf", []byte("%PDF-1.4\nthis is not really a pdf\n%%EOF\n"), mtime, Options{PDF: child})
	if err == nil || IsSkip(err) || !strings.Contains(err.Error(), "parse PDF") {
		t.Errorf("bad PDF in the child: %v, want a parse failure", err)
	}
	parts, err = Parse(context.Background(), "pages.pdf", repeatedPagePDF(1999, "Chapter"), mtime, Options{PDF: child, MaxParts: 100})
	wantCap(t, parts, err, "files.max_parts")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, "report.pdf", pdftest.Minimal("x"), mtime, Options{PDF: child}); !errors.Is(err, context.Canceled) {
		t.Errorf("Parse with a cancelled context = %v, want context.Canceled", err)
	}
}

// balloonPDF is a 1 MiB PDF whose one page's compressed content expands to over 300 MB of text.
func balloonPDF(t *testing.T) []byte {
	t.Helper()
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("("+strings.Repeat("A", 100)+") Tj\n"), 10000)
	for range 300 {
		w.Write(chunk)
	}
	w.Close()
	// FlateDecode is zlib: a two-byte header, the deflate stream, then an Adler-32 the reader ignores.
	stream := append([]byte{0x78, 0xda}, z.Bytes()...)
	stream = append(stream, 0, 0, 0, 0)
	return pdftest.Of(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(stream), stream),
		pdftest.Font,
	)
}

// TestPDFThatBalloonsIsStopped: a small PDF whose reading takes more memory than the child may have
// is skipped with that reason; the memory was the child's, not this process's.
func TestPDFThatBalloonsIsStopped(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime cannot run within the child's memory limit")
	}
	data := balloonPDF(t)
	parts, err := Parse(context.Background(), "balloon.pdf", data, mtime, Options{PDF: testChild(t, time.Minute)})
	if !IsSkip(err) || !strings.Contains(err.Error(), "MiB of memory") {
		t.Errorf("%d-byte PDF: Parse = %d parts, %v; want it skipped for the reader's memory", len(data), len(parts), err)
	}
}
