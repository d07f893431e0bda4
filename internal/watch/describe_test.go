package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// vision is a vision model's stand-in that can be taken down and brought back.
type vision struct {
	mu    sync.Mutex
	down  bool
	calls int
}

func (v *vision) describe(_ context.Context, name, mime string, data []byte) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	if v.down {
		return "", errors.New("the LLM provider is unavailable: ollama answered 500 Internal Server Error")
	}
	if _, format, err := image.DecodeConfig(bytes.NewReader(data)); err != nil || "image/"+format != mime {
		return "", errors.New("not the image it claims to be")
	}
	return "A red rowing boat named Molly moored in a harbour (" + name + ").", nil
}

func (v *vision) set(down bool) {
	v.mu.Lock()
	v.down = down
	v.mu.Unlock()
}

func pngBytes(t *testing.T, w int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, 6))
	for x := range w {
		img.Set(x, 3, color.NRGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWatchedImageDescribedAfterTheModelRecovers: with the model down an image is a failing file,
// listed, with no memory; once the model answers, the retry stores the description.
func TestWatchedImageDescribedAfterTheModelRecovers(t *testing.T) {
	e := newEnv(t)
	v := &vision{down: true}
	e.ing.Describe, e.ing.DescribedBy = v.describe, "ollama/llava"
	e.run(e.folder())
	e.write("pics/harbour.png", string(pngBytes(t, 8)))

	e.eventually("the failure recorded", func() bool { return e.trackedFiles()["pics/harbour.png"].Status == store.FileFailed })
	failing, err := FailingFiles(context.Background(), e.st, nil)
	if err != nil || len(failing) != 1 || failing[0].Path != "pics/harbour.png" ||
		!strings.Contains(failing[0].Error, "ollama/llava") || !strings.Contains(failing[0].Error, "answered 500") {
		t.Fatalf("FailingFiles = %+v, %v; want harbour.png with the model's error", failing, err)
	}
	if total, _ := e.memoryCount(); total != 0 {
		t.Fatalf("%d memories stored while the model was down", total)
	}

	v.set(false)
	e.eventually("the retry's memory", func() bool { ids, _ := e.found("Molly"); return len(ids) == 1 })
	if tf := e.trackedFiles()["pics/harbour.png"]; tf.Status != store.FileOK {
		t.Errorf("tracked file = %+v, want ok", tf)
	}
	if failing, _ := FailingFiles(context.Background(), e.st, nil); len(failing) != 0 {
		t.Errorf("still failing: %+v", failing)
	}
	e.agent(func(a *store.Agent) error {
		ids, _ := e.found("Molly")
		m, err := a.Get(context.Background(), ids[0])
		if err != nil {
			return err
		}
		var c struct {
			Image map[string]any `json:"image"`
		}
		if err := json.Unmarshal(m.Context, &c); err != nil {
			return err
		}
		if m.Source != "pics/harbour.png" || !strings.HasPrefix(m.Content, "Image harbour.png (in pics): PNG, 8×6 pixels") ||
			c.Image["described_by"] != "ollama/llava" || c.Image["width"] != float64(8) {
			t.Errorf("memory %q from %s, context %s", m.Content, m.Source, m.Context)
		}
		return nil
	})
}

// TestUploadedImageWithTheModelDown: an upload is refused with a describe error (nothing stored,
// nothing tracked), and stored once the model answers.
func TestUploadedImageWithTheModelDown(t *testing.T) {
	e := newEnv(t)
	v := &vision{down: true}
	e.ing.Describe, e.ing.DescribedBy = v.describe, "openai/gpt-4o-mini"
	ctx := context.Background()
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	for i, up := range []func() (Outcome, error){
		func() (Outcome, error) { return e.ing.Upload(ctx, "main", "boat.png", pngBytes(t, 8), at) },
		func() (Outcome, error) { return e.ing.UploadAt(ctx, "main", "pics/boat.png", pngBytes(t, 9), at) },
	} {
		v.set(true)
		if _, err := up(); !IsDescribeError(err) || IsInputError(err) || !errors.Is(err, files.ErrDescribe) {
			t.Fatalf("upload with the model down: error %v, want a describe error", err)
		}
		if total, _ := e.memoryCount(); total != int64(i) {
			t.Fatalf("%d memories after upload %d with the model down, want %d", total, i+1, i)
		}
		v.set(false)
		if out, err := up(); err != nil || out.Status != store.FileOK || out.Inserted != 1 {
			t.Fatalf("upload with the model up = %+v, %v", out, err)
		}
	}
	if failing, _ := FailingFiles(ctx, e.st, nil); len(failing) != 0 {
		t.Errorf("uploads tracked as failing: %+v", failing)
	}
	if ids, _ := e.found("Molly"); len(ids) != 2 {
		t.Errorf("%d described uploads found, want 2", len(ids))
	}
}

// TestInboxKeepsImagesWhileTheModelIsDown: an inbox moves a file to failed/ after a few failures,
// but not for the model's failures: the image waits in the inbox, retried, and goes to processed/
// once described.
func TestInboxKeepsImagesWhileTheModelIsDown(t *testing.T) {
	e := newEnv(t)
	e.ing.RetryBase, e.ing.RetryMax = 20*time.Millisecond, 40*time.Millisecond
	v := &vision{down: true}
	e.ing.Describe, e.ing.DescribedBy = v.describe, "ollama/llava"
	f := e.folder()
	f.Mode, f.Move = "inbox", true
	e.run(f)
	e.write("scan.png", string(pngBytes(t, 8)))
	e.eventually("more failures than an inbox allows", func() bool {
		return e.trackedFiles()["scan.png"].Attempts > maxInboxAttempts
	})
	if _, err := os.Stat(filepath.Join(e.root, "scan.png")); err != nil {
		t.Fatalf("the image left the inbox while the model was down: %v", err)
	}
	v.set(false)
	e.eventually("moved to processed/ once described", func() bool {
		_, err := os.Stat(filepath.Join(e.root, "processed", "scan.png"))
		return err == nil
	})
	if ids, _ := e.found("Molly"); len(ids) != 1 {
		t.Errorf("%d described memories, want 1", len(ids))
	}
}

// TestImagesStoredBeforeVisionAreDescribed: an image stored with its metadata only, before a vision
// model was configured, is described by the next scan once one is: the same memory, rewritten (its
// id, and so every citation of it, holds), once; while the model is down it keeps its metadata.
func TestImagesStoredBeforeVisionAreDescribed(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.write("pics/harbour.png", string(pngBytes(t, 8)))
	e.write("notes/boat.md", "# Boat\n\nThe boat needs new oars before May.")
	if res, err := NewWatcher(e.folder(), e.ing, nil).ScanOnce(ctx); err != nil || res.Ingested != 2 || res.Described != 0 {
		t.Fatalf("scan without vision: %+v, %v", res, err)
	}
	ids, _ := e.found("harbour")
	if len(ids) != 1 {
		t.Fatalf("image memories %v, want one", ids)
	}
	if tf := e.trackedFiles(); !tf["pics/harbour.png"].Undescribed || tf["notes/boat.md"].Undescribed {
		t.Fatalf("tracked files: %+v; want the image (only) undescribed", tf)
	}
	// Without a model nothing changes.
	if res, err := NewWatcher(e.folder(), e.ing, nil).ScanOnce(ctx); err != nil || res.Unchanged != 2 {
		t.Fatalf("second scan without vision: %+v, %v", res, err)
	}

	// The model is configured but down: the image keeps its metadata and is retried.
	v := &vision{down: true}
	e.ing.Describe, e.ing.DescribedBy = v.describe, "ollama/llava"
	e.ing.RetryBase = time.Nanosecond // the failed file is due again at once
	if res, err := NewWatcher(e.folder(), e.ing, nil).ScanOnce(ctx); err != nil || res.Failed != 1 {
		t.Fatalf("scan with the model down: %+v, %v", res, err)
	}
	if got, _ := e.found("harbour"); len(got) != 1 || got[0] != ids[0] {
		t.Fatalf("with the model down the image's memory is %v, want %v kept", got, ids)
	}

	// The model answers: the same memory now says what the image shows.
	v.set(false)
	res, err := NewWatcher(e.folder(), e.ing, nil).ScanOnce(ctx)
	if err != nil || res.Described != 1 || res.Memories != 0 {
		t.Fatalf("scan with the model up: %+v, %v; want one image described, no memory added", res, err)
	}
	if got, _ := e.found("Molly"); len(got) != 1 || got[0] != ids[0] {
		t.Fatalf("memories naming Molly: %v, want the image's own %v", got, ids)
	}
	if total, current := e.memoryCount(); total != 2 || current != 2 {
		t.Errorf("memories: %d stored, %d current; want 2 and 2", total, current)
	}
	if tf := e.trackedFiles()["pics/harbour.png"]; tf.Undescribed || tf.Status != store.FileOK {
		t.Errorf("tracked image after describing: %+v", tf)
	}
	calls := v.calls
	if res, err := NewWatcher(e.folder(), e.ing, nil).ScanOnce(ctx); err != nil || res.Described != 0 || v.calls != calls {
		t.Errorf("a further scan: %+v, %v, %d model calls; want nothing described again", res, err, v.calls-calls)
	}
}
