package llm_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/llm"
)

// sentImage is the image a request carried, as the provider's API reads it.
type sentImage struct {
	MIME   string
	Data   []byte
	Prompt string // the text beside it in the same user turn
}

// imageOf finds the image of a describe request in each provider's
// documented shape.
var imageOf = map[string]func(t *testing.T, body []byte) sentImage{
	// Ollama /api/chat: "images": ["<base64>"] on the message; no MIME type.
	"ollama": func(t *testing.T, body []byte) sentImage {
		var b struct {
			Messages []struct {
				Role    string   `json:"role"`
				Content string   `json:"content"`
				Images  []string `json:"images"`
			} `json:"messages"`
		}
		mustDecode(t, body, &b)
		for _, m := range b.Messages {
			if len(m.Images) == 1 && m.Role == "user" {
				data, err := base64.StdEncoding.DecodeString(m.Images[0])
				if err != nil {
					t.Fatalf("ollama image is not base64: %v", err)
				}
				return sentImage{MIME: sniff(t, data), Data: data, Prompt: m.Content}
			}
		}
		t.Fatalf("no user message with one image in %s", body)
		return sentImage{}
	},
	// OpenAI chat completions: {"type":"image_url","image_url":{"url":"data:image/png;base64,..."}}.
	"openai": chatImage,
	// Anthropic messages: {"type":"image","source":{"type":"base64","media_type":"image/png","data":"..."}}.
	"anthropic": anthropicImage,
	// Bedrock InvokeModel with a Claude model: the same block inside the body.
	"bedrock": anthropicImage,
	// Gemini's OpenAI-compatible endpoint: the same image_url part, as Google's
	// compatibility guide documents it for base64 images.
	"googleai": chatImage,
}

// chatImage finds the image of an OpenAI chat completions request.
func chatImage(t *testing.T, body []byte) sentImage {
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	mustDecode(t, body, &b)
	for _, m := range b.Messages {
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if m.Role != "user" || json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		var s sentImage
		for _, p := range parts {
			switch p.Type {
			case "text":
				s.Prompt = p.Text
			case "image_url":
				mime, b64, ok := strings.Cut(strings.TrimPrefix(p.ImageURL.URL, "data:"), ";base64,")
				if !ok || !strings.HasPrefix(p.ImageURL.URL, "data:") {
					t.Fatalf("image_url is not a base64 data: URL: %.60s", p.ImageURL.URL)
				}
				data, err := base64.StdEncoding.DecodeString(b64)
				if err != nil {
					t.Fatalf("openai image is not base64: %v", err)
				}
				s.MIME, s.Data = mime, data
			default:
				t.Errorf("content part of type %q: the API knows text and image_url", p.Type)
			}
		}
		if s.Data != nil {
			return s
		}
	}
	t.Fatalf("no user content array with an image_url part in %s", body)
	return sentImage{}
}

func anthropicImage(t *testing.T, body []byte) sentImage {
	var b struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type   string `json:"type"`
				Text   string `json:"text"`
				Source *struct {
					Type      string `json:"type"`
					MediaType string `json:"media_type"`
					Data      string `json:"data"`
				} `json:"source"`
			} `json:"content"`
		} `json:"messages"`
	}
	mustDecode(t, body, &b)
	for _, m := range b.Messages {
		var s sentImage
		for _, c := range m.Content {
			switch {
			case c.Type == "image" && c.Source != nil && c.Source.Type == "base64":
				data, err := base64.StdEncoding.DecodeString(c.Source.Data)
				if err != nil {
					t.Fatalf("anthropic image is not base64: %v", err)
				}
				s.MIME, s.Data = c.Source.MediaType, data
			case c.Type == "text":
				s.Prompt += c.Text
			default:
				t.Errorf("content block %q (source %+v): want text or a base64 image", c.Type, c.Source)
			}
		}
		if s.Data != nil && m.Role == "user" {
			return s
		}
	}
	t.Fatalf("no user message with a base64 image block in %s", body)
	return sentImage{}
}

// sniff names an image's format from its bytes.
func sniff(t *testing.T, data []byte) string {
	t.Helper()
	_, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the image sent does not decode: %v", err)
	}
	return "image/" + format
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.NRGBA{R: uint8(x * 37), G: uint8(y * 91), B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testGIF(t *testing.T) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 6, 4), color.Palette{color.White, color.Black})
	img.SetColorIndex(1, 1, 1)
	var b bytes.Buffer
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const description = "A screenshot of a calendar: Tuesday 3 March 2026, 10:00 \"Atlas beta review\" with Alice."

