package cli

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestIngestImageFileWithVision: `dormouse ingest --file` on the agent files runs an image through
// the configured vision model (here an OpenAI-compatible server): the image arrives as a data: URL,
// the description is stored and recalled; with the model failing nothing is stored and the command
// fails naming the model.
func TestIngestImageFileWithVision(t *testing.T) {
	var failing atomic.Bool
	var gotImage atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		for _, m := range req.Messages {
			var parts []struct {
				Type     string `json:"type"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			}
			if json.Unmarshal(m.Content, &parts) == nil {
				for _, p := range parts {
					if p.Type == "image_url" {
						gotImage.Store(p.ImageURL.URL)
					}
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"The server is overloaded","type":"server_error"}}`)
			return
		}
		writeChatCompletion(w, "gpt-4o-mini", "A hand-drawn map of the allotment: the shed is marked next to plot 14.", 300, 20)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "dormouse.yaml")
	yaml := "llm:\n  provider: openai\n  base_url: " + srv.URL + "/v1\n  max_retries: 0\n  vision: true\n  vision_model: gpt-4o-mini\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		return runEnv([]string{"DORMOUSE_CONFIG=" + cfg}, "", args...)
	}
	img := image.NewNRGBA(image.Rect(0, 0, 5, 5))
	img.Set(2, 2, color.NRGBA{G: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(dir, "allotment.png")
	if err := os.WriteFile(pic, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")

	failing.Store(true)
	_, errOut, code := run("ingest", "--data", data, "--file", pic)
	if code != ExitError || !strings.Contains(errOut, "openai/gpt-4o-mini") || !strings.Contains(errOut, "503") {
		t.Fatalf("ingest --file with the model failing: exit %d, %q", code, errOut)
	}
	failing.Store(false)
	out, errOut, code := run("ingest", "--data", data, "--file", pic)
	if code != ExitOK || out != "allotment.png: stored 1 memories\n" {
		t.Fatalf("ingest --file: exit %d, %q %q", code, out, errOut)
	}
	if url, _ := gotImage.Load().(string); !strings.HasPrefix(url, "data:image/png;base64,") {
		t.Errorf("image sent as %.40q, want a PNG data: URL", url)
	}
	out, _, code = run("recall", "--data", data, "where is the shed on the allotment map")
	if code != ExitOK || !strings.Contains(out, "plot 14") || !strings.Contains(out, "allotment.png") {
		t.Errorf("recall: exit %d, %q", code, out)
	}
}
