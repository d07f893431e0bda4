package web

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestUploadImageWithTheModelDown: the page says the image model failed (502, nothing stored) and,
// once it answers, stores the image with its description.
func TestUploadImageWithTheModelDown(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	f := newFixture(t, fixtureOptions{describe: func(_ context.Context, name, mime string, _ []byte) (string, error) {
		if down.Load() {
			return "", errors.New("the LLM provider is unavailable: ollama could not be reached")
		}
		return "A whiteboard listing the sprint goals: ship the importer, fix login.", nil
	}})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/upload")
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 6, 4))); err != nil {
		t.Fatal(err)
	}
	count := func() (n int, found bool) {
		f.agent("main", func(a *store.Agent) {
			ms, _, err := a.List(t.Context(), store.ListOptions{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			n = len(ms)
			for _, m := range ms {
				found = found || strings.Contains(m.Content, "sprint goals")
			}
		})
		return n, found
	}
	before, _ := count()
	r := f.upload("main", url.Values{"csrf": {tok}}, "board.png", b.Bytes())
	if r.status != http.StatusBadGateway || !strings.Contains(r.body, "could not describe") || !strings.Contains(r.body, "could not be reached") {
		t.Errorf("upload with the model down: %d, want 502 saying so:\n%s", r.status, r.body)
	}
	if n, _ := count(); n != before {
		t.Errorf("%d memories after a failed upload, want %d", n, before)
	}
	down.Store(false)
	r = f.upload("main", url.Values{"csrf": {tok}}, "board.png", b.Bytes())
	if r.status != http.StatusOK || !strings.Contains(r.body, "1 new memory stored") {
		t.Errorf("upload with the model up: %d:\n%s", r.status, r.body)
	}
	if _, found := count(); !found {
		t.Error("the description was not stored")
	}
}
