package files

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// frontMatter splits a note into its YAML front matter (nil when there is none, or when it does not
// parse: then the block stays in the body, so nothing is lost) and its body.
func frontMatter(text string) (map[string]any, string) {
	if !strings.HasPrefix(text, "---\n") {
		return nil, text
	}
	rest := text[len("---\n"):]
	end, next := -1, -1
	for i := 0; i < len(rest); {
		j := strings.IndexByte(rest[i:], '\n')
		line := rest[i:]
		if j >= 0 {
			line = rest[i : i+j]
		}
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			end, next = i, i+len(line)
			if j >= 0 {
				next++
			}
			break
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	if end < 0 {
		return nil, text
	}
	var raw any
	if err := yaml.Unmarshal([]byte(rest[:end]), &raw); err != nil {
		return nil, text
	}
	m, ok := sanitize(raw, 0).(map[string]any)
	if !ok {
		if raw == nil { // an empty block: "---\n---"
			return map[string]any{}, rest[next:]
		}
		return nil, text
	}
	return m, rest[next:]
}

// sanitize makes a decoded YAML value encodable as JSON: string keys, times as RFC 3339, no NaN.
func sanitize(v any, depth int) any {
	if depth > 32 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ToValidUTF8(k, "\uFFFD")] = sanitize(e, depth+1)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ToValidUTF8(fmt.Sprint(k), "\uFFFD")] = sanitize(e, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sanitize(e, depth+1)
		}
		return out
	case time.Time:
		return x.Format(time.RFC3339)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return x
	case string:
		return strings.ToValidUTF8(x, "\uFFFD")
	case []byte:
		return strings.ToValidUTF8(string(x), "\uFFFD")
	case nil, bool, int, int64, uint64:
		return x
	}
	return fmt.Sprint(v)
}

// fmDate is the date front matter gives the note (date, then created), if any.
func fmDate(fm map[string]any, loc *time.Location) (time.Time, bool) {
	for _, key := range []string{"date", "created", "created_at"} {
		s, ok := fm[key].(string)
		if !ok {
			continue
		}
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t, true
		}
		for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04",
			"2006-01-02 15:04", time.DateOnly} {
			if t, err := time.ParseInLocation(layout, strings.TrimSpace(s), loc); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// fmStrings reads a front matter list ("tags: [a, b]") or a string of words ("tags: a b, c").
func fmStrings(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	case string:
		out = strings.FieldsFunc(x, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	}
	return out
}

// section is a heading and the paragraphs under it.
type section struct {
	heading    string
	paragraphs []string
}

// markdown splits a note into parts: one per section, or per run of paragraphs when a section is
// long, each starting with the note's title (and the section's heading) so that it reads alone.
func (d *doc) markdown(src string) ([]Part, error) {
	fm, body := frontMatter(src)
	title := ""
	if fm != nil {
		if t, ok := fm["title"].(string); ok {
			title = strings.TrimSpace(t)
		}
	}
	secs := sections(body)
	if title == "" && len(secs) > 0 && strings.HasPrefix(secs[0].heading, "# ") {
		title = strings.TrimSpace(secs[0].heading[2:])
	}
	if title == "" {
		title = stem(d.rel)
	}
	title = clip(title, maxTitle)
	ts := time.Time{}
	var fmTags []string
	if fm != nil {
		if t, ok := fmDate(fm, d.o.Location); ok {
			ts = t
		}
		for _, tag := range fmStrings(fm["tags"]) {
			if t := normTag(strings.TrimPrefix(tag, "#")); t != "" {
				fmTags = append(fmTags, t)
			}
		}
	}
	var parts []Part
	var fcs []fileContext
	for _, s := range secs {
		heading := clip(strings.TrimSpace(strings.TrimLeft(s.heading, "#")), maxTitle)
		prefix := []string{"# " + title}
		if heading != "" && heading != title {
			prefix = append(prefix, strings.Repeat("#", max(2, headingLevel(s.heading)))+" "+heading)
		}
		texts := group(s.paragraphs, d.o.ChunkBytes, d.o.MaxPartBytes-len(strings.Join(prefix, "\n"))-2)
		if err := d.spend(texts, prefix); err != nil {
			return nil, err
		}
		for _, t := range texts {
			links, tags := linksAndTags(t)
			parts = append(parts, Part{
				Content:   withPrefix(prefix, t),
				Timestamp: ts,
				Links:     links,
				Tags:      text.Unique(append(slices.Clone(fmTags), tags...)),
			})
			fcs = append(fcs, fileContext{Title: title, Heading: heading})
		}
	}
	if len(parts) == 0 && len(fm) > 0 {
		// A note that is all front matter (a contact card, a book entry) is still worth a memory.
		var lines []string
		for _, k := range slices.Sorted(mapKeys(fm)) {
			lines = append(lines, fmt.Sprintf("%s: %v", k, fm[k]))
		}
		body := strings.Join(lines, "\n")
		if err := d.spend([]string{body}, []string{"# " + title}); err != nil {
			return nil, err
		}
		parts = append(parts, Part{Content: withPrefix([]string{"# " + title}, body), Timestamp: ts, Tags: fmTags})
		fcs = append(fcs, fileContext{Title: title})
	}
	var extra map[string]any
	if fm != nil {
		extra = map[string]any{"front_matter": fm}
		// The front matter is repeated in every part's context (finish keeps at most 16 KiB of it).
		b, _ := json.Marshal(fm)
		if err := d.within(min(len(b), maxContextBytes)*len(parts), 0); err != nil {
			return nil, err
		}
	}
	return d.finish(parts, fcs, extra), nil
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func headingLevel(h string) int {
	n := 0
	for n < len(h) && h[n] == '#' {
		n++
	}
	return n
}

// sections splits a note's body at its ATX headings ("## Plans"), outside fenced code, and each
// section into paragraphs at blank lines (a fenced block stays one paragraph).
func sections(body string) []section {
	var out []section
	cur := section{}
	var para []string
	fence := ""
	flushPara := func() {
		if len(para) > 0 {
			cur.paragraphs = append(cur.paragraphs, strings.Join(para, "\n"))
			para = para[:0]
		}
	}
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			para = append(para, line)
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			para = append(para, line)
			continue
		}
		if isHeading(line) {
			flushPara()
			if cur.heading != "" || len(cur.paragraphs) > 0 {
				out = append(out, cur)
			}
			cur = section{heading: strings.TrimSpace(line)}
			continue
		}
		if strings.TrimSpace(line) == "" {
			flushPara()
			continue
		}
		para = append(para, line)
	}
	flushPara()
	if cur.heading != "" || len(cur.paragraphs) > 0 {
		out = append(out, cur)
	}
	return out
}

