package files

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/exif/exiftest"
	"github.com/dormouse-dev/dormouse/internal/files/pdftest"
)

var mtime = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

func parse(t *testing.T, rel string, data []byte) []Part {
	t.Helper()
	parts, err := Parse(context.Background(), rel, data, mtime, Options{Location: time.UTC})
	if err != nil {
		t.Fatalf("Parse(%s) error: %v", rel, err)
	}
	return parts
}

func contents(parts []Part) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Content
	}
	return out
}

func fileCtx(t *testing.T, p Part) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.Context, &m); err != nil {
		t.Fatalf("context %s is not a JSON object: %v", p.Context, err)
	}
	return m
}

func TestMarkdown(t *testing.T) {
	note := "---\ntitle: Trip to Lisbon\ndate: 2026-02-01\ntags: [travel, Family]\nrating: 4\n---\n" +
		"Intro paragraph about the [[Lisbon]] trip with [[Alice Smith|Alice]].\n\n" +
		"## Flights\n\nWe fly TP123 on Friday. #booking\n\n```\n# not a heading #nottag\n```\n\n" +
		"## Hotels\n\nStaying at [[Hotel Avenida#Rooms]] near #lisbon/center; see issue #42.\n"
	parts := parse(t, "trips/lisbon.md", []byte(note))
	want := []string{
		"# Trip to Lisbon\n\nIntro paragraph about the [[Lisbon]] trip with [[Alice Smith|Alice]].",
		"# Trip to Lisbon\n## Flights\n\nWe fly TP123 on Friday. #booking\n```\n# not a heading #nottag\n```",
		"# Trip to Lisbon\n## Hotels\n\nStaying at [[Hotel Avenida#Rooms]] near #lisbon/center; see issue #42.",
	}
	if diff := cmp.Diff(contents(parts), want); diff != "" {
		t.Fatalf("contents mismatch (-got +want):\n%s", diff)
	}
	day := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range parts {
		if !p.Timestamp.Equal(day) {
			t.Errorf("timestamp %v, want the front matter's date %v", p.Timestamp, day)
		}
	}
	if diff := cmp.Diff(parts[0].Links, []string{"Lisbon", "Alice Smith"}); diff != "" {
		t.Errorf("links of part 1 (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(parts[1].Tags, []string{"travel", "family", "booking"}); diff != "" {
		t.Errorf("tags of part 2 (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(parts[2].Links, []string{"Hotel Avenida"}); diff != "" {
		t.Errorf("links of part 3 (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(parts[2].Tags, []string{"travel", "family", "lisbon/center"}); diff != "" {
		t.Errorf("tags of part 3 (-got +want):\n%s", diff)
	}
	c := fileCtx(t, parts[1])
	fm := c["front_matter"].(map[string]any)
	if fm["title"] != "Trip to Lisbon" || fm["rating"] != float64(4) {
		t.Errorf("front matter in context = %v", fm)
	}
	f := c["file"].(map[string]any)
	if f["path"] != "trips/lisbon.md" || f["heading"] != "Flights" || f["part"] != float64(2) || f["parts"] != float64(3) {
		t.Errorf("file in context = %v", f)
	}
}

func TestMarkdownTitleAndFallbacks(t *testing.T) {
	tests := []struct {
		name, rel, note string
		want            []string
		ts              time.Time
	}{
		{"H1 is the title", "a.md", "# Groceries\n\nmilk\neggs\n", []string{"# Groceries\n\nmilk\neggs"}, mtime},
		{"file name is the title", "dir/Weekly review.md", "Shipped the release.\n", []string{"# Weekly review\n\nShipped the release."}, mtime},
		{"front matter only", "people/bob.md", "---\nrole: engineer\nteam: storage\n---\n", []string{"# bob\n\nrole: engineer\nteam: storage"}, mtime},
		{"broken front matter stays text", "x.md", "---\nkey: [unclosed\n---\nbody\n", []string{"# x\n\n---\nkey: [unclosed\n---\nbody"}, mtime},
		{"created with a time", "y.md", "---\ncreated: 2025-12-24 18:30\n---\nEve dinner.\n", []string{"# y\n\nEve dinner."}, time.Date(2025, 12, 24, 18, 30, 0, 0, time.UTC)},
		{"CRLF and BOM", "w.md", "\xef\xbb\xbf# Win\r\n\r\nline one\r\n", []string{"# Win\n\nline one"}, mtime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := parse(t, tt.rel, []byte(tt.note))
			if diff := cmp.Diff(contents(parts), tt.want); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
			if !parts[0].Timestamp.Equal(tt.ts) {
				t.Errorf("timestamp %v, want %v", parts[0].Timestamp, tt.ts)
			}
		})
	}
}

func TestLongSectionIsSplitWithTitle(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Log\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "Paragraph %d has some words in it to fill the space of a chunk nicely.\n\n", i)
	}
	parts, err := Parse(context.Background(), "l.md", []byte(b.String()), mtime, Options{ChunkBytes: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 4 {
		t.Fatalf("got %d parts, want the section split in several", len(parts))
	}
	for _, p := range parts {
		if !strings.HasPrefix(p.Content, "# Log\n\n") || len(p.Content) > 500+len("# Log\n\n") {
			t.Errorf("part %q: want the title first and at most ~500 bytes", p.Content)
		}
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		rel, data string
		want      []string
	}{
		{"notes.txt", "First para\nstill first.\n\n\nSecond para.\n", []string{"First para\nstill first.\nSecond para."}},
		{"app.log", "12:00 start\n12:01 ready\n", []string{"12:00 start\n12:01 ready"}},
		{"small.json", `{"name":"Bob","langs":["go","c"]}`, []string{`{"langs":["go","c"],"name":"Bob"}`}},
		{"list.json", `[{"a":1},"two",3]`, []string{`{"a":1}`, `"two"`, `3`}},
		{"events.jsonl", "{\"e\":\"login\"}\nnot json\n\n{\"e\":\"logout\"}\n", []string{`{"e":"login"}`, `{"e":"logout"}`}},
		{"people.csv", "name,role,city\nAlice,cto,Paris\n\"Bob, Jr\",,Rome\n", []string{"name: Alice; role: cto; city: Paris", "name: Bob, Jr; city: Rome"}},
		{"conf.yaml", "server:\n  port: 80\n# comment\nname: web\n", []string{"server:\n  port: 80\n# comment\nname: web"}},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			parts := parse(t, tt.rel, []byte(tt.data))
			if diff := cmp.Diff(contents(parts), tt.want); diff != "" {
				t.Errorf("(-got +want):\n%s", diff)
			}
			for _, p := range parts {
				if !p.Timestamp.Equal(mtime) {
					t.Errorf("timestamp %v, want mtime", p.Timestamp)
				}
				if f := fileCtx(t, p)["file"].(map[string]any); f["path"] != tt.rel {
					t.Errorf("context file.path = %v, want %s", f["path"], tt.rel)
				}
			}
		})
	}
}

