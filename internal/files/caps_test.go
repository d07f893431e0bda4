package files

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/files/pdftest"
)

// repeatedPagePDF is a small PDF whose page tree names one page, showing text, n times: each page
// read gives the whole text again.
func repeatedPagePDF(n int, text string) []byte {
	return pdftest.Of(
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Repeat("3 0 R ", n), n),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		pdftest.Stream(text),
		pdftest.Font,
	)
}

// wantCap checks that err refuses the file, naming the setting to raise.
func wantCap(t *testing.T, parts []Part, err error, key string) {
	t.Helper()
	if err == nil {
		t.Fatalf("Parse gave %d parts, want the file refused over %s", len(parts), key)
	}
	if !IsSkip(err) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "raise") {
		t.Errorf("Parse error %q (skip %v), want a skip naming %s and saying to raise it", err, IsSkip(err), key)
	}
}

func TestPDFOverMaxParts(t *testing.T) {
	data := repeatedPagePDF(1999, "Chapter text")
	parts, err := Parse(context.Background(), "pages.pdf", data, mtime, Options{MaxParts: 100})
	wantCap(t, parts, err, "files.max_parts")
}

func TestPDFOverMaxExtractedBytes(t *testing.T) {
	data := repeatedPagePDF(500, strings.Repeat("lorem ipsum ", 80))
	parts, err := Parse(context.Background(), "pages.pdf", data, mtime, Options{MaxExtractedBytes: 64 << 10})
	wantCap(t, parts, err, "files.max_extracted_bytes")
}

func TestJSONArrayOverMaxParts(t *testing.T) {
	data := "[" + strings.TrimSuffix(strings.Repeat("1,", 100_000), ",") + "]"
	parts, err := Parse(context.Background(), "n.json", []byte(data), mtime, Options{})
	wantCap(t, parts, err, "files.max_parts")
}

func TestMarkdownOverMaxParts(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "## Heading %d\n\nline %d\n\n", i, i)
	}
	parts, err := Parse(context.Background(), "many.md", []byte(b.String()), mtime, Options{})
	wantCap(t, parts, err, "files.max_parts")
}

// TestMarkdownOverMaxExtractedBytes: a long title is repeated at the top of every section's part.
func TestMarkdownOverMaxExtractedBytes(t *testing.T) {
	var b strings.Builder
	b.WriteString("# " + strings.Repeat("t", 110) + "\n\n")
	for i := range 500 {
		fmt.Fprintf(&b, "## %s %d\n\nx\n\n", strings.Repeat("h", 100), i)
	}
	parts, err := Parse(context.Background(), "wide.md", []byte(b.String()), mtime, Options{MaxExtractedBytes: 64 << 10})
	wantCap(t, parts, err, "files.max_extracted_bytes")
}

// TestCSVAmplificationStopsEarly: each row's value is named by its (long) column header, so a small
// file would expand a hundredfold; the parse stops once over the cap rather than building it all.
func TestCSVAmplificationStopsEarly(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "%s%d,", strings.Repeat("c", 250), i)
	}
	b.WriteString("end\n")
	row := strings.Repeat("1,", 200) + "1\n"
	for range 1000 { // 400 KB of rows that would name 50 MB of headers
		b.WriteString(row)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	parts, err := Parse(context.Background(), "wide.csv", []byte(b.String()), mtime, Options{})
	runtime.ReadMemStats(&after)
	wantCap(t, parts, err, "files.max_extracted_bytes")
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("Parse allocated %d MB before refusing the file, want it stopped near the 8 MiB cap, not the 50 MB the rows expand to", alloc>>20)
	}
}

// TestBookSizedFilesPass: the default caps take a real book: 600 pages of a PDF, a 1 MB note.
func TestBookSizedFilesPass(t *testing.T) {
	if _, err := Parse(context.Background(), "book.pdf", repeatedPagePDF(600, strings.Repeat("word ", 400)), mtime, Options{}); err != nil {
		t.Errorf("600-page PDF: %v", err)
	}
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "## Chapter %d\n\n%s\n\n", i, strings.Repeat("A sentence of the book. ", 80))
	}
	if _, err := Parse(context.Background(), "book.md", []byte(b.String()), mtime, Options{}); err != nil {
		t.Errorf("1 MB note: %v", err)
	}
}

// TestMarkdownFrontMatterOverMaxExtractedBytes: a note's front matter is repeated in the context of
// each of its parts, and counts against the cap as often.
func TestMarkdownFrontMatterOverMaxExtractedBytes(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nnotes: " + strings.Repeat("f", 10<<10) + "\n---\n")
	for i := range 100 {
		fmt.Fprintf(&b, "## Section %d\n\ntext\n\n", i)
	}
	parts, err := Parse(context.Background(), "fm.md", []byte(b.String()), mtime, Options{MaxExtractedBytes: 64 << 10})
	wantCap(t, parts, err, "files.max_extracted_bytes")
}
