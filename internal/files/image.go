package files

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
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
	text := fmt.Sprintf("Image %s (in %s): %s, %d×%d pixels, %s.", name, dirOf(d.rel), strings.ToUpper(format),
		cfg.Width, cfg.Height, humanBytes(len(data)))
	var ts time.Time
	if format == "jpeg" {
		if t, ok := exifDate(data, d.o.Location); ok {
			ts = t
			meta["taken"] = t.Format(time.RFC3339)
			text += fmt.Sprintf(" Taken on %s.", t.Format("2 January 2006 at 15:04"))
		}
	}
	if d.o.Describe != nil {
		switch {
		case len(data) > d.o.DescribeMaxBytes:
			meta["not_described"] = fmt.Sprintf("%s is over the %s an image may have to be described",
				humanBytes(len(data)), humanBytes(d.o.DescribeMaxBytes))
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
			limit := max(64, min(maxDescriptionBytes, d.o.MaxPartBytes-len(text)-2))
			if len(desc) > limit {
				desc = strings.TrimSpace(desc[:cutAt(desc, limit)])
			}
			text += "\n\n" + desc
			meta["described_by"] = cmp.Or(d.o.DescribedBy, "a vision model")
		}
	}
	parts := []Part{{Content: text, Timestamp: ts}}
	return d.finish(parts, []fileContext{{Title: name}}, map[string]any{"image": meta}), nil
}

func dirOf(rel string) string {
	if dir := path.Dir(rel); dir != "." {
		return dir
	}
	return "the folder's top level"
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// exifDate reads DateTimeOriginal (else DateTime) from a JPEG's APP1 Exif segment.
func exifDate(data []byte, loc *time.Location) (time.Time, bool) {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return time.Time{}, false
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			return time.Time{}, false
		}
		marker := data[i+1]
		if marker == 0xDA || marker == 0xD9 { // start of scan, end of image: no more metadata
			return time.Time{}, false
		}
		size := int(binary.BigEndian.Uint16(data[i+2:]))
		if size < 2 || i+2+size > len(data) {
			return time.Time{}, false
		}
		seg := data[i+4 : i+2+size]
		if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffDate(seg[6:], loc)
		}
		i += 2 + size
	}
	return time.Time{}, false
}

// tiffDate walks a TIFF structure: IFD0 for DateTime (0x0132) and its Exif IFD (0x8769) for
// DateTimeOriginal (0x9003), which wins.
func tiffDate(t []byte, loc *time.Location) (time.Time, bool) {
	if len(t) < 8 {
		return time.Time{}, false
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return time.Time{}, false
	}
	ifd := func(off uint32) map[uint16][]byte {
		out := map[uint16][]byte{}
		if uint64(off)+2 > uint64(len(t)) {
			return out
		}
		n := int(bo.Uint16(t[off:]))
		for k := range min(n, 512) {
			e := uint64(off) + 2 + uint64(k)*12
			if e+12 > uint64(len(t)) {
				break
			}
			tag, typ, count := bo.Uint16(t[e:]), bo.Uint16(t[e+2:]), bo.Uint32(t[e+4:])
			switch {
			case typ == 2 && count > 4: // ASCII stored elsewhere
				at := uint64(bo.Uint32(t[e+8:]))
				if at+uint64(count) <= uint64(len(t)) {
					out[tag] = t[at : at+uint64(count)]
				}
			case typ == 4 || typ == 13: // LONG or IFD: an offset
				out[tag] = t[e+8 : e+12]
			}
		}
		return out
	}
	ifd0 := ifd(bo.Uint32(t[4:]))
	date := ifd0[0x0132]
	if p, ok := ifd0[0x8769]; ok && len(p) == 4 {
		if orig, ok := ifd(bo.Uint32(p))[0x9003]; ok {
			date = orig
		}
	}
	s := strings.TrimRight(string(date), "\x00 ")
	tm, err := time.ParseInLocation("2006:01:02 15:04:05", s, loc)
	if err != nil || tm.Year() < 1970 {
		return time.Time{}, false
	}
	return tm, true
}
