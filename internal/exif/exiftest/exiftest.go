// Package exiftest writes EXIF into JPEGs for tests: a photo taken at a
// given time, or stored sideways.
package exiftest

import (
	"bytes"
	"encoding/binary"
)

// Tags are what With writes; zero fields are left out.
type Tags struct {
	Order            binary.ByteOrder // binary.LittleEndian ("II") when nil
	Orientation      uint16           // IFD0 0x0112
	DateTime         string           // IFD0 0x0132, "2006:01:02 15:04:05"
	DateTimeOriginal string           // Exif IFD 0x9003
}

// With returns jpg with an APP1 Exif segment holding tags, placed right
// after its SOI marker.
func With(jpg []byte, tags Tags) []byte {
	bo := tags.Order
	if bo == nil {
		bo = binary.LittleEndian
	}
	type ent struct {
		tag, typ     uint16
		count, value uint32
		data         []byte // stored after the IFDs; value becomes its offset
	}
	var ifd0, sub []ent
	if tags.Orientation != 0 {
		v := uint32(tags.Orientation)
		if bo == binary.BigEndian {
			v <<= 16 // a SHORT sits in the field's first two bytes
		}
		ifd0 = append(ifd0, ent{tag: 0x0112, typ: 3, count: 1, value: v})
	}
	if tags.DateTime != "" {
		ifd0 = append(ifd0, ent{tag: 0x0132, typ: 2, count: uint32(len(tags.DateTime) + 1), data: []byte(tags.DateTime + "\x00")})
	}
	if tags.DateTimeOriginal != "" {
		sub = append(sub, ent{tag: 0x9003, typ: 2, count: uint32(len(tags.DateTimeOriginal) + 1), data: []byte(tags.DateTimeOriginal + "\x00")})
		ifd0 = append(ifd0, ent{tag: 0x8769, typ: 4, count: 1}) // its value is set below
	}
	size := func(es []ent) uint32 { return 2 + 12*uint32(len(es)) + 4 }
	ifd0At := uint32(8)
	subAt := ifd0At + size(ifd0)
	dataAt := subAt + size(sub)
	var data bytes.Buffer
	place := func(es []ent) {
		for i := range es {
			if es[i].tag == 0x8769 {
				es[i].value = subAt
			}
			if es[i].data != nil {
				es[i].value = dataAt + uint32(data.Len())
				data.Write(es[i].data)
			}
		}
	}
	place(ifd0)
	place(sub)
	var t bytes.Buffer
	if bo == binary.LittleEndian {
		t.WriteString("II*\x00")
	} else {
		t.WriteString("MM\x00*")
	}
	binary.Write(&t, bo, ifd0At)
	for _, es := range [][]ent{ifd0, sub} {
		binary.Write(&t, bo, uint16(len(es)))
		for _, e := range es {
			binary.Write(&t, bo, []uint16{e.tag, e.typ})
			binary.Write(&t, bo, []uint32{e.count, e.value})
		}
		binary.Write(&t, bo, uint32(0))
	}
	t.Write(data.Bytes())
	seg := append([]byte("Exif\x00\x00"), t.Bytes()...)
	app1 := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(app1[2:], uint16(len(seg)+2))
	out := append([]byte{}, jpg[:2]...)
	out = append(out, app1...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}
