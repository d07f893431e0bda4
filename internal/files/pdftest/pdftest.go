// Package pdftest builds small PDFs for tests: a valid one with a line of
// text, and the page trees that make ledongthuc/pdf loop.
package pdftest

import (
	"bytes"
	"fmt"
)

// Of writes a PDF of the given objects (numbered from 1; the first is the
// catalog) with a correct xref table.
func Of(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// Stream is a content stream object showing text in Helvetica (font /F1).
func Stream(text string) string {
	s := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

// Font is the /F1 font object Stream's text is set in.
const Font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// Minimal is a one-page PDF showing text.
func Minimal(text string) []byte {
	return Of(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		Stream(text),
		Font,
	)
}

// KidsCycle is a page tree whose /Kids names itself: ledongthuc/pdf's Page
// looks for page 1 in it for ever.
func KidsCycle() []byte {
	return Of(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R] /Count 1 >>",
	)
}

// ParentCycle is a page whose /Parent chain comes back to it, and which has
// no /Resources: the reader walks the chain for ever looking for inherited
// ones.
func ParentCycle() []byte {
	return Of(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 3 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		Stream("looping"),
	)
}
