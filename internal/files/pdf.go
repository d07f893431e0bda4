package files

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages bounds the work one PDF may cause.
const maxPDFPages = 2000

// pdf extracts each page's text (a part per page, or per run of paragraphs on a long page). The
// reader panics on some malformed files: that is a parse error, not a crash.
func (d *doc) pdf(ctx context.Context, data []byte) (parts []Part, err error) {
	defer func() {
		if r := recover(); r != nil {
			parts, err = nil, fmt.Errorf("parse PDF: %v", r)
		}
	}()
	if !bytes.HasPrefix(bytes.TrimLeft(data, "\x00\t\n\r "), []byte("%PDF-")) {
		return nil, fmt.Errorf("parse PDF: no %%PDF- header")
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("parse PDF: %w", err)
	}
	n := r.NumPage()
	if n > maxPDFPages {
		return nil, skip("PDF has %d pages; at most %d are read", n, maxPDFPages)
	}
	title := stem(d.rel)
	var fcs []fileContext
	for i := 1; i <= n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		text, err := p.GetPlainText(nil)
		if err != nil {
			return nil, fmt.Errorf("parse PDF page %d: %w", i, err)
		}
		text = strings.ToValidUTF8(strings.ReplaceAll(text, "\x00", ""), "\uFFFD")
		prefix := []string{fmt.Sprintf("%s (page %d)", title, i)}
		for _, t := range group(splitParagraphs(text), d.o.ChunkBytes, d.o.MaxPartBytes-len(prefix[0])-2) {
			parts = append(parts, Part{Content: withPrefix(prefix, t)})
			fcs = append(fcs, fileContext{Title: title, Page: i})
		}
	}
	if len(parts) == 0 {
		return nil, skip("PDF has no extractable text (a scan without a text layer?)")
	}
	return d.finish(parts, fcs, nil), nil
}
