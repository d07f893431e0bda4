package files

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // registers GIF for image.DecodeConfig
	_ "image/jpeg" // registers JPEG
	_ "image/png"  // registers PNG
	"path"
	"strings"
	"time"

	_ "golang.org/x/image/webp" // registers WebP

	"github.com/dormouse-dev/dormouse/internal/exif"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Defaults of Options' limits on the images a model describes.
const (
	DefaultDescribeMaxBytes  = 20 << 20
	DefaultDescribeMaxPixels = 50_000_000
)

var (
	// ErrDescribe wraps a describer's failure: the file failed for want of a model, not of its
	// content.
	ErrDescribe = errors.New("describe image")
	// ErrUndescribable is what a describer's error wraps when this image can never be described
	// (it cannot be decoded, or is too large to send): the image keeps its metadata, and its
	// context's not_described says why.
	ErrUndescribable = errors.New("the image cannot be described")
)

// maxDescriptionBytes bounds what of a model's description is kept.
const maxDescriptionBytes = 8 << 10

// image describes a picture by its metadata: name, format, size in pixels and bytes, and the EXIF
// date it was taken when there is one (which then is its timestamp). With Options.Describe, a
// vision model's description of what it shows follows the metadata.
func (d *doc) image(ctx context.Context, data []byte) ([]Part, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, skip("not a readable %s image: %v", strings.TrimPrefix(strings.ToLower(path.Ext(d.rel)), "."), err)
	}
	name := path.Base(d.rel)
	meta := map[string]any{"format": format, "width": cfg.Width, "height": cfg.Height, "bytes": len(data)}
	content := fmt.Sprintf("Image %s (in %s): %s, %d×%d pixels, %s.", name, dirOf(d.rel), strings.ToUpper(format),
		cfg.Width, cfg.Height, sizeInWords(len(data)))
	var ts time.Time
	if format == "jpeg" {
		if t, ok := exif.Read(data).Taken(d.o.Location); ok {
			ts = t
			meta["taken"] = t.Format(time.RFC3339)
			content += fmt.Sprintf(" Taken on %s.", t.Format("2 January 2006 at 15:04"))
		}
	}
	if d.o.Describe != nil {
		switch {
		case len(data) > d.o.DescribeMaxBytes:
			meta["not_described"] = fmt.Sprintf("%s is over the %s an image may have to be described",
				sizeInWords(len(data)), sizeInWords(d.o.DescribeMaxBytes))
		case cfg.Width*cfg.Height > d.o.DescribeMaxPixels:
			meta["not_described"] = fmt.Sprintf("%d×%d pixels is over the %g megapixels an image may have to be described",
				cfg.Width, cfg.Height, float64(d.o.DescribeMaxPixels)/1e6)
		default:
			desc, err := d.o.Describe(ctx, name, "image/"+format, data)
			if errors.Is(err, ErrUndescribable) {
				meta["not_described"] = err.Error()
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%w %s with %s: %w", ErrDescribe, name, cmp.Or(d.o.DescribedBy, "the model"), err)
			}
			desc = strings.TrimSpace(strings.ToValidUTF8(desc, "\uFFFD"))
			if desc == "" {
				return nil, fmt.Errorf("%w %s with %s: the description is empty", ErrDescribe, name, cmp.Or(d.o.DescribedBy, "the model"))
			}
			limit := max(64, min(maxDescriptionBytes, d.o.MaxPartBytes-len(content)-2))
			if len(desc) > limit {
				desc = strings.TrimSpace(desc[:cutAt(desc, limit)])
			}
			content += "\n\n" + desc
			meta["described_by"] = cmp.Or(d.o.DescribedBy, "a vision model")
		}
	}
	parts := []Part{{Content: content, Timestamp: ts}}
	return d.finish(parts, []fileContext{{Title: name}}, map[string]any{"image": meta}), nil
}

func dirOf(rel string) string {
	if dir := path.Dir(rel); dir != "." {
		return dir
	}
	return "the folder's top level"
}

// sizeInWords is text.Size for a sentence: a size under a KiB is spelled out
// in bytes.
func sizeInWords(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return text.Size(n)
}