// fenceOpen returns the fence a line opens (``` or ~~~, as long as written), or "".
func fenceOpen(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// isHeading reports an ATX heading: 1 to 6 '#' at the start, then a space or the end of the line.
func isHeading(line string) bool {
	n := headingLevel(line)
	return n >= 1 && n <= 6 && (len(line) == n || line[n] == ' ' || line[n] == '\t')
}

// linksAndTags finds [[wikilinks]] (target only: no alias, heading or block reference) and #tags
// (a '#' at a word's start, then letters, digits, _ - /, not only digits) outside inline code.
func linksAndTags(src string) (links, tags []string) {
	inCode := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '`':
			inCode = !inCode
		case inCode:
		case c == '[' && strings.HasPrefix(src[i:], "[["):
			end := strings.Index(src[i+2:], "]]")
			if end < 0 {
				continue
			}
			inner := src[i+2 : i+2+end]
			if strings.ContainsAny(inner, "\n[") {
				continue
			}
			target, _, _ := strings.Cut(inner, "|")
			target, _, _ = strings.Cut(target, "#")
			target, _, _ = strings.Cut(target, "^")
			if t := strings.TrimSpace(target); t != "" {
				links = append(links, t)
			}
			i += 2 + end + 1
		case c == '#' && (i == 0 || isTagBoundary(src[i-1])):
			j := i + 1
			for j < len(src) {
				r, w := utf8.DecodeRuneInString(src[j:])
				if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '/') {
					break
				}
				j += w
			}
			if t := normTag(src[i+1 : j]); t != "" {
				tags = append(tags, t)
			}
			i = j - 1
		}
	}
	return text.Unique(links), text.Unique(tags)
}

func isTagBoundary(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '(' || b == ',' }

// normTag lowercases a tag and refuses one that is only digits (an issue number, "#1") or empty.
func normTag(t string) string {
	t = strings.Trim(strings.ToLower(strings.TrimSpace(t)), "/-_")
	if t == "" || strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		return ""
	}
	if len(t) > 64 {
		return ""
	}
	return t
}

// maxTitle bounds the title and heading repeated at the top of every part.
const maxTitle = 120

// clip cuts s to at most n bytes at a word or rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:cutAt(s, n)])
}
