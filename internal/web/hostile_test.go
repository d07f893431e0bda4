package web

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// hostile is what a memory, a file name or a query might hold to break out
// of the page: markup, an attribute breaking its quotes, a script URL,
// quotes, NUL and invalid UTF-8.
const hostile = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>' javascript:alert(3) \x00 \xff\xfe end"

// pageTags and pageAttributes are every element and attribute the pages
// write themselves; hostile text that became markup shows as another one.
var (
	pageTags = strings.Fields(`a title span g dt dd meta p input link h2 li label section td form button main img html
		header head h1 footer body nav summary details ul th div dl tr time h3 rect textarea meter code thead tbody
		table strong ol pre aside svg small option line datalist`)
	pageAttributes = strings.Fields(`action alt aria-current aria-describedby aria-label aria-labelledby autocapitalize
		autocomplete charset class colspan content data-day datetime enctype for height href id inputmode lang list max
		maxlength method min name placeholder rel role rows size spellcheck src title type value width x xmlns y open
		checked required preserveaspectratio viewbox x1 x2 y1 y2`)
)

// TestHostileTextStaysText sends hostile strings through every kind of
// value a page shows (memory text, session and role, context, fact values,
// profile lines, a day record's parts, the search query and the question
// echoed back, form fields refused and echoed, file names, error messages,
// a sign-in's next page) and reads each page as a browser would: no element
// or attribute the pages do not write themselves, no script URL, the
// hostile text shown as text.
func TestHostileTextStaysText(t *testing.T) {
	f := newFixture(t, fixtureOptions{backups: t.TempDir()})
	fact := hostileSeed(t, f)
	q := url.QueryEscape(hostile)
	pages := []string{"/", "/agents/main", "/agents/main/search?q=" + q, "/agents/main/search?q=Mallory&k=" + q,
		"/agents/main/days", "/agents/main/days/2026-02-09", "/agents/main/days/" + q, "/agents/main/memories/2",
		"/agents/main/memories/" + q, "/agents/main/facts?history=1", "/agents/main/facts?entity=" + q,
		fmt.Sprintf("/agents/main/facts/%d", fact), "/agents/main/profile/1", "/agents/main/ask?q=" + q,
		"/agents/main/days?before=" + q, "/agents/main?weeks=" + q, "/agents/" + q, "/login?next=" + q}
	// the pages that show none of the hostile values (the sign-in page
	// replaces an off-site next page with /)
	quiet := map[string]bool{"/": true, "/agents/main/days": true, "/login?next=" + q: true, "/agents/main/delete": true, "/login": true}
	for _, p := range pages {
		r := f.get(p)
		checkHostilePage(t, "GET "+p, r.body, !quiet[p])
	}
	tok := f.token("/agents/main/ask")
	posts := []struct {
		path string
		form url.Values
	}{
		{"/agents/main/ask", url.Values{"q": {hostile}}},
		{"/memories", url.Values{"agent": {hostile}, "content": {hostile}, "role": {hostile}, "session_id": {hostile}}},
		{"/memories", url.Values{"agent": {"main"}, "content": {""}, "role": {hostile}, "session_id": {hostile}, "fixed": {"1"}}},
		{"/agents/main/consolidate", url.Values{"date": {hostile}}},
		{fmt.Sprintf("/agents/main/facts/%d/correct", fact), url.Values{"content": {""}, "value": {hostile}}},
		{"/agents/main/profile/1/edit", url.Values{"text": {hostile + strings.Repeat("x", 5000)}}},
		{"/agents/main/delete", url.Values{"confirm": {hostile}}},
		{"/agents/main/memories/2/share", url.Values{"to": {hostile}}},
		{"/login", url.Values{"token": {hostile}, "next": {hostile}}},
	}
	for _, p := range posts {
		p.form.Set("csrf", tok)
		r := f.post(p.path, p.form)
		checkHostilePage(t, "POST "+p.path, r.body, !quiet[p.path])
	}
	for _, name := range []string{hostile + ".md", hostile + ".exe"} {
		r := f.upload("main", url.Values{"csrf": {tok}}, name, []byte("# Notes\n\n"+hostile+"\n"))
		checkHostilePage(t, "upload "+name, r.body, true)
	}
}

// hostileSeed stores hostile text in every field of a memory, a fact, a
// profile line and a day record, and returns the fact's id.
func hostileSeed(t *testing.T, f *fixture) (fact int64) {
	t.Helper()
	day := time.Date(2026, 2, 9, 8, 0, 0, 0, time.UTC)
	f.seed("main", `{"content":"The agent exists.","timestamp":"2026-02-09T07:00:00Z"}`)
	f.agent("main", func(a *store.Agent) {
		c := "Mallory wrote " + hostile
		if _, err := a.Insert(t.Context(), []store.Memory{{Content: c, ContentHash: c, Timestamp: day, Role: hostile, SessionID: hostile,
			InteractionType: hostile, Source: hostile, Summary: hostile, Context: []byte(`{"k":"<script>alert(4)</script>"}`),
			Entities: []store.Entity{{Text: hostile, Type: hostile}}, Topics: []string{hostile}}}); err != nil {
			t.Fatal(err)
		}
		var err error
		if fact, err = a.AddFact(t.Context(), store.Fact{Entity: hostile, EntityType: hostile, Attribute: hostile, Value: hostile,
			FactType: hostile, Content: "Mallory says " + hostile, SourceMemoryIDs: []int64{2}}); err != nil {
			t.Fatal(err)
		}
		valid := strings.ToValidUTF8(hostile, "") // the store keeps a profile line valid
		if _, _, err := a.PutProfileLines(t.Context(), []store.ProfileLine{{Category: "work", Subject: valid, Key: valid,
			Value: valid, Single: true, Text: valid, SourceMemoryIDs: []int64{2}, ValidFrom: day}}, day); err != nil {
			t.Fatal(err)
		}
	})
	tok := f.token("/agents/main/consolidate")
	if r := f.post("/agents/main/consolidate", url.Values{"csrf": {tok}, "date": {"2026-02-09"}}); r.status != 303 {
		t.Fatalf("consolidate the hostile day: %d\n%s", r.status, r.body)
	}
	return fact
}

// checkHostilePage reads body as a browser would and fails on anything
// hostile that became markup, or (shows) when the hostile text is not
// there as text.
func checkHostilePage(t *testing.T, where, body string, shows bool) {
	t.Helper()
	if shows && !strings.Contains(body, "&lt;script&gt;alert(") {
		t.Errorf("%s: the hostile text is not shown as text:\n%s", where, body)
	}
	for _, bad := range []string{"<script", "<img src=x"} {
		if strings.Contains(body, bad) {
			t.Errorf("%s: %q in the page", where, bad)
		}
	}
	z := html.NewTokenizer(strings.NewReader(body))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		tok := z.Token()
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		if !slices.Contains(pageTags, tok.Data) {
			t.Errorf("%s: a <%s> element", where, tok.Data)
		}
		for _, a := range tok.Attr {
			if !slices.Contains(pageAttributes, a.Key) {
				t.Errorf("%s: <%s %s=%q>", where, tok.Data, a.Key, a.Val)
			}
			if a.Key == "href" || a.Key == "src" || a.Key == "action" {
				if s := hrefScheme(a.Val); s != "" && s != "http" && s != "https" && s != "mailto" {
					t.Errorf("%s: <%s %s=%q>, a %s: URL", where, tok.Data, a.Key, a.Val, s)
				}
			}
		}
	}
}
