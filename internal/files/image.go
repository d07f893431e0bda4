package files

import (
	"bytes"
	"encoding/binary"
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

// image describes a picture by its metadata: name, format, size in pixels and bytes, and the EXIF
// date it was taken when there is one (which then is its timestamp). No model looks at it.
func (d *doc) image(data []byte) ([]Part, error) {
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
