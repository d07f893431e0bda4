package files

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/files/pdftest"
)

// fuzzOptions are small caps, so that the fuzzer reaches them, and the PDF child.
func fuzzOptions(t testing.TB) Options {
	return Options{ChunkBytes: 200, MaxPartBytes: 400, Location: time.UTC, MaxExtractedBytes: 16 << 10, MaxParts: 40,
		PDF: testChild(t, time.Second)}
}

// checkParts: each part is valid UTF-8 within MaxPartBytes with a JSON context, and all of them
// within the caps.
func checkParts(t *testing.T, parts []Part, o Options) {
	t.Helper()
	if len(parts) > o.MaxParts {
		t.Fatalf("%d parts, over MaxParts %d", len(parts), o.MaxParts)
	}
	total := 0
	for _, p := range parts {
		total += len(p.Content)
		if !utf8.ValidString(p.Content) || strings.TrimSpace(p.Content) == "" || len(p.Content) > o.MaxPartBytes {
			t.Fatalf("bad part content %q", p.Content)
		}
		if !json.Valid(p.Context) {
			t.Fatalf("context %s is not JSON", p.Context)
		}
	}
	if total > o.MaxExtractedBytes {
		t.Fatalf("%d bytes of parts, over MaxExtractedBytes %d", total, o.MaxExtractedBytes)
	}
}

// FuzzParse is the upload dispatcher: any name picks a format (or none), any bytes are parsed. It
// must never panic, hang or give more than the caps allow.
func FuzzParse(f *testing.F) {
	seeds := []struct{ name, data string }{
		{"a.md", "# T\n\n## A\n\ntext [[L]] #tag"}, {"a.txt", "one\n\ntwo"}, {"a.log", "l1\nl2"},
		{"a.json", `[1, {"a": 2}, "x"]`}, {"a.jsonl", "{}\n[1]\nbad"}, {"a.csv", "h1,h2\n1,2\n,3"},
		{"a.yaml", "a: 1\nb: [2]\n"}, {"a.pdf", string(pdftest.Minimal("page text"))}, {"a.pdf", string(pdftest.KidsCycle())},
		{"a.png", "\x89PNG\r\n\x1a\n"}, {"noext", "x"}, {"A.MD", "---\ntitle: t\n---\n"}, {"../x.json", "{"},
	}
	for _, s := range seeds {
		f.Add(s.name, []byte(s.data))
	}
	o := fuzzOptions(f)
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		parts, err := Parse(context.Background(), name, data, mtime, o)
		if err != nil {
			if Kind(name) == "markdown" && !IsSkip(err) {
				t.Fatalf("%s: Markdown gave a non-skip error: %v", name, err)
			}
			return
		}
		if !Supported(name) {
			t.Fatalf("%s: parsed a file of no supported format", name)
		}
		checkParts(t, parts, o)
	})
}

// FuzzPDF reads PDFs in the child: seeded with page trees that make the reader loop (a /Kids that
// names itself, a /Parent cycle), it must end every input within the parse timeout, and never give
// more than the caps allow.
func FuzzPDF(f *testing.F) {
	f.Add(pdftest.KidsCycle())
	f.Add(pdftest.ParentCycle())
	f.Add(pdftest.Minimal("Quarterly revenue grew"))
	f.Add(repeatedPagePDF(60, "again"))
	o := fuzzOptions(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, err := Parse(context.Background(), "f.pdf", data, mtime, o)
		if err != nil {
			return
		}
		checkParts(t, parts, o)
	})
}
