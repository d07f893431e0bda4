package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// describer is a vision model's stand-in: it records what it was asked and answers from a script.
type describer struct {
	calls  []describeCall
	answer string
	err    error
}

type describeCall struct {
	name, mime string
	data       []byte
}

func (d *describer) describe(_ context.Context, name, mime string, data []byte) (string, error) {
	d.calls = append(d.calls, describeCall{name, mime, data})
	return d.answer, d.err
}

func TestDescribedImages(t *testing.T) {
	taken := time.Date(2025, 7, 14, 9, 30, 5, 0, time.UTC)
	jpg := withExif(imageBytes(t, "jpeg"), "2025:07:14 09:30:05")
	tests := []struct {
		rel, mime string
		data      []byte
		ts        time.Time
	}{
		{"pics/a.png", "image/png", imageBytes(t, "png"), mtime},
		{"b.gif", "image/gif", imageBytes(t, "gif"), mtime},
		{"trip/c.jpg", "image/jpeg", jpg, taken},
		{"e.webp", "image/webp", webpLossless(640, 480), mtime},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			d := &describer{answer: "  A harbour at dusk; a red boat named \"Molly\" is moored by the wall.\n"}
			parts, err := Parse(context.Background(), tt.rel, tt.data, mtime,
				Options{Location: time.UTC, Describe: d.describe, DescribedBy: "ollama/llava"})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.calls) != 1 || d.calls[0].mime != tt.mime || !bytes.Equal(d.calls[0].data, tt.data) ||
				d.calls[0].name != tt.rel[strings.LastIndex(tt.rel, "/")+1:] {
				t.Fatalf("describer asked %+v, want once with the file's bytes as %s", d.calls, tt.mime)
			}
			if len(parts) != 1 {
				t.Fatalf("%d parts, want 1", len(parts))
			}
			c := parts[0].Content
			if !strings.HasPrefix(c, "Image ") || !strings.HasSuffix(c, "\n\nA harbour at dusk; a red boat named \"Molly\" is moored by the wall.") {
				t.Errorf("content %q, want the metadata then the description", c)
			}
			if !parts[0].Timestamp.Equal(tt.ts) {
				t.Errorf("timestamp %v, want %v", parts[0].Timestamp, tt.ts)
			}
			img := fileCtx(t, parts[0])["image"].(map[string]any)
			if img["described_by"] != "ollama/llava" || img["width"] == nil || img["not_described"] != nil {
				t.Errorf("context image = %v, want its metadata and described_by", img)
			}
		})
	}
}

func TestDescribeFailureFailsTheFile(t *testing.T) {
	down := errors.New("the LLM provider is unavailable: ollama answered 500")
	for _, tc := range []struct {
		name string
		d    *describer
	}{
		{"model down", &describer{err: down}},
		{"empty answer", &describer{answer: " \n "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := Parse(context.Background(), "a.png", imageBytes(t, "png"), mtime,
				Options{Describe: tc.d.describe, DescribedBy: "ollama/llava"})
			if err == nil || IsSkip(err) || !errors.Is(err, ErrDescribe) || parts != nil {
				t.Fatalf("Parse = %d parts, error %v; want a failure (not a skip) wrapping ErrDescribe", len(parts), err)
			}
			if tc.d.err != nil && (!errors.Is(err, down) || !strings.Contains(err.Error(), "ollama/llava")) {
				t.Errorf("error %q does not carry the model's error and name", err)
			}
		})
	}
}

func TestImagesOverTheDescribeLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"bytes", Options{DescribeMaxBytes: 50}, "90 bytes is over the 50 bytes"},
		{"pixels", Options{DescribeMaxPixels: 1000}, "40×30 pixels is over the 0.001 megapixels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &describer{answer: "never asked"}
			tc.o.Describe, tc.o.DescribedBy = d.describe, "openai/gpt-4o-mini"
			parts, err := Parse(context.Background(), "a.png", imageBytes(t, "png"), mtime, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.calls) != 0 || len(parts) != 1 || strings.Contains(parts[0].Content, "never asked") {
				t.Fatalf("an image over the limit was described: %d calls, %q", len(d.calls), contents(parts))
			}
			img := fileCtx(t, parts[0])["image"].(map[string]any)
			if s, _ := img["not_described"].(string); !strings.Contains(s, tc.want) || img["described_by"] != nil {
				t.Errorf("context image = %v, want not_described saying %q", img, tc.want)
			}
		})
	}
}

// TestLongDescriptionIsClipped: a rambling model cannot make a memory over the limit.
func TestLongDescriptionIsClipped(t *testing.T) {
	d := &describer{answer: strings.Repeat("a boat and ", 5000) + "\xff"}
	for _, max := range []int{300, 64 << 10} {
		parts, err := Parse(context.Background(), "a.png", imageBytes(t, "png"), mtime,
			Options{MaxPartBytes: max, Describe: d.describe})
		if err != nil {
			t.Fatal(err)
		}
		c := parts[0].Content
		if len(c) > max || len(c) > maxDescriptionBytes+200 || !strings.Contains(c, "a boat and") || !strings.HasPrefix(c, "Image a.png") {
			t.Errorf("MaxPartBytes %d: content of %d bytes", max, len(c))
		}
	}
}

// TestUndescribableImageKeepsItsMetadata: a describer that says the image can never be described
// (it cannot be decoded, say) leaves it its metadata, with the reason, rather than failing it for
// ever.
func TestUndescribableImageKeepsItsMetadata(t *testing.T) {
	d := &describer{err: fmt.Errorf("%w: the image cannot be read: gif: unexpected EOF", ErrUndescribable)}
	parts, err := Parse(context.Background(), "a.gif", imageBytes(t, "gif"), mtime, Options{Describe: d.describe, DescribedBy: "ollama/llava"})
	if err != nil || len(parts) != 1 || len(d.calls) != 1 {
		t.Fatalf("Parse = %q, %v after %d calls; want the metadata", contents(parts), err, len(d.calls))
	}
	img := fileCtx(t, parts[0])["image"].(map[string]any)
	if s, _ := img["not_described"].(string); !strings.Contains(s, "unexpected EOF") || img["described_by"] != nil {
		t.Errorf("context image = %v, want not_described with the reason", img)
	}
}