// TestDescribeImageWireFormat: each provider is sent the image base64
// encoded where its API documents it, with its MIME type, beside the
// prompt; the description comes back with the usage the provider reports.
func TestDescribeImageWireFormat(t *testing.T) {
	pic := testPNG(t, 4, 3)
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, p, []step{{answer: description}}, nil)
			got, u, err := h.client.DescribeImage(t.Context(), "calendar.png", llm.Image{MIME: "image/png", Data: pic})
			if err != nil {
				t.Fatalf("DescribeImage: %v", err)
			}
			if got != description {
				t.Errorf("description = %q, want %q", got, description)
			}
			if want := (llm.Usage{Calls: 1, TokensIn: 812, TokensOut: 164}); u != want {
				t.Errorf("usage = %+v, want %+v", u, want)
			}
			reqs := h.fake.requests()
			if len(reqs) != 1 || reqs[0].path != p.path || !p.authOK(reqs[0].header) {
				t.Fatalf("requests %d to %v; want one, authenticated, to %s", len(reqs), reqs, p.path)
			}
			s := imageOf[p.name](t, reqs[0].body)
			if p.name != "ollama" && s.MIME != "image/png" { // ollama's API carries no MIME type
				t.Errorf("MIME type sent = %q, want image/png", s.MIME)
			}
			if !bytes.Equal(s.Data, pic) {
				t.Errorf("image sent (%d bytes) is not the PNG given (%d bytes)", len(s.Data), len(pic))
			}
			if !strings.Contains(s.Prompt, "Describe this image") || !strings.Contains(s.Prompt, "calendar.png") {
				t.Errorf("prompt beside the image = %q", s.Prompt)
			}
			if !bytes.Contains(reqs[0].body, []byte("personal memory archive")) {
				t.Errorf("request lacks DescribePrompt: %s", reqs[0].body)
			}
			goldenFile(t, p, "image_request.golden.json", reqs[0].body)
		})
	}
}

// TestDescribeImageFormats: a GIF goes as PNG to the providers that do
// not take GIF, as is to Claude; a large picture is shrunk to a JPEG of
// MaxImageEdge pixels on its long edge.
func TestDescribeImageFormats(t *testing.T) {
	gifData := testGIF(t)
	wide := testPNG(t, 4000, 20)
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, p, []step{{answer: description}}, nil)
			if _, _, err := h.client.DescribeImage(t.Context(), "", llm.Image{MIME: "image/gif", Data: gifData}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := h.client.DescribeImage(t.Context(), "", llm.Image{MIME: "image/png", Data: wide}); err != nil {
				t.Fatal(err)
			}
			reqs := h.fake.requests()
			g := imageOf[p.name](t, reqs[0].body)
			wantGIF := "image/png"
			if p.name == "anthropic" || p.name == "bedrock" {
				wantGIF = "image/gif"
			}
			if got := sniff(t, g.Data); got != wantGIF || (p.name != "ollama" && g.MIME != wantGIF) {
				t.Errorf("GIF sent as %s (labelled %q), want %s", got, g.MIME, wantGIF)
			}
			cfg, _, _ := image.DecodeConfig(bytes.NewReader(g.Data))
			if cfg.Width != 6 || cfg.Height != 4 {
				t.Errorf("converted GIF is %d×%d, want 6×4", cfg.Width, cfg.Height)
			}
			w := imageOf[p.name](t, reqs[1].body)
			cfg, format, err := image.DecodeConfig(bytes.NewReader(w.Data))
			if err != nil || format != "jpeg" || cfg.Width != llm.MaxImageEdge || cfg.Height != 7 ||
				(p.name != "ollama" && w.MIME != "image/jpeg") {
				t.Errorf("4000×20 PNG sent as %s %d×%d (labelled %q, %v), want a JPEG %d×7", format, cfg.Width, cfg.Height, w.MIME, err, llm.MaxImageEdge)
			}
		})
	}
}

// TestDescribeImageFailures: a provider that keeps failing is an error the
// watcher retries; a model that cannot see images is refused before any
// request; a picture that is not one is an error too.
func TestDescribeImageFailures(t *testing.T) {
	pic := testPNG(t, 4, 3)
	for _, p := range providers {
		t.Run(p.name+" 500", func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, p, []step{{status: 500}}, nil)
			_, _, err := h.client.DescribeImage(t.Context(), "x.png", llm.Image{MIME: "image/png", Data: pic})
			if !errors.Is(err, llm.ErrUnavailable) {
				t.Errorf("error %v, want ErrUnavailable", err)
			}
			if n := len(h.fake.requests()); n != 3 {
				t.Errorf("%d requests, want 3 (two retries)", n)
			}
		})
	}
	t.Run("bedrock titan", func(t *testing.T) {
		h := newHarness(t, providers[4], []step{{answer: description}}, func(c *llm.Config) { c.Model = "amazon.titan-text-express-v1" })
		_, _, err := h.client.DescribeImage(t.Context(), "x.png", llm.Image{MIME: "image/png", Data: pic})
		if !errors.Is(err, llm.ErrNoVision) || len(h.fake.requests()) != 0 {
			t.Errorf("error %v after %d requests, want ErrNoVision and none", err, len(h.fake.requests()))
		}
	})
	t.Run("not an image", func(t *testing.T) {
		h := newHarness(t, providers[0], []step{{answer: description}}, nil)
		_, _, err := h.client.DescribeImage(t.Context(), "x.png", llm.Image{MIME: "image/png", Data: []byte("not a picture")})
		if !errors.Is(err, llm.ErrBadImage) || len(h.fake.requests()) != 0 {
			t.Errorf("error %v after %d requests, want an error and none", err, len(h.fake.requests()))
		}
	})
	t.Run("empty description", func(t *testing.T) {
		h := newHarness(t, providers[0], []step{{answer: "  "}}, nil)
		if _, _, err := h.client.DescribeImage(t.Context(), "x.png", llm.Image{MIME: "image/png", Data: pic}); err == nil {
			t.Error("an empty description is no error")
		}
	})
}