func TestSkipsAndFailures(t *testing.T) {
	tests := []struct {
		rel, data string
		skip      bool // else a retryable error
		msg       string
	}{
		{"empty.md", "", true, "empty file"},
		{"blank.txt", " \n\t\n", true, "empty file"},
		{"latin1.txt", "caf\xe9 cr\xe8me", true, "not valid UTF-8"},
		{"bin.log", "abc\x00def", true, "binary content"},
		{"x.exe", "MZ", true, "unsupported file type"},
		{"bad.json", `{"a":`, false, "parse JSON"},
		{"two.json", `{} {}`, false, "more than one value"},
		{"bad.jsonl", "nope\nnot either\n", false, "no line holds valid JSON"},
		{"bad.yaml", "a: [1,\n", false, "parse YAML"},
		{"bad.pdf", "%PDF-1.4\nthis is not really a pdf\n%%EOF\n", false, "parse PDF"},
		{"notpdf.pdf", "hello", false, "no %PDF- header"},
		{"truncated.png", "\x89PNG\r\n\x1a\n", true, "not a readable png image"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			_, err := Parse(context.Background(), tt.rel, []byte(tt.data), mtime, Options{})
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if IsSkip(err) != tt.skip || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Parse error %q (skip %v), want skip=%v containing %q", err, IsSkip(err), tt.skip, tt.msg)
			}
		})
	}
}

