package daemon_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// fakeOllama is Ollama's HTTP API as a vision model serves it: /api/chat answers with a
// description, or 500 while it is down.
type fakeOllama struct {
	mu       sync.Mutex
	down     bool
	answer   string
	chats    []ollamaChat
	delay    time.Duration
	inFlight int
	most     int // the most chats answered at once
}

type ollamaChat struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string   `json:"role"`
		Content string   `json:"content"`
		Images  []string `json:"images"`
	} `json:"messages"`
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/tags":
		io.WriteString(w, `{"models":[{"name":"llava:latest","model":"llava:latest"}]}`)
		return
	case "/api/chat":
	default:
		http.NotFound(w, r)
		return
	}
	var c ollamaChat
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.chats = append(f.chats, c)
	down, answer, delay := f.down, f.answer, f.delay
	f.inFlight++
	f.most = max(f.most, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	time.Sleep(delay)
	if down {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":"llama runner process has terminated: signal: killed"}`)
		return
	}
	text, _ := json.Marshal(answer)
	io.WriteString(w, `{"model":"llava","created_at":"2026-03-02T21:04:05.123456789Z","message":{"role":"assistant","content":`+
		string(text)+`},"done_reason":"stop","done":true,"prompt_eval_count":612,"eval_count":40}`)
}

func (f *fakeOllama) set(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// images returns the images of every chat so far, decoded.
func (f *fakeOllama) images(t *testing.T) (model string, imgs [][]byte) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.chats {
		model = c.Model
		for _, m := range c.Messages {
			for _, s := range m.Images {
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					t.Fatalf("image not base64: %v", err)
				}
				imgs = append(imgs, b)
			}
		}
	}
	return model, imgs
}

