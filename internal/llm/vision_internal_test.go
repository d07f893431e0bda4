package llm

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"slices"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/exif"
	"github.com/dormouse-dev/dormouse/internal/exif/exiftest"
)

// FuzzPrepareImage feeds any bytes, as each provider, to what readies an image for sending: it must
// not panic, and what it returns must be an image of a format the provider takes, within the limits.
func FuzzPrepareImage(f *testing.F) {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2)))
	f.Add(b.Bytes())
	b.Reset()
	gif.Encode(&b, image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.Black, color.White}), nil)
	f.Add(b.Bytes())
	f.Add([]byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x00\x00\x00\x00"))
	b.Reset()
	jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 5, 3)), nil)
	f.Add(withOrientation(b.Bytes(), 6, binary.BigEndian))
	f.Fuzz(func(t *testing.T, data []byte) {
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil && cfg.Width*cfg.Height > 1<<20 {
			t.Skip("a large canvas only costs the fuzzer memory")
		}
		for provider := range acceptedImages {
			out, err := prepareImage(provider, Image{MIME: "image/png", Data: data})
			if err != nil {
				continue
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(out.Data))
			if err != nil || "image/"+format != out.MIME || !slices.Contains(acceptedImages[provider], out.MIME) ||
				len(out.Data) > MaxImageSendBytes || max(cfg.Width, cfg.Height) > 2*MaxImageEdge {
				t.Fatalf("%s: prepared %s (%v), %d bytes, %d×%d", provider, out.MIME, err, len(out.Data), cfg.Width, cfg.Height)
			}
		}
	})
}

// tinyWebP is a 1×1 lossless WebP.
const tinyWebP = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

// TestWebPPerProvider: WebP goes as it is where the API documents it (OpenAI, Gemini, Claude,
// Bedrock) and as PNG to Ollama and to an OpenAI-compatible server (llama.cpp refuses WebP).
func TestWebPPerProvider(t *testing.T) {
	data, err := base64.StdEncoding.DecodeString(tinyWebP)
	if err != nil {
		t.Fatal(err)
	}
	for provider, want := range map[string]string{
		"openai": "image/webp", "googleai": "image/webp", "anthropic": "image/webp", "bedrock": "image/webp",
		"ollama": "image/png", "compatible": "image/png",
	} {
		out, err := prepareImage(provider, Image{MIME: "image/webp", Data: data})
		if err != nil {
			t.Fatalf("%s: %v", provider, err)
		}
		_, format, err := image.DecodeConfig(bytes.NewReader(out.Data))
		if out.MIME != want || err != nil || "image/"+format != want {
			t.Errorf("%s: WebP sent as %s (decodes as %s, %v), want %s", provider, out.MIME, format, err, want)
		}
	}
	for _, tc := range []struct {
		base, want string
	}{{"", "openai"}, {"https://api.openai.com/v1", "openai"}, {"http://127.0.0.1:8080/v1", "compatible"}} {
		if got := imageFormatsFor(Config{Provider: "openai", BaseURL: tc.base}); got != tc.want {
			t.Errorf("base_url %q: formats of %q, want %q", tc.base, got, tc.want)
		}
	}
}

// withOrientation gives a JPEG an EXIF Orientation, written in byte order bo.
func withOrientation(jpg []byte, o uint16, bo binary.ByteOrder) []byte {
	return exiftest.With(jpg, exiftest.Tags{Order: bo, Orientation: o})
}

// TestPortraitPhotoIsSentUpright: a JPEG stored sideways with an EXIF orientation goes to the model
// turned upright, as a viewer would show it.
func TestPortraitPhotoIsSentUpright(t *testing.T) {
	// 40×20 pixels: the left half red, the right half blue.
	src := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		for y := range 20 {
			c := color.RGBA{R: 255, A: 255}
			if x >= 20 {
				c = color.RGBA{B: 255, A: 255}
			}
			src.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, src, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	red := func(c color.Color) bool { r, _, bl, _ := c.RGBA(); return r > 0xb000 && bl < 0x5000 }
	blue := func(c color.Color) bool { r, _, bl, _ := c.RGBA(); return bl > 0xb000 && r < 0x5000 }
	for _, tc := range []struct {
		o             uint16
		bo            binary.ByteOrder
		w, h          int
		redAt, blueAt image.Point
	}{
		{1, binary.LittleEndian, 40, 20, image.Pt(5, 10), image.Pt(35, 10)}, // upright: sent as it is
		{6, binary.LittleEndian, 20, 40, image.Pt(10, 5), image.Pt(10, 35)}, // a quarter clockwise: the left edge on top
		{8, binary.BigEndian, 20, 40, image.Pt(10, 35), image.Pt(10, 5)},    // a quarter anticlockwise
		{3, binary.BigEndian, 40, 20, image.Pt(35, 10), image.Pt(5, 10)},    // half round
		{2, binary.LittleEndian, 40, 20, image.Pt(35, 10), image.Pt(5, 10)}, // mirrored
		{9, binary.LittleEndian, 40, 20, image.Pt(5, 10), image.Pt(35, 10)}, // nonsense: left alone
	} {
		data := withOrientation(b.Bytes(), tc.o, tc.bo)
		if got := exif.Read(data).Orientation(); got != int(tc.o) && tc.o <= 8 {
			t.Errorf("orientation %d read as %d", tc.o, got)
		}
		out, err := prepareImage("anthropic", Image{MIME: "image/jpeg", Data: data})
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(bytes.NewReader(out.Data))
		if err != nil || out.MIME != "image/jpeg" {
			t.Fatalf("orientation %d: %s, %v", tc.o, out.MIME, err)
		}
		if bd := img.Bounds(); bd.Dx() != tc.w || bd.Dy() != tc.h || !red(img.At(tc.redAt.X, tc.redAt.Y)) || !blue(img.At(tc.blueAt.X, tc.blueAt.Y)) {
			t.Errorf("orientation %d: sent %v, red at %v %v, blue at %v %v", tc.o, bd, tc.redAt, img.At(tc.redAt.X, tc.redAt.Y), tc.blueAt, img.At(tc.blueAt.X, tc.blueAt.Y))
		}
		if tc.o == 1 && !bytes.Equal(out.Data, data) {
			t.Error("an upright JPEG was re-encoded")
		}
	}
}

// BenchmarkShrinkPhoto: what readying a 12-megapixel phone photo (4000×3000 JPEG) for a model costs:
// decoding, shrinking to 1568 pixels and encoding.
func BenchmarkShrinkPhoto(b *testing.B) {
	src := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for i := range src.Pix {
		src.Pix[i] = byte(i*7 + i/4000)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	photo := buf.Bytes()
	b.SetBytes(int64(len(photo)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := prepareImage("ollama", Image{MIME: "image/jpeg", Data: photo})
		if err != nil || out.MIME != "image/jpeg" {
			b.Fatal(out.MIME, err)
		}
	}
}