func TestPDF(t *testing.T) {
	parts := parse(t, "docs/report.pdf", pdftest.Minimal("Quarterly revenue grew by twelve percent"))
	if len(parts) != 1 {
		t.Fatalf("got %d parts, want 1: %q", len(parts), contents(parts))
	}
	if c := parts[0].Content; !strings.HasPrefix(c, "report (page 1)\n\n") || !strings.Contains(c, "Quarterly revenue grew") {
		t.Errorf("content %q, want the title, page and the page's text", c)
	}
	if f := fileCtx(t, parts[0])["file"].(map[string]any); f["page"] != float64(1) {
		t.Errorf("context file = %v, want page 1", f)
	}
	// Cut anywhere, the file must fail cleanly rather than panic.
	full := pdftest.Minimal("Some text")
	for _, n := range []int{10, 100, len(full) / 2, len(full) - 20} {
		_, err := Parse(context.Background(), "cut.pdf", full[:n], mtime, Options{})
		if err == nil {
			t.Errorf("PDF cut at %d bytes parsed without error", n)
		}
	}
}

func imageBytes(t *testing.T, format string) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 40, 30), color.Palette{color.Black, color.White})
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "gif":
		err = gif.Encode(&b, img, nil)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withExif gives a JPEG a DateTimeOriginal.
func withExif(jpg []byte, date string) []byte {
	return exiftest.With(jpg, exiftest.Tags{DateTimeOriginal: date})
}

// webpLossless is a VP8L header for a w×h image: what DecodeConfig reads.
func webpLossless(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	vp8l := []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}
	vp8l = append(vp8l, 0, 0, 0)
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+len(vp8l)))
	b.WriteString("WEBPVP8L")
	binary.Write(&b, binary.LittleEndian, uint32(len(vp8l)))
	b.Write(vp8l)
	return b.Bytes()
}

func TestImages(t *testing.T) {
	taken := time.Date(2025, 7, 14, 9, 30, 5, 0, time.UTC)
	tests := []struct {
		rel    string
		data   []byte
		want   string
		ts     time.Time
		format string
	}{
		{"pics/a.png", imageBytes(t, "png"), "Image a.png (in pics): PNG, 40×30 pixels", mtime, "png"},
		{"b.gif", imageBytes(t, "gif"), "Image b.gif (in the folder's top level): GIF, 40×30 pixels", mtime, "gif"},
		{"c.jpg", withExif(imageBytes(t, "jpeg"), "2025:07:14 09:30:05"), "Taken on 14 July 2025 at 09:30.", taken, "jpeg"},
		{"d.jpeg", imageBytes(t, "jpeg"), "JPEG, 40×30 pixels", mtime, "jpeg"},
		{"e.webp", webpLossless(640, 480), "WEBP, 640×480 pixels", mtime, "webp"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			parts := parse(t, tt.rel, tt.data)
			if len(parts) != 1 || !strings.Contains(parts[0].Content, tt.want) {
				t.Fatalf("contents %q, want one containing %q", contents(parts), tt.want)
			}
			if !parts[0].Timestamp.Equal(tt.ts) {
				t.Errorf("timestamp %v, want %v", parts[0].Timestamp, tt.ts)
			}
			img := fileCtx(t, parts[0])["image"].(map[string]any)
			if img["format"] != tt.format || img["bytes"] != float64(len(tt.data)) {
				t.Errorf("context image = %v", img)
			}
		})
	}
}