func boatPNG(t *testing.T, w int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, 12))
	for x := range w {
		img.Set(x, 6, color.NRGBA{R: 220, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const boat = "A photo of a small harbour at dusk. A red rowing boat with the name Molly painted on its bow is moored by the stone wall."

func visionConfig(ollama string) config.Config {
	cfg := config.Default()
	cfg.Timezone = "UTC"
	cfg.LLM.Provider, cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.VisionModel = "ollama", ollama, "llama3.2", "llava"
	cfg.LLM.Vision, cfg.LLM.MaxRetries, cfg.LLM.Timeout = true, 0, config.Duration(5*time.Second)
	return cfg
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWatchedImageThroughAVisionModel runs the file pipeline as the daemon wires it, with the real
// LLM client against an Ollama server: the model down makes the image a failing file with nothing
// stored; once the model is back, the retry stores its description, which recall finds.
func TestWatchedImageThroughAVisionModel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ollama := &fakeOllama{down: true, answer: boat}
	srv := httptest.NewServer(ollama)
	defer srv.Close()
	cfg := visionConfig(srv.URL)
	cfg.DataDir = t.TempDir()
	log := slog.New(slog.DiscardHandler)
	st, err := store.Open(ctx, daemon.StoreOptions(cfg, log))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ing := daemon.FileIngester(cfg, st, log)
	// The daemon waits 30s to 1h; three failures in a row would open the client's circuit for 2 minutes.
	ing.RetryBase, ing.RetryMax = 500*time.Millisecond, time.Second
	if err := daemon.DescribeImages(ctx, cfg, nil, ing, log); err != nil {
		t.Fatal(err)
	}
	if ing.DescribedBy != "ollama/llava" {
		t.Errorf("DescribedBy = %q, want ollama/llava", ing.DescribedBy)
	}
	root := t.TempDir()
	m := watch.NewManager([]watch.Folder{{Path: root, Agent: "main", Mode: "mirror", Recursive: true,
		Rescan: time.Hour, Settle: 50 * time.Millisecond}}, ing, log)
	m.Start(ctx)
	defer func() { cancel(); m.Wait() }()

	pic := boatPNG(t, 16)
	if err := os.MkdirAll(filepath.Join(root, "2025", "trip"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "2025", "trip", "harbour.png"), pic, 0o600); err != nil {
		t.Fatal(err)
	}
	var failing []watch.FailingFile
	eventually(t, "the image listed as failing", func() bool {
		failing, _ = m.FailingFiles(ctx)
		return len(failing) == 1
	})
	if f := failing[0]; f.Path != "2025/trip/harbour.png" || !strings.Contains(f.Error, "ollama/llava") ||
		!strings.Contains(f.Error, "answered 500") || !strings.Contains(f.Error, "unavailable") {
		t.Errorf("failing file = %+v", f)
	}
	if model, imgs := ollama.images(t); model != "llava" || len(imgs) == 0 || !bytes.Equal(imgs[0], pic) {
		t.Fatalf("the model was asked with model %q and %d images; want llava and the PNG as written", model, len(imgs))
	}
	eng := daemon.RecallEngine(cfg)
	recallBoat := func() recall.Result {
		var res recall.Result
		err := st.With(ctx, "main", false, func(a *store.Agent) error {
			var err error
			res, err = eng.Recall(ctx, a, recall.Query{Text: "What is the red boat in the harbour called?"})
			return err
		})
		if err != nil && !errors.Is(err, store.ErrNoAgent) {
			t.Fatal(err)
		}
		return res
	}
	if res := recallBoat(); strings.Contains(res.Context, "Molly") {
		t.Fatalf("recalled while the model was down: %q", res.Context)
	}

	ollama.set(false)
	eventually(t, "the description recalled", func() bool { return strings.Contains(recallBoat().Context, "Molly") })
	if failing, _ := m.FailingFiles(ctx); len(failing) != 0 {
		t.Errorf("still failing after the retry: %+v", failing)
	}
	if c := recallBoat().Context; !strings.Contains(c, "harbour.png") || !strings.Contains(c, "16×12 pixels") {
		t.Errorf("recalled context %q lacks the image's name and size", c)
	}
}

// TestDaemonDescribesImages: `dormouse serve` with llm.vision describes a watched folder's image and
// an uploaded one; an upload while the model is down is answered 502 and stores nothing.
func TestDaemonDescribesImages(t *testing.T) {
	ollama := &fakeOllama{answer: boat}
	srv := httptest.NewServer(ollama)
	defer srv.Close()
	root := t.TempDir()
	d := daemontest.Start(t, func(cfg *config.Config) {
		v := visionConfig(srv.URL)
		cfg.LLM = v.LLM
		w := config.DefaultWatchFolder()
		w.Path, w.Agent, w.Settle = root, "main", config.Duration(50*time.Millisecond)
		cfg.Watch = []config.WatchFolder{w}
	})
	ctx := t.Context()
	c := client.New(d.Addr)
	if err := os.WriteFile(filepath.Join(root, "harbour.png"), boatPNG(t, 16), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the watched image recalled", func() bool {
		res, err := c.Recall(ctx, "main", client.RecallRequest{Query: "What is the boat called?"})
		return err == nil && strings.Contains(res.Context, "Molly")
	})

	ollama.set(true)
	_, err := c.UploadFile(ctx, "main", "quay.png", boatPNG(t, 20), client.UploadOptions{})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadGateway || ae.Code != "model_unavailable" ||
		!strings.Contains(ae.Message, "ollama/llava") {
		t.Fatalf("upload with the model down: %v, want 502 model_unavailable naming the model", err)
	}
	ollama.set(false)
	out, err := c.UploadFile(ctx, "main", "quay.png", boatPNG(t, 20), client.UploadOptions{})
	if err != nil || out.Inserted != 1 {
		t.Fatalf("upload with the model up = %+v, %v", out, err)
	}
	res, err := c.Recall(ctx, "main", client.RecallRequest{Query: "quay.png boat"})
	if err != nil || !strings.Contains(res.Context, "quay.png") {
		t.Errorf("uploaded image not recalled: %q, %v", res.Context, err)
	}
}

// TestImagesAreDescribedOneAtATime: the scan's workers share one model; it is asked one image at a time.
func TestImagesAreDescribedOneAtATime(t *testing.T) {
	ollama := &fakeOllama{answer: boat, delay: 30 * time.Millisecond}
	srv := httptest.NewServer(ollama)
	defer srv.Close()
	cfg := visionConfig(srv.URL)
	ing := &watch.Ingester{}
	if err := daemon.DescribeImages(t.Context(), cfg, nil, ing, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Go(func() {
			out, err := ing.Describe(t.Context(), "p.png", "image/png", boatPNG(t, 10+i))
			if err == nil && out != boat {
				err = errors.New("description " + out)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	ollama.mu.Lock()
	defer ollama.mu.Unlock()
	if ollama.most != 1 || len(ollama.chats) != 4 {
		t.Errorf("%d chats, at most %d at once; want 4, one at a time", len(ollama.chats), ollama.most)
	}
}

// TestVisionSetupFailureFailsImages: a vision model that cannot be set up (no API key) is an error
// at start-up and the error of every image, so that they are retried rather than stored undescribed.
func TestVisionSetupFailureFailsImages(t *testing.T) {
	cfg := visionConfig("")
	cfg.LLM.Provider, cfg.LLM.BaseURL, cfg.LLM.VisionModel = "anthropic", "", ""
	ing := &watch.Ingester{}
	err := daemon.DescribeImages(t.Context(), cfg, []string{"PATH=/usr/bin"}, ing, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("DescribeImages without a key: %v", err)
	}
	if ing.Describe == nil {
		t.Fatal("no describer: images would be stored undescribed")
	}
	if _, err := ing.Describe(t.Context(), "p.png", "image/png", boatPNG(t, 4)); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("describe without a key: %v", err)
	}
	// Without llm.vision, or offline, nothing is set: images keep their metadata as before.
	for _, edit := range []func(*config.Config){
		func(c *config.Config) { c.LLM.Vision = false },
		func(c *config.Config) { c.LLM.Provider = "offline" },
	} {
		c := visionConfig("http://127.0.0.1:1")
		edit(&c)
		ing := &watch.Ingester{}
		if err := daemon.DescribeImages(t.Context(), c, nil, ing, nil); err != nil || ing.Describe != nil || ing.DescribedBy != "" {
			t.Errorf("DescribeImages(%+v) = %v, describer set %v", c.LLM, err, ing.Describe != nil)
		}
	}
}

// TestUnreadableImageIsStoredWithItsMetadata: a GIF whose header reads but whose pixels do not
// cannot be converted for Ollama: it is stored with its metadata and the reason, not sent, and not
// failed for ever.
func TestUnreadableImageIsStoredWithItsMetadata(t *testing.T) {
	ollama := &fakeOllama{answer: boat}
	srv := httptest.NewServer(ollama)
	defer srv.Close()
	cfg := visionConfig(srv.URL)
	cfg.DataDir = t.TempDir()
	log := slog.New(slog.DiscardHandler)
	st, err := store.Open(t.Context(), daemon.StoreOptions(cfg, log))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ing := daemon.FileIngester(cfg, st, log)
	if err := daemon.DescribeImages(t.Context(), cfg, nil, ing, log); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, image.NewPaletted(image.Rect(0, 0, 30, 20), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	cut := b.Bytes()[:b.Len()-12]
	out, err := ing.Upload(t.Context(), "main", "cut.gif", cut, time.Now())
	if err != nil || out.Inserted != 1 {
		t.Fatalf("Upload = %+v, %v; want the metadata stored", out, err)
	}
	if _, imgs := ollama.images(t); len(imgs) != 0 {
		t.Errorf("%d images sent to the model", len(imgs))
	}
	err = st.With(t.Context(), "main", false, func(a *store.Agent) error {
		list, _, err := a.List(t.Context(), store.ListOptions{})
		if err != nil || len(list) != 1 {
			return fmt.Errorf("list = %d, %v", len(list), err)
		}
		if c := string(list[0].Context); !strings.Contains(c, `"not_described"`) || !strings.Contains(c, "cannot be read") {
			t.Errorf("context %s, want not_described with the reason", c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
