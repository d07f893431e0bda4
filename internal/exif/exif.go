// Package exif reads the two EXIF tags Dormouse uses from a JPEG: when the
// photo was taken (a watched image's timestamp) and how it must be turned
// to stand upright (before a model is shown it).
package exif

import (
	"bytes"
	"encoding/binary"
	"strings"
	"time"
)

const (
	tagOrientation      = 0x0112 // IFD0, SHORT
	tagDateTime         = 0x0132 // IFD0, ASCII: when the file was last changed
	tagExifIFD          = 0x8769 // IFD0, LONG: the offset of the Exif IFD
	tagDateTimeOriginal = 0x9003 // Exif IFD, ASCII: when the photo was taken

	typeASCII = 2
	typeShort = 3
	typeLong  = 4
	typeIFD   = 13

	maxEntries = 512 // an IFD claiming more is damaged
)

// Tags are a JPEG's EXIF tags: IFD0's and its Exif IFD's. The zero of each
// field, and a nil *Tags, read as "not there".
type Tags struct {
	bo      binary.ByteOrder
	tiff    []byte
	ifd0    map[uint16]entry
	exifIFD map[uint16]entry
}

type entry struct {
	typ   uint16
	count uint32
	value []byte // the 4-byte value field: the value itself, or its offset
}

// Read finds the APP1 Exif segment of a JPEG and reads its tags; nil when
// data is not a JPEG or has no (readable) EXIF.
func Read(data []byte) *Tags {
	t := app1(data)
	if len(t) < 8 {
		return nil
	}
	x := &Tags{tiff: t}
	switch string(t[:2]) {
	case "II":
		x.bo = binary.LittleEndian
	case "MM":
		x.bo = binary.BigEndian
	default:
		return nil
	}
	x.ifd0 = x.ifd(x.bo.Uint32(t[4:]))
	if e, ok := x.ifd0[tagExifIFD]; ok && (e.typ == typeLong || e.typ == typeIFD) {
		x.exifIFD = x.ifd(x.bo.Uint32(e.value))
	}
	return x
}

// app1 returns the TIFF structure in a JPEG's APP1 Exif segment, or nil.
func app1(data []byte) []byte {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return nil
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			return nil
		}
		marker := data[i+1]
		if marker == 0xDA || marker == 0xD9 { // start of scan, end of image: no more metadata
			return nil
		}
		size := int(binary.BigEndian.Uint16(data[i+2:]))
		if size < 2 || i+2+size > len(data) {
			return nil
		}
		if seg := data[i+4 : i+2+size]; marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return seg[6:]
		}
		i += 2 + size
	}
	return nil
}

// ifd reads the entries of the IFD at off.
func (x *Tags) ifd(off uint32) map[uint16]entry {
	out := map[uint16]entry{}
	t := x.tiff
	if uint64(off)+2 > uint64(len(t)) {
		return out
	}
	n := int(x.bo.Uint16(t[off:]))
	for k := range min(n, maxEntries) {
		e := uint64(off) + 2 + uint64(k)*12
		if e+12 > uint64(len(t)) {
			break
		}
		out[x.bo.Uint16(t[e:])] = entry{typ: x.bo.Uint16(t[e+2:]), count: x.bo.Uint32(t[e+4:]), value: t[e+8 : e+12]}
	}
	return out
}

// ascii is an ASCII entry's bytes, stored in the entry or at its offset.
func (x *Tags) ascii(e entry, ok bool) []byte {
	if !ok || e.typ != typeASCII {
		return nil
	}
	if e.count <= 4 {
		return e.value[:e.count]
	}
	at := uint64(x.bo.Uint32(e.value))
	if at+uint64(e.count) > uint64(len(x.tiff)) {
		return nil
	}
	return x.tiff[at : at+uint64(e.count)]
}

// Taken is when the photo was taken, in loc (EXIF times have no zone):
// DateTimeOriginal, else DateTime. False when neither is there or readable,
// or it is before 1970 (a camera whose clock was never set).
func (x *Tags) Taken(loc *time.Location) (time.Time, bool) {
	if x == nil {
		return time.Time{}, false
	}
	e, ok := x.exifIFD[tagDateTimeOriginal]
	date := x.ascii(e, ok)
	if date == nil {
		e, ok = x.ifd0[tagDateTime]
		date = x.ascii(e, ok)
	}
	tm, err := time.ParseInLocation("2006:01:02 15:04:05", strings.TrimRight(string(date), "\x00 "), loc)
	if err != nil || tm.Year() < 1970 {
		return time.Time{}, false
	}
	return tm, true
}

// Orientation is how the pixels must be turned to stand upright, 1 to 8 as
// EXIF numbers them (phones store portrait photos sideways with 6 or 8);
// 1 (upright) when there is none or it is out of range.
func (x *Tags) Orientation() int {
	if x == nil {
		return 1
	}
	if e, ok := x.ifd0[tagOrientation]; ok && e.typ == typeShort {
		if o := int(x.bo.Uint16(e.value)); o >= 1 && o <= 8 {
			return o
		}
	}
	return 1
}
