// Package files turns a file's bytes into memories: Markdown notes (front matter, sections, wikilinks
// and tags), plain text, logs, JSON, JSON Lines, CSV, YAML, PDF text and images (their metadata, and
// what a vision model says they show when one is configured).
package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// Part is one memory's worth of a file.
type Part struct {
	Content   string
	Context   json.RawMessage // a JSON object
	Timestamp time.Time
	Links     []string // names this part links to ([[wikilinks]]): entities
	Tags      []string // #tags and front matter tags: topics
}

// Options tune Parse. Zero values take the defaults.
type Options struct {
	// ChunkBytes is the size a part aims for; paragraphs are grouped up to it.
	ChunkBytes int
	// MaxPartBytes is the most one part may hold (the API's limit on one memory's content).
	MaxPartBytes int
	// Location reads dates without a zone (front matter dates, EXIF).
	Location *time.Location

	// Describe, when set, asks a vision-capable model what an image shows: name is the file's base
	// name, mime image/png, image/jpeg, image/gif or image/webp. Its answer becomes the image's
	// memory beside the metadata; its error fails the file (a failure, retried), wrapped in
	// ErrDescribe. Nil keeps images to their metadata.
	Describe func(ctx context.Context, name, mime string, data []byte) (string, error)
	// DescribedBy names the describer ("provider/model") in each described image's context.
	DescribedBy string
	// DescribeMaxBytes and DescribeMaxPixels bound the images sent to Describe; a larger one is
	// stored with its metadata only, its context saying why. 0: 20 MiB and 50 megapixels.
	DescribeMaxBytes  int
	DescribeMaxPixels int

	// MaxExtractedBytes and MaxParts bound what one file may give: the text of its parts and how
	// many there are. A file over either is skipped with the setting to raise; the parse stops as
	// soon as it is over, so a small file that expands (a PDF naming one page a thousand times)
	// costs no more than the cap. 0: DefaultMaxExtractedBytes and DefaultMaxParts.
	MaxExtractedBytes int
	MaxParts          int

	// PDF reads PDFs in a child process, which is killed when it takes too long or too much
	// memory. Nil reads them in this process, where a file that makes the reader loop is never
	// stopped: only for tests of what the child runs.
	PDF *Child
}

// Defaults of Options' caps on what one file gives (files.max_extracted_bytes, files.max_parts):
// a book (a 1 MB note, a 600-page PDF) passes.
const (
	DefaultMaxExtractedBytes = 8 << 20
	DefaultMaxParts          = 2000
)

func (o *Options) fill() {
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = 2000
	}
	if o.MaxPartBytes <= 0 {
		o.MaxPartBytes = 64 << 10
	}
	o.ChunkBytes = min(o.ChunkBytes, o.MaxPartBytes)
	if o.DescribeMaxBytes <= 0 {
		o.DescribeMaxBytes = DefaultDescribeMaxBytes
	}
	if o.DescribeMaxPixels <= 0 {
		o.DescribeMaxPixels = DefaultDescribeMaxPixels
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.MaxExtractedBytes <= 0 {
		o.MaxExtractedBytes = DefaultMaxExtractedBytes
	}
	if o.MaxParts <= 0 {
		o.MaxParts = DefaultMaxParts
	}
}

// SkipError says why a file is not turned into memories at all: retrying it will not help until the
// file changes.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

func skip(format string, args ...any) error { return &SkipError{Reason: fmt.Sprintf(format, args...)} }

// IsSkip reports whether err is a SkipError.
func IsSkip(err error) bool {
	var s *SkipError
	return errors.As(err, &s)
}

// Kind names the format Parse uses for a file name, "" if it has none.
func Kind(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown":
		return "markdown"
	case ".txt", ".text":
		return "text"
	case ".log":
		return "log"
	case ".json":
		return "json"
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".csv":
		return "csv"
	case ".yaml", ".yml":
		return "yaml"
	case ".pdf":
		return "pdf"
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return "image"
	}
	return ""
}

// Supported reports whether Parse knows the format of a file name.
func Supported(name string) bool { return Kind(name) != "" }

// Parse turns the content of the file at rel (a slash-separated path relative to its root, used as
// the title's fallback and in each part's context) into parts. mtime is every part's timestamp unless
// the file gives a date of its own. A *SkipError means the file holds nothing to remember (empty,
// binary, not UTF-8, an unknown format); any other error is a failure worth retrying.
func Parse(ctx context.Context, rel string, data []byte, mtime time.Time, o Options) ([]Part, error) {
	o.fill()
	kind := Kind(rel)
	if kind == "" {
		return nil, skip("unsupported file type %q", path.Ext(rel))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, skip("empty file")
	}
	// A Linux file name is any bytes; parts and their context are text, so the name becomes UTF-8.
	d := doc{rel: strings.ToValidUTF8(rel, "\uFFFD"), kind: kind, mtime: mtime, o: o}
	switch kind {
	case "pdf":
		return d.pdf(ctx, data)
	case "image":
		return d.image(ctx, data)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return nil, skip("binary content (a NUL byte) in a %s file", kind)
	}
	if !utf8.Valid(data) {
		return nil, skip("not valid UTF-8 text")
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var parts []Part
	var err error
	switch kind {
	case "markdown":
		parts, err = d.markdown(text)
	case "text":
		parts, err = d.chunks(nil, splitParagraphs(text))
	case "log":
		parts, err = d.chunks(nil, strings.Split(text, "\n"))
	case "json":
		parts, err = d.json(text)
	case "jsonl":
		parts, err = d.jsonl(text)
	case "csv":
		parts, err = d.csv(text)
	case "yaml":
		parts, err = d.yaml(text)
	}
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, skip("no text to remember")
	}
	return parts, nil
}

