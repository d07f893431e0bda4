package llm

import (
	"bytes"
	"encoding/base64"
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
