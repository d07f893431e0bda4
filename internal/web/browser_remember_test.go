package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestBrowserRemembersLongNonASCIIText: the add-a-memory box takes what the API takes, counted in
// bytes of UTF-8 as api.max_content_bytes is, though the browser sends each non-ASCII byte as three
// (%D0%97): 40 KB of Cyrillic text is stored whole, and 70 KB is refused with the text kept in the
// box.
func TestBrowserRemembersLongNonASCIIText(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests take a while; not in -short")
	}
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f.url)
	const phrase = "Зоя ела крем-брюле в кафе «Шкофья-Лока»; " // 64 of its 73 bytes are not ASCII
	long := strings.Repeat(phrase, 40_000/len(phrase))
	box := `#remember textarea[name=content]`

	b.open("/")
	b.do(chromedp.SetValue(box, long, chromedp.NodeVisible))
	b.submit(`#remember button[type=submit]`)
	if loc := eval[string](b, `location.pathname`); loc != "/agents/main/memories/1" {
		t.Fatalf("after adding %d bytes the browser is at %q: %s", len(long), loc, b.text("main"))
	}
	var got store.Memory
	err := f.store.With(t.Context(), "main", false, func(a *store.Agent) error {
		var err error
		got, err = a.Get(t.Context(), 1)
		return err
	})
	if err != nil || got.Content != long {
		t.Errorf("stored %d bytes (%v), want the %d typed", len(got.Content), err, len(long))
	}

	tooLong := strings.Repeat(phrase, 70_000/len(phrase))
	b.open("/agents/main")
	b.do(chromedp.SetValue(box, tooLong, chromedp.NodeVisible))
	resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(`#remember button[type=submit]`), chromedp.NodeVisible))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 422 {
		t.Errorf("%d bytes answered %d, want 422", len(tooLong), resp.Status)
	}
	if s := b.text(".error"); !strings.Contains(s, "the limit is 65536") {
		t.Errorf("the error shown: %q", s)
	}
	b.forget("status of 422")
	if kept := eval[string](b, `document.querySelector("#remember textarea[name=content]").value`); kept != tooLong {
		t.Errorf("the box holds %d bytes after the refusal, want the %d typed", len(kept), len(tooLong))
	}
	b.checkClean("long memories")
}
