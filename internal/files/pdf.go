package files

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPDFPages bounds the pages of one PDF read, or files.max_parts when that is more.
const maxPDFPages = 2000

// pdfPage is the text of one page that has some.
type pdfPage struct {
	Page int    `json:"page"`
	Text string `json:"text"`
}

// pdf makes parts of each page's text (a part per page, or per run of paragraphs on a long page).
// The pages are read by o.PDF's child process when there is one: the reader has no bound of its own.
func (d *doc) pdf(ctx context.Context, data []byte) ([]Part, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(data, "\x00\t\n\r "), []byte("%PDF-")) {
		return nil, fmt.Errorf("parse PDF: no %%PDF- header")
	}
	read := readPDF
	if d.o.PDF != nil {
		read = d.o.PDF.readPDF
	}
	pages, err := read(ctx, data, d.o)
	if err != nil {
		return nil, err
	}
	title := stem(d.rel)
	var parts []Part
	var fcs []fileContext
	for _, p := range pages {
		prefix := []string{fmt.Sprintf("%s (page %d)", title, p.Page)}
		texts := group(splitParagraphs(p.Text), d.o.ChunkBytes, d.o.MaxPartBytes-len(prefix[0])-2)
		if err := d.spend(texts, prefix); err != nil {
			return nil, err
		}
		for _, t := range texts {
			parts = append(parts, Part{Content: withPrefix(prefix, t)})
			fcs = append(fcs, fileContext{Title: title, Page: p.Page})
		}
	}
	if len(parts) == 0 {
		return nil, skip("PDF has no extractable text (a scan without a text layer?)")
	}
	return d.finish(parts, fcs, nil), nil
}

// readPDF extracts the text of each page in this process, stopping once over o's caps (each page
// with text is at least a part). The reader panics on some malformed files: that is a parse error,
// not a crash. It loops for ever on others (a page tree that is its own child): Child bounds that.
func readPDF(ctx context.Context, data []byte, o Options) (pages []pdfPage, err error) {
	defer func() {
		if r := recover(); r != nil {
			pages, err = nil, fmt.Errorf("parse PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("parse PDF: %w", err)
	}
	n := r.NumPage()
	if most := max(maxPDFPages, o.MaxParts); n > most {
		return nil, skip("PDF has %d pages; at most %d are read", n, most)
	}
	size := 0
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
		if strings.TrimSpace(text) == "" {
			continue
		}
		size += len(text)
		if err := overCaps(size, len(pages)+1, o); err != nil {
			return nil, err
		}
		pages = append(pages, pdfPage{Page: i, Text: text})
	}
	return pages, nil
}
