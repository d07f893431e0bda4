package llm

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	stddraw "image/draw"
	_ "image/gif" // decodes GIFs to convert them for providers that refuse them
	"image/jpeg"
	"image/png"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decodes WebP to convert it for providers that refuse it

	"github.com/dormouse-dev/dormouse/internal/exif"
)

// Image is a picture sent with a request's prompt.
type Image struct {
	MIME string // image/png, image/jpeg, image/gif or image/webp
	Data []byte
}

// ErrNoVision means the provider (or, on Bedrock, the model family) cannot
// be sent images through this client.
var ErrNoVision = errors.New("the LLM provider cannot be sent images")

// Limits on what is sent of one image. A picture in a format the provider
// does not take is converted to PNG; a JPEG whose EXIF says it is stored
// turned (as phones store portrait photos) is sent turned upright, as JPEG. One of more than MaxImageSendBytes, or
// more than twice MaxImageEdge pixels on its long edge, is shrunk to
// MaxImageEdge pixels on its long edge and sent as JPEG: every provider
// accepts that (Bedrock's Claude takes at most 3.75 MB and 8000 pixels,
// Anthropic's API 5 MB) and the models see little more detail anyway
// (Claude resizes above 1568 pixels, OpenAI to 2048). A picture of more
// than MaxImagePixels is not decoded at all: ErrImageTooLarge.
const (
	MaxImageSendBytes = 3 << 20 // 3 MiB, under Bedrock's 3.75 MB once base64 is counted out
	MaxImageEdge      = 1568
	MaxImagePixels    = 50_000_000
)

var (
	// ErrImageTooLarge means an image has more pixels than MaxImagePixels:
	// it is not decoded to be shrunk, so it cannot be sent.
	ErrImageTooLarge = errors.New("the image is too large to send to a model")
	// ErrBadImage means an image could not be read (to be converted or
	// shrunk): sending it again will not help.
	ErrBadImage = errors.New("the image cannot be read")
)

// VisionSupport says whether images can be sent to provider's model through
// this client, and if not why. It is what configuration validation asks:
// langchaingo puts images on the wire for ollama ("images" on the
// message), openai (an image_url content part with a data: URL), anthropic
// (an image block with a base64 source), googleai (the same image_url
// part, on Gemini's OpenAI-compatible endpoint) and, on
// bedrock, for Anthropic's Claude models (the same image block inside the
// InvokeModel body) and Amazon Nova ({"image":{"format","source":{"bytes"}}});
// for Bedrock's other model families (Titan, Llama, Cohere, AI21) it drops
// them.
func VisionSupport(provider, model string) error {
	switch provider {
	case "ollama", "openai", "anthropic", "googleai":
		return nil
	case "bedrock":
		if model == "" {
			model = DefaultModel(provider)
		}
		if f := bedrockFamily(model); f == "anthropic" || f == "nova" {
			return nil
		}
		return fmt.Errorf("%w: on bedrock only Anthropic's Claude (anthropic.claude-…) and Amazon Nova (amazon.nova-…) "+
			"models are sent images; %q is neither", ErrNoVision, model)
	}
	return fmt.Errorf("%w: %q", ErrNoVision, provider)
}

// bedrockFamily is the model family langchaingo's Bedrock client picks for
// a model id, as it does (an inference profile such as us.anthropic.… is
// Anthropic's).
func bedrockFamily(model string) string {
	switch {
	case strings.Contains(model, ".nova-") || strings.HasPrefix(model, "amazon.nova-"):
		return "nova"
	case strings.Contains(model, "ai21"):
		return "ai21"
	case strings.Contains(model, "amazon"):
		return "amazon"
	case strings.Contains(model, "anthropic"):
		return "anthropic"
	}
	return ""
}

// acceptedImages are the MIME types each provider documents for images;
// anything else is converted to PNG before it is sent. Ollama's runners
// decode PNG and JPEG (ollama/ollama#2457; newer versions transcode WebP,
// older ones refuse it), and so does llama.cpp's server behind an
// OpenAI-compatible base_url ("compatible"). OpenAI takes PNG, JPEG, WebP
// and non-animated GIF (a GIF is sent as its first frame, as PNG, so an
// animation is never refused); Gemini takes PNG, JPEG and WebP but not
// GIF; Anthropic's Claude, on its API and on Bedrock, and Amazon Nova take
// all four.
var acceptedImages = map[string][]string{
	"ollama":     {"image/png", "image/jpeg"},
	"compatible": {"image/png", "image/jpeg"},
	"openai":     {"image/png", "image/jpeg", "image/webp"},
	"googleai":   {"image/png", "image/jpeg", "image/webp"},
	"anthropic":  {"image/png", "image/jpeg", "image/gif", "image/webp"},
	"bedrock":    {"image/png", "image/jpeg", "image/gif", "image/webp"},
}

