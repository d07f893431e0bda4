package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserWorkOnThePage: in a real Chromium, on a phone's screen and a
// desktop's, a person starts from an empty install, adds memories, asks,
// reads the activity picture and the facts, and every tab is in sight.
func TestBrowserWorkOnThePage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests take a while; not in -short")
	}
	f := newFixture(t, fixtureOptions{})
	b := newBrowser(t, f.url)

	t.Run("first memory on a phone", func(t *testing.T) {
		b.t = t
		b.phone(true)
		defer b.phone(false)
		b.open("/")
		if s := b.text("#first-memory"); !strings.Contains(s, "dormouse ingest --agent main") || !strings.Contains(s, "curl -s http://") {
			t.Errorf("the empty install's page says:\n%s", s)
		}
		b.checkClean("empty install")
		b.shot("first-memory-phone")
		b.do(chromedp.SendKeys(chromedp.CSS(`#remember textarea[name=content]`), "Bob fixed the login timeout on the Atlas proxy.", chromedp.NodeVisible))
		b.submit(`#remember button[type=submit]`)
		if loc := eval[string](b, `location.pathname`); loc != "/agents/main/memories/1" {
			t.Errorf("after adding the memory the browser is at %q", loc)
		}
		if s := b.text(".flash"); !strings.Contains(s, "The memory is stored") {
			t.Errorf("flash: %q", s)
		}
		b.checkClean("memory added")
	})

	t.Run("a refused memory keeps its text", func(t *testing.T) {
		b.t = t
		b.open("/agents/main")
		b.do(chromedp.SendKeys(chromedp.CSS(`#remember textarea[name=content]`), "   ", chromedp.NodeVisible))
		b.do(chromedp.Click(chromedp.CSS(`#remember summary`), chromedp.NodeVisible),
			chromedp.SendKeys(chromedp.CSS(`#remember input[name=role]`), "user", chromedp.NodeVisible))
		resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(`#remember button[type=submit]`), chromedp.NodeVisible))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != 422 {
			t.Errorf("a blank memory answered %d, want 422", resp.Status)
		}
		if s := b.text(".error"); !strings.Contains(s, "must not be blank") {
			t.Errorf("the error shown: %q", s)
		}
		b.forget("status of 422") // the refusal itself, which the browser logs
		if role := eval[string](b, `document.querySelector("#remember input[name=role]").value`); role != "user" {
			t.Errorf("the role typed is %q after the refusal", role)
		}
		b.checkClean("refused memory")
		b.shot("memory-refused")
	})

	// More memories through the box, one of them the pinned profile.
	for _, m := range []string{"Alice's role is engineer.", "I prefer oat milk in my coffee."} {
		b.open("/agents/main")
		b.do(chromedp.SendKeys(chromedp.CSS(`#remember textarea[name=content]`), m, chromedp.NodeVisible))
		b.submit(`#remember button[type=submit]`)
	}
	t.Run("tabs fit a phone", func(t *testing.T) {
		b.t = t
		b.phone(true)
		defer b.phone(false)
		b.open("/agents/main")
		if n := eval[int](b, `document.querySelectorAll("nav.tabs a").length`); n != 7 {
			t.Errorf("%d tabs, want 7", n)
		}
		if over := eval[[]string](b, `[...document.querySelectorAll("nav.tabs a")].filter(a => {
			const r = a.getBoundingClientRect(); return r.left < 0 || r.right > 390 || r.width == 0 }).map(a => a.textContent)`); len(over) > 0 {
			t.Errorf("tabs out of sight on a 390 px screen: %q", over)
		}
		if w := eval[[]int](b, `[document.querySelector("nav.tabs").scrollWidth, document.querySelector("nav.tabs").clientWidth, document.scrollingElement.scrollWidth]`); w[0] > w[1] || w[2] > 390 {
			t.Errorf("the tab bar scrolls (%d > %d) or the page is %d px wide", w[0], w[1], w[2])
		}
		b.checkClean("tabs on a phone")
		b.shot("agent-phone")
	})

	t.Run("ask", func(t *testing.T) {
		b.t = t
		if s := b.ask("What did Bob fix?"); !strings.Contains(s, "Bob fixed the login timeout") || !strings.Contains(s, "[memory:1]") {
			t.Errorf("the answer:\n%s", s)
		}
		b.checkClean("ask")
		b.shot("ask")
		b.submit(`#answer a.cite`)
		if loc := eval[string](b, `location.pathname`); loc != "/agents/main/memories/1" {
			t.Errorf("the citation leads to %q", loc)
		}
		b.phone(true)
		b.open("/agents/main/ask?q=When+is+Zoltan%27s+birthday%3F") // a link fills the box and asks nothing
		if n := eval[int](b, `document.querySelectorAll("#answer").length`); n != 0 {
			t.Error("following a link to the Ask page answered it")
		}
		b.submit(`form.search button`)
		if q := eval[string](b, `location.search`); q != "" {
			t.Errorf("the question went in the address (%q), not in a POST", q)
		}
		if s := b.text("#answer"); !strings.Contains(s, "Nothing stored answers this question") {
			t.Errorf("the abstained answer:\n%s", s)
		}
		if n := eval[int](b, `document.querySelectorAll("#answer a.cite").length`); n != 0 {
			t.Errorf("an abstained answer has %d citations", n)
		}
		b.checkClean("ask abstained on a phone")
		b.shot("ask-abstained-phone")
		b.phone(false)
	})

	f.seed("main", `{"content":"I am allergic to penicillin.","importance":0.95,"timestamp":"2026-02-03T12:00:00Z"}`)

	t.Run("ask beside the pinned profile", func(t *testing.T) {
		b.t = t
		if s := b.ask("What am I allergic to?"); !strings.Contains(s, "allergic to penicillin") || !strings.Contains(s, "[memory:4]") {
			t.Errorf("the answer from the pinned memory that addresses the question:\n%s", s)
		}
		if s := b.ask("What is the wifi password?"); !strings.Contains(s, "Nothing stored answers this question") || strings.Contains(s, "penicillin") {
			t.Errorf("the pinned memory answers a question it does not address:\n%s", s)
		}
		b.checkClean("ask beside the pinned profile")
	})

	t.Run("search says what scored", func(t *testing.T) {
		b.t = t
		b.open("/agents/main/search?q=zebra+migrations")
		if s := b.text("#recall-note"); !strings.Contains(s, "pinned profile") {
			t.Errorf("recall's note: %q", s)
		}
		b.open("/agents/main/search?q=Alice+role")
		labels := eval[[]string](b, `[...document.querySelectorAll("ol.results dl.parts dt")].map(d => d.textContent)`)
		if len(labels) == 0 || strings.Contains(strings.Join(labels, " "), "explain") {
			t.Errorf("the score parts are labelled %q", labels)
		}
		b.checkClean("search")
		b.shot("search-scoring")
	})

	t.Run("activity picture", func(t *testing.T) {
		b.t = t
		b.open("/agents/main")
		box := eval[[]float64](b, `(r => [r.width, r.height])(document.querySelector("svg.chart").getBoundingClientRect())`)
		if box[0] < 600 || box[1] < 50 {
			t.Errorf("the picture is %v px on a desktop", box)
		}
		bars := eval[[]float64](b, `[...document.querySelectorAll("svg.chart rect.waiting, svg.chart rect.done")].map(r => r.getBoundingClientRect().height)`)
		if len(bars) == 0 || bars[0] <= 0 {
			t.Errorf("the bars drawn: %v", bars)
		}
		if s := b.text("#activity-summary"); !strings.Contains(s, "4 memories") {
			t.Errorf("the picture's words: %q", s)
		}
		if name := eval[string](b, `document.querySelector("svg.chart").getAttribute("aria-describedby")`); name != "activity-summary" {
			t.Errorf("the picture is described by %q", name)
		}
		b.checkClean("activity")
		b.shot("activity")
		b.phone(true)
		b.open("/agents/main")
		if w := eval[float64](b, `document.querySelector("svg.chart").getBoundingClientRect().right`); w > 390 {
			t.Errorf("the picture reaches %v px on a 390 px screen", w)
		}
		b.checkClean("activity on a phone")
		b.phone(false)
	})

	t.Run("facts by entity", func(t *testing.T) {
		b.t = t
		b.open("/agents/main/consolidate")
		b.submit(`form.stack button[type=submit]`)
		b.open("/agents/main/facts")
		heads := eval[[]string](b, `[...document.querySelectorAll("section.fact-entity h2")].map(h => h.textContent)`)
		if len(heads) == 0 {
			t.Fatalf("no entity sections on the facts page:\n%s", b.text("main"))
		}
		seen := map[string]bool{}
		for _, h := range heads {
			name := strings.ToLower(strings.TrimSpace(strings.Split(h, "·")[0]))
			if seen[name] {
				t.Errorf("entity %q has two sections", name)
			}
			seen[name] = true
		}
		b.checkClean("facts")
		b.shot("facts-by-entity")
	})
}

// forget drops the browser's log entries holding s: an error the test
// caused on purpose.
func (b *browser) forget(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logs = slices.DeleteFunc(b.logs, func(l string) bool { return strings.Contains(l, s) })
}

// ask types question into agent main's Ask box, submits it and returns
// the answer's text.
func (b *browser) ask(question string) string {
	b.open("/agents/main/ask")
	b.do(chromedp.SendKeys(chromedp.ID("q"), question, chromedp.NodeVisible))
	b.submit(`form.search button`)
	return b.text("#answer")
}
