package llm

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"slices"
	"testing"
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