// prepareImage makes img what a provider (a key of acceptedImages) accepts:
// a format it documents, at most MaxImageSendBytes and twice MaxImageEdge
// pixels on the long edge.
func prepareImage(provider string, img Image) (Image, error) {
	if len(img.Data) == 0 {
		return Image{}, fmt.Errorf("%w: it is empty", ErrBadImage)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	mime := "image/" + format
	long := max(cfg.Width, cfg.Height)
	orientation := 1
	if format == "jpeg" {
		orientation = exif.Read(img.Data).Orientation()
	}
	if slices.Contains(acceptedImages[provider], mime) && len(img.Data) <= MaxImageSendBytes && long <= 2*MaxImageEdge &&
		orientation == 1 {
		return Image{MIME: mime, Data: img.Data}, nil
	}
	if cfg.Width*cfg.Height > MaxImagePixels {
		return Image{}, fmt.Errorf("%w: %d×%d pixels, more than %d", ErrImageTooLarge, cfg.Width, cfg.Height, MaxImagePixels)
	}
	src, _, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrBadImage, err)
	}
	var buf bytes.Buffer
	if long <= MaxImageEdge && len(img.Data) <= MaxImageSendBytes && orientation == 1 { // only the format is wrong
		if err := png.Encode(&buf, src); err != nil {
			return Image{}, fmt.Errorf("convert image to PNG: %w", err)
		}
		if buf.Len() <= MaxImageSendBytes {
			return Image{MIME: "image/png", Data: buf.Bytes()}, nil
		}
		buf.Reset()
	}
	// Shrink onto white (a JPEG has no transparency), turn upright (the
	// EXIF that said how is not kept) and send as JPEG.
	w, h := cfg.Width, cfg.Height
	if long > MaxImageEdge {
		w, h = max(1, w*MaxImageEdge/long), max(1, h*MaxImageEdge/long)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	stddraw.Draw(dst, dst.Bounds(), image.White, image.Point{}, stddraw.Src)
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	if err := jpeg.Encode(&buf, orient(dst, orientation), &jpeg.Options{Quality: 85}); err != nil {
		return Image{}, fmt.Errorf("shrink image: %w", err)
	}
	return Image{MIME: "image/jpeg", Data: buf.Bytes()}, nil
}

// imageFormatsFor is the key of acceptedImages for cfg's provider: an
// OpenAI-compatible server (llama.cpp, vLLM, LM Studio) is sent PNG and
// JPEG only.
func imageFormatsFor(cfg Config) string {
	if cfg.Provider == "openai" && cfg.BaseURL != "" && !strings.HasPrefix(cfg.BaseURL, "https://api.openai.com/") {
		return "compatible"
	}
	return cfg.Provider
}

// imagePart is how langchaingo must be given an image for provider to put
// it on the wire: OpenAI's client (which also reaches Gemini) marshals a
// BinaryContent in a shape of langchaingo's own, which the APIs refuse,
// but an image_url part with a data: URL as both document; every other
// provider's client turns a BinaryContent into its own image shape.
func imagePart(provider string, img Image) llms.ContentPart {
	if provider == "openai" || provider == "googleai" {
		return llms.ImageURLPart("data:" + img.MIME + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
	}
	return llms.BinaryPart(img.MIME, img.Data)
}

// imageTokens estimates what an image costs a model to read, for the
// budget when the provider reports no usage: Anthropic's width×height/750,
// at most what the largest image sent (MaxImageEdge square) costs.
func imageTokens(img Image) int {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return 1600
	}
	return max(85, min(cfg.Width*cfg.Height/750, MaxImageEdge*MaxImageEdge/750))
}

// DescribeImage asks the model what img shows, as DescribePrompt says, and
// returns its description: one Generate call, with its retries, budget,
// circuit breaker and accounting. name (the file's name, or "") is given
// to the model as a hint. An image in a format the provider refuses is
// sent as PNG; a larger one is shrunk (see MaxImageSendBytes).
func (c *Client) DescribeImage(ctx context.Context, name string, img Image) (string, Usage, error) {
	if err := VisionSupport(c.cfg.Provider, c.cfg.Model); err != nil {
		return "", Usage{}, err
	}
	img, err := prepareImage(imageFormatsFor(c.cfg), img)
	if err != nil {
		return "", Usage{}, err
	}
	prompt := "Describe this image."
	if name != "" {
		prompt = fmt.Sprintf("Describe this image. Its file name is %q.", name)
	}
	out, u, err := c.Generate(ctx, Request{System: DescribePrompt, Prompt: prompt, Images: []Image{img}})
	if err != nil {
		return "", u, err
	}
	out = strings.TrimSpace(out)
	if out == "" {
		return "", u, errors.New("the model gave an empty description of the image")
	}
	return out, u, nil
}

// DescribePrompt is the system prompt of DescribeImage.
const DescribePrompt = `You describe pictures for a personal memory archive, so that they can be found later by what they show.
Write plain prose, no lists or headings, at most 150 words. Say what the picture is (photo, screenshot, diagram, scan, drawing),
what it shows (people by what they do and wear, places, objects, animals, weather, time of day), and copy out any readable text,
names, numbers and dates exactly. Do not guess who people are or invent what you cannot see.`
