package exif_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/exif"
	"github.com/dormouse-dev/dormouse/internal/exif/exiftest"
)

func plainJPEG(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 4, 4)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRead(t *testing.T) {
	jpg := plainJPEG(t)
	loc := time.FixedZone("here", 3600)
	at := func(s string) time.Time { tm, _ := time.ParseInLocation(time.DateTime, s, loc); return tm }
	cases := []struct {
		name   string
		data   []byte
		taken  time.Time // zero: none
		orient int
	}{
		{"no EXIF", jpg, time.Time{}, 1},
		{"not a JPEG", []byte("GIF89a...."), time.Time{}, 1},
		{"taken", exiftest.With(jpg, exiftest.Tags{DateTimeOriginal: "2024:06:01 14:30:00"}), at("2024-06-01 14:30:00"), 1},
		{"original wins over changed", exiftest.With(jpg, exiftest.Tags{DateTime: "2025:01:01 00:00:00",
			DateTimeOriginal: "2024:06:01 14:30:00"}), at("2024-06-01 14:30:00"), 1},
		{"changed alone", exiftest.With(jpg, exiftest.Tags{DateTime: "2025:01:01 08:00:00"}), at("2025-01-01 08:00:00"), 1},
		{"clock never set", exiftest.With(jpg, exiftest.Tags{DateTimeOriginal: "1904:01:01 00:00:00"}), time.Time{}, 1},
		{"garbled date", exiftest.With(jpg, exiftest.Tags{DateTimeOriginal: "yesterday"}), time.Time{}, 1},
		{"sideways, little-endian", exiftest.With(jpg, exiftest.Tags{Orientation: 6}), time.Time{}, 6},
		{"sideways, big-endian, dated", exiftest.With(jpg, exiftest.Tags{Order: binary.BigEndian, Orientation: 8,
			DateTimeOriginal: "2024:06:01 14:30:00"}), at("2024-06-01 14:30:00"), 8},
		{"orientation out of range", exiftest.With(jpg, exiftest.Tags{Orientation: 9}), time.Time{}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := exif.Read(c.data)
			got, ok := x.Taken(loc)
			if ok != !c.taken.IsZero() || ok && !got.Equal(c.taken) {
				t.Errorf("Taken = %v, %v; want %v", got, ok, c.taken)
			}
			if o := x.Orientation(); o != c.orient {
				t.Errorf("Orientation = %d, want %d", o, c.orient)
			}
		})
	}
}

// A JPEG cut off inside its EXIF segment has none; cut off later, the
// EXIF is whole.
func TestReadTruncated(t *testing.T) {
	full := exiftest.With(plainJPEG(t), exiftest.Tags{Orientation: 6, DateTimeOriginal: "2024:06:01 14:30:00"})
	end := 4 + int(binary.BigEndian.Uint16(full[4:])) // SOI, then the APP1 marker and its size
	for n := range len(full) {
		x := exif.Read(full[:n])
		_, taken := x.Taken(time.UTC)
		if whole := n >= end; (x != nil) != whole || taken != whole || (x.Orientation() == 6) != whole {
			t.Fatalf("cut at %d of %d (segment ends at %d): read %v, taken %v, orientation %d", n, len(full), end, x != nil, taken, x.Orientation())
		}
	}
}

func FuzzRead(f *testing.F) {
	jpg := plainJPEG(f)
	f.Add(jpg)
	f.Add(exiftest.With(jpg, exiftest.Tags{Orientation: 6, DateTime: "2025:01:01 00:00:00", DateTimeOriginal: "2024:06:01 14:30:00"}))
	f.Add(exiftest.With(jpg, exiftest.Tags{Order: binary.BigEndian, Orientation: 3}))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := exif.Read(data)
		if o := x.Orientation(); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		if tm, ok := x.Taken(time.UTC); ok && tm.Year() < 1970 {
			t.Fatalf("taken %v", tm)
		}
	})
}