// FuzzMarkdown feeds notes of any shape to the Markdown parser: it must not panic, and every part it
// returns must be a valid memory: non-blank UTF-8 within the size limit, with a JSON object context.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"", "# T\n\nbody", "---\ntitle: x\ndate: 2026-01-01\ntags: [a, b]\n---\ntext [[L|a]] #tag",
		"---\n- a\n- b\n---\nlist front matter", "---\na: &x [*x]\n---\n", "```\n#x\n", "[[a\n]] [[]] #1 #a/b",
		"---\n? [a, b]\n: c\n---\n", "# \n## \n###### h\n####### no",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := Options{ChunkBytes: 200, MaxPartBytes: 400, Location: time.UTC}
		parts, err := Parse(context.Background(), "f.md", data, mtime, o)
		if err != nil {
			if !IsSkip(err) {
				t.Fatalf("Markdown gave a non-skip error: %v", err)
			}
			return
		}
		for _, p := range parts {
			if !utf8.ValidString(p.Content) || strings.TrimSpace(p.Content) == "" || len(p.Content) > o.MaxPartBytes {
				t.Fatalf("bad part content %q", p.Content)
			}
			var m map[string]any
			if err := json.Unmarshal(p.Context, &m); err != nil {
				t.Fatalf("context %s: %v", p.Context, err)
			}
			if p.Timestamp.IsZero() {
				t.Fatal("zero timestamp")
			}
		}
	})
}

// FuzzImage feeds bytes to the image reader (DecodeConfig and the EXIF walker) under each image name.
func FuzzImage(f *testing.F) {
	f.Add(withExif([]byte{0xFF, 0xD8, 0xFF, 0xD9}, "2025:07:14 09:30:05"))
	f.Add(webpLossless(3, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		describe := func(context.Context, string, string, []byte) (string, error) { return "A cat on a mat.", nil }
		for _, name := range []string{"x.jpg", "x.webp", "x.png", "x.gif"} {
			if _, err := Parse(context.Background(), name, data, mtime, Options{}); err != nil && !IsSkip(err) {
				t.Fatalf("%s: non-skip error %v", name, err)
			}
			parts, err := Parse(context.Background(), name, data, mtime, Options{Describe: describe, DescribeMaxPixels: 1 << 20})
			if err != nil && !IsSkip(err) {
				t.Fatalf("%s described: non-skip error %v", name, err)
			}
			if err == nil && (len(parts) != 1 || !utf8.ValidString(parts[0].Content)) {
				t.Fatalf("%s described: %q", name, contents(parts))
			}
		}
	})
}

func TestLongTitleIsClipped(t *testing.T) {
	long := strings.Repeat("word ", 100)
	parts, err := Parse(context.Background(), "t.md", []byte("# "+long+"\n\n## "+long+"\n\nbody"), mtime,
		Options{ChunkBytes: 200, MaxPartBytes: 400})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if len(p.Content) > 400 {
			t.Errorf("part of %d bytes, want at most 400: %q", len(p.Content), p.Content)
		}
	}
}

func TestHugeFrontMatterIsNotRepeated(t *testing.T) {
	note := "---\nblob: " + strings.Repeat("x", 20000) + "\n---\n# T\n\none\n\n## Two\n\ntwo\n"
	for _, p := range parse(t, "h.md", []byte(note)) {
		if len(p.Context) > maxContextBytes {
			t.Errorf("context of %d bytes", len(p.Context))
		}
		if c := fileCtx(t, p); c["omitted"] == nil || c["file"] == nil {
			t.Errorf("context %v, want the file's place and a note of what was left out", c)
		}
	}
}

// TestNameNotUTF8 is the fuzzer's find: a Linux file name is any bytes, and the name is the title
// of a PDF's and an untitled note's parts and the text of an image's, which must stay UTF-8.
func TestNameNotUTF8(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"\xf5.pdf", pdftest.Minimal("page text")},
		{"notes/\xff\xfe.md", []byte("no heading here")},
		{"pics/\xc3.png", imageBytes(t, "png")},
	} {
		parts := parse(t, c.name, c.data)
		if len(parts) == 0 {
			t.Fatalf("%q: no parts", c.name)
		}
		for _, p := range parts {
			if !utf8.ValidString(p.Content) || !strings.Contains(p.Content, "\uFFFD") {
				t.Errorf("%q: content %q, want UTF-8 naming the file with U+FFFD", c.name, p.Content)
			}
		}
	}
}