func TestVisionSupport(t *testing.T) {
	for _, tc := range []struct {
		provider, model string
		ok              bool
	}{
		{"ollama", "llava", true}, {"openai", "", true}, {"anthropic", "", true}, {"googleai", "", true},
		{"bedrock", "", true}, {"bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0", true},
		{"bedrock", "us.anthropic.claude-3-5-sonnet-20241022-v2:0", true},
		{"bedrock", "amazon.titan-text-express-v1", false}, {"bedrock", "meta.llama3-70b-instruct-v1:0", false},
		{"bedrock", "amazon.nova-lite-v1:0", true}, {"bedrock", "us.amazon.nova-pro-v1:0", true},
		{"bedrock", "cohere.command-r-v1:0", false}, {"offline", "", false},
	} {
		err := llm.VisionSupport(tc.provider, tc.model)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, llm.ErrNoVision)) {
			t.Errorf("VisionSupport(%s, %q) = %v, want ok %v", tc.provider, tc.model, err, tc.ok)
		}
	}
}

// TestDescribeImageBedrockNova: an Amazon Nova model on Bedrock is sent the image as Nova's
// InvokeModel documents it, {"image":{"format":"png","source":{"bytes":"<base64>"}}}, and its
// answer's output.message.content is the description.
func TestDescribeImageBedrockNova(t *testing.T) {
	var mu sync.Mutex
	var got []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, recorded{path: r.URL.Path, header: r.Header.Clone(), body: body})
		mu.Unlock()
		text, _ := json.Marshal(description)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"output":{"message":{"content":[{"text":`+string(text)+`}],"role":"assistant"}},`+
			`"stopReason":"end_turn","usage":{"inputTokens":1412,"outputTokens":31,"totalTokens":1443}}`)
	}))
	t.Cleanup(srv.Close)
	const model = "amazon.nova-lite-v1:0"
	c, err := llm.New(t.Context(), llm.Config{Provider: "bedrock", Model: model, BaseURL: srv.URL,
		Environ: providers[4].environ, MaxTokens: 512})
	if err != nil {
		t.Fatal(err)
	}
	pic := testPNG(t, 4, 3)
	out, u, err := c.DescribeImage(t.Context(), "calendar.png", llm.Image{MIME: "image/png", Data: pic})
	if err != nil || out != description || u.TokensIn != 1412 || u.TokensOut != 31 {
		t.Fatalf("DescribeImage = %q, %+v, %v", out, u, err)
	}
	if len(got) != 1 || got[0].path != "/model/"+url.PathEscape(model)+"/invoke" || !providers[4].authOK(got[0].header) {
		t.Fatalf("requests %+v, want one signed InvokeModel for %s", got, model)
	}
	var b struct {
		System   []struct{ Text string } `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text  string `json:"text"`
				Image *struct {
					Format string `json:"format"`
					Source struct {
						Bytes string `json:"bytes"`
					} `json:"source"`
				} `json:"image"`
			} `json:"content"`
		} `json:"messages"`
		InferenceConfig struct {
			MaxTokens int `json:"maxTokens"`
		} `json:"inferenceConfig"`
	}
	mustDecode(t, got[0].body, &b)
	if len(b.Messages) != 1 || b.Messages[0].Role != "user" || len(b.Messages[0].Content) != 2 ||
		b.Messages[0].Content[0].Image == nil || !strings.Contains(b.Messages[0].Content[1].Text, "calendar.png") {
		t.Fatalf("messages = %+v, want one user turn: the image, then the prompt", b.Messages)
	}
	img := b.Messages[0].Content[0].Image
	data, err := base64.StdEncoding.DecodeString(img.Source.Bytes)
	if img.Format != "png" || err != nil || !bytes.Equal(data, pic) {
		t.Errorf("image sent as format %q, %d bytes (%v); want the PNG", img.Format, len(data), err)
	}
	if len(b.System) != 1 || !strings.Contains(b.System[0].Text, "memory archive") || b.InferenceConfig.MaxTokens != 512 {
		t.Errorf("system %+v, inferenceConfig %+v", b.System, b.InferenceConfig)
	}
	goldenFile(t, provider{name: "bedrock"}, "nova_image_request.golden.json", got[0].body)
}