// doc is one file being parsed.
type doc struct {
	rel   string
	kind  string
	mtime time.Time
	o     Options
	// bytes and parts count what the parts made so far hold, against the caps (spend).
	bytes, parts int
}

// spend counts the parts about to be made of texts, each behind prefix (withPrefix), against the
// caps: over either, the file is refused at once.
func (d *doc) spend(texts []string, prefix []string) error {
	n, each := 0, len(withPrefix(prefix, ""))
	for _, t := range texts {
		n += each + len(t)
	}
	if err := d.within(n, len(texts)); err != nil {
		return err
	}
	d.bytes, d.parts = d.bytes+n, d.parts+len(texts)
	return nil
}

// within reports whether parts holding bytes more text would keep the file within the caps: what a
// format that builds its pieces before its parts asks as it goes.
func (d *doc) within(bytes, parts int) error { return overCaps(d.bytes+bytes, d.parts+parts, d.o) }

// overCaps refuses a file that gives more bytes of text or parts than o allows, naming the setting.
func overCaps(bytes, parts int, o Options) error {
	if parts > o.MaxParts {
		return skip("the file gives more than %d memories (files.max_parts); raise files.max_parts to store it",
			o.MaxParts)
	}
	if bytes > o.MaxExtractedBytes {
		return skip("the file gives more than %d bytes of text (files.max_extracted_bytes); raise "+
			"files.max_extracted_bytes to store it", o.MaxExtractedBytes)
	}
	return nil
}

// fileContext is what every part's context says about where it came from.
type fileContext struct {
	Path    string `json:"path"`
	Type    string `json:"type"`
	Title   string `json:"title,omitempty"`
	Heading string `json:"heading,omitempty"`
	Page    int    `json:"page,omitempty"`
	Part    int    `json:"part"`
	Parts   int    `json:"parts"`
}

// finish numbers the parts and writes their contexts: the file's place and, for notes, the front
// matter.
func (d *doc) finish(parts []Part, fcs []fileContext, extra map[string]any) []Part {
	for i := range parts {
		fc := fcs[i]
		fc.Path, fc.Type, fc.Part, fc.Parts = d.rel, d.kind, i+1, len(parts)
		obj := map[string]any{"file": fc}
		for k, v := range extra {
			obj[k] = v
		}
		b, err := json.Marshal(obj)
		// extra comes from sanitize, which leaves only JSON values; but a huge front matter repeated
		// in every part would swamp the memories: keep the file's place only.
		if err != nil || len(b) > maxContextBytes {
			b, _ = json.Marshal(map[string]any{"file": fc, "omitted": "front matter or metadata over 16 KiB"})
		}
		parts[i].Context = b
		if parts[i].Timestamp.IsZero() {
			parts[i].Timestamp = d.mtime
		}
	}
	return parts
}

// maxContextBytes bounds one part's context.
const maxContextBytes = 16 << 10

// chunks groups pieces (paragraphs, lines, records) into parts of about ChunkBytes, each starting with
// prefix when there is one, and cuts any piece longer than a part may be.
func (d *doc) chunks(prefix []string, pieces []string) ([]Part, error) {
	texts := group(pieces, d.o.ChunkBytes, d.o.MaxPartBytes-len(strings.Join(prefix, "\n"))-2)
	if err := d.spend(texts, prefix); err != nil {
		return nil, err
	}
	parts := make([]Part, 0, len(texts))
	for _, t := range texts {
		parts = append(parts, Part{Content: withPrefix(prefix, t)})
	}
	return d.finish(parts, make([]fileContext, len(parts)), nil), nil
}

func withPrefix(prefix []string, text string) string {
	if len(prefix) == 0 {
		return text
	}
	return strings.Join(prefix, "\n") + "\n\n" + text
}

// group joins pieces with newlines into texts of at most target bytes (a piece longer than target
// stands alone, cut to hardMax). Blank pieces are dropped.
func group(pieces []string, target, hardMax int) []string {
	hardMax = max(hardMax, 64)
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for _, p := range pieces {
		p = strings.TrimRight(p, " \t\n")
		if strings.TrimSpace(p) == "" {
			continue
		}
		if cur.Len() > 0 && cur.Len()+1+len(p) > target {
			flush()
		}
		for len(p) > hardMax {
			cut := cutAt(p, hardMax)
			flush()
			cur.WriteString(p[:cut])
			flush()
			p = p[cut:]
		}
		if cur.Len() > 0 {
			cur.WriteByte('\n')
		}
		cur.WriteString(p)
	}
	flush()
	return out
}

// cutAt returns where to cut s to at most n bytes: after the last white space in its second half,
// else at a rune boundary.
func cutAt(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if i := strings.LastIndexAny(s[:n], " \n\t"); i > n/2 {
		return i + 1
	}
	if n = len(text.Clip(s, n)); n == 0 {
		return len(s)
	}
	return n
}

// splitParagraphs splits text at blank lines.
func splitParagraphs(text string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				out = append(out, strings.Join(cur, "\n"))
				cur = cur[:0]
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// stem is a file's name without directory and extension: a note's title when it gives none.
func stem(rel string) string {
	base := path.Base(rel)
	return strings.TrimSuffix(base, path.Ext(base))
}
