package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// profileSeed is seedDay's agent with a profile: where the user works
// (citing memory 1) and the oat milk rule (citing memory 3).
func profileSeed(t *testing.T, f *fixture) (work, milk int64) {
	t.Helper()
	f.seed("main", seedDay)
	day := time.Date(2026, 2, 9, 0, 0, 0, 0, time.UTC)
	f.agent("main", func(a *store.Agent) {
		if _, _, err := a.PutProfileLines(t.Context(), []store.ProfileLine{
			{Category: "work", Subject: "user", Key: "employer", Value: "Atlas", Single: true, Text: "The user works on the Atlas proxy.",
				SourceMemoryIDs: []int64{2}, ValidFrom: day},
			{Category: "diet", Subject: "user", Key: "diet", Value: "oat milk", Single: true, Text: "The user takes oat milk, never cow's milk.",
				SourceMemoryIDs: []int64{3}, ValidFrom: day},
		}, day); err != nil {
			t.Fatal(err)
		}
		lines, err := a.Profile(t.Context(), time.Time{})
		if err != nil || len(lines) != 2 {
			t.Fatalf("profile %v, %v", lines, err)
		}
		work, milk = lines[0].ID, lines[1].ID
	})
	return work, milk
}

// TestProfileFormsNeedCSRFAndSayWhy: an edit or removal without the page's
// token changes nothing; one of a line no longer current, or to empty
// text, is refused on the line's page with the reason.
func TestProfileFormsNeedCSRFAndSayWhy(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	work, milk := profileSeed(t, f)
	path := fmt.Sprintf("/agents/main/profile/%d", work)
	for _, action := range []string{"/edit", "/remove"} {
		if r := f.post(path+action, url.Values{"text": {"The user works at Atkins."}}); r.status != http.StatusForbidden {
			t.Errorf("POST %s without a token: %d, want 403", action, r.status)
		}
	}
	tok := f.token(path)
	if r := f.post(path+"/edit", url.Values{"csrf": {tok}, "text": {"   "}}); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.body, "The edit was not stored") {
		t.Errorf("empty edit: %d, want 422 with the reason:\n%s", r.status, r.body)
	}
	r := f.post(path+"/remove", url.Values{"csrf": {tok}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != path+"?done=profile-removed" {
		t.Fatalf("remove: %d %q", r.status, r.header.Get("Location"))
	}
	if r := f.post(path+"/edit", url.Values{"csrf": {tok}, "text": {"The user works at Atkins."}}); r.status != http.StatusConflict ||
		!strings.Contains(r.body, "Only a current line can be changed") {
		t.Errorf("edit of a removed line: %d, want 409 with the reason:\n%s", r.status, r.body)
	}
	if r := f.get("/agents/main"); strings.Contains(r.body, "Atlas proxy") || !strings.Contains(r.body, fmt.Sprintf("profile:%d", milk)) {
		t.Errorf("the agent's page after the removal:\n%s", r.body)
	}
}

// TestBrowserProfile: in a real Chromium, without scripts, the agent's page
// shows the profile by category with links to the memories each line
// cites; a line is edited (the old one shown in the history, replaced) and
// removed through the page's forms; it all fits a phone.
func TestBrowserProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests take a while; not in -short")
	}
	f := newFixture(t, fixtureOptions{})
	work, milk := profileSeed(t, f)
	b := newBrowser(t, f.url)

	b.open("/agents/main")
	section := b.text("#profile")
	if !strings.Contains(section, "work") || !strings.Contains(section, "The user works on the Atlas proxy.") ||
		!strings.Contains(section, "diet") || !strings.Contains(section, "memory:3") {
		t.Errorf("the profile section:\n%s", section)
	}
	if href := eval[string](b, `document.querySelector("#profile a[href$='/memories/3']").getAttribute("href")`); href != "/agents/main/memories/3" {
		t.Errorf("the citation links to %q", href)
	}
	b.checkClean("agent page with a profile")
	b.phone(true)
	b.open("/agents/main")
	b.checkClean("agent page with a profile on a phone")
	b.shot("profile-phone")
	b.phone(false)

	b.open(fmt.Sprintf("/agents/main/profile/%d", work))
	b.do(chromedp.SetValue(chromedp.CSS(`textarea[name=text]`), "The user is a bridge engineer at Atkins.", chromedp.NodeReady))
	b.submit(`form.stack button[type=submit]`)
	if got, state := b.text("#line-text"), b.text("#state"); got != "The user is a bridge engineer at Atkins." || state != "current" {
		t.Errorf("after the edit the page shows %q (%s)", got, state)
	}
	if hist := b.text("#history"); !strings.Contains(hist, "Atlas proxy") || !strings.Contains(hist, "replaced") {
		t.Errorf("history after the edit:\n%s", hist)
	}
	b.checkClean("edited line")
	b.shot("profile-edited")

	b.open(fmt.Sprintf("/agents/main/profile/%d", work))
	if state := b.text("#state"); state != "replaced" {
		t.Errorf("the old line's state is %q, want replaced", state)
	}
	b.open(fmt.Sprintf("/agents/main/profile/%d", milk))
	b.do(chromedp.Click(chromedp.CSS(`details.danger summary`), chromedp.NodeVisible))
	b.submit(`details.danger button`)
	if state := b.text("#state"); state != "removed" {
		t.Errorf("after the removal the line is %q", state)
	}
	b.checkClean("removed line")
	b.open("/agents/main")
	if section := b.text("#profile"); strings.Contains(section, "oat milk") || !strings.Contains(section, "bridge engineer") {
		t.Errorf("the profile section after the edit and the removal:\n%s", section)
	}
}

// TestSearchLinksProfileItems: a profile line recall offers links to its
// page on the search page.
func TestSearchLinksProfileItems(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	work, _ := profileSeed(t, f)
	r := f.get("/agents/main/search?q=" + url.QueryEscape("what is my job?"))
	if want := fmt.Sprintf(`href="/agents/main/profile/%d"`, work); r.status != http.StatusOK || !strings.Contains(r.body, want) {
		t.Errorf("search: %d, want a link %s:\n%s", r.status, want, r.body)
	}
}
