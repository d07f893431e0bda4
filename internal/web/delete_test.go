package web

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDeleteAgentFromThePage: the overview links to a confirmation page;
// the delete needs the agent's name typed and the form's CSRF token, takes
// a backup and says where it went; the agent is gone afterwards.
func TestDeleteAgentFromThePage(t *testing.T) {
	bdir := t.TempDir()
	f := newFixture(t, fixtureOptions{backups: bdir})
	f.seed("mian", `{"content":"typed into the wrong agent"}`)
	if r := f.get("/agents/mian"); !strings.Contains(r.body, `href="/agents/mian/delete"`) {
		t.Fatalf("the overview has no link to the delete page:\n%s", r.body)
	}
	page := f.get("/agents/mian/delete")
	if page.status != http.StatusOK || !strings.Contains(page.body, "1 memories") || !strings.Contains(page.body, `name="confirm"`) {
		t.Fatalf("delete page: %d\n%s", page.status, page.body)
	}
	tok := f.token("/agents/mian/delete")
	if r := f.post("/agents/mian/delete", url.Values{"confirm": {"mian"}}); r.status != http.StatusForbidden {
		t.Errorf("a delete without the CSRF token: %d, want 403", r.status)
	}
	r := f.post("/agents/mian/delete", url.Values{"csrf": {tok}, "confirm": {"main"}})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "type the agent&#39;s name, mian") {
		t.Errorf("the wrong name typed: %d, want 422 asking for the name:\n%s", r.status, r.body)
	}
	if names, _ := f.store.Agents(); len(names) != 1 {
		t.Fatalf("agents = %q after a refused delete, want mian still", names)
	}
	r = f.post("/agents/mian/delete", url.Values{"csrf": {tok}, "confirm": {"mian"}})
	m := regexp.MustCompile(`Its backup is <code>([^<]+)</code>`).FindStringSubmatch(r.body)
	if r.status != http.StatusOK || m == nil || !strings.HasPrefix(m[1], bdir) {
		t.Fatalf("the delete: %d, want the backup's path under %s:\n%s", r.status, bdir, r.body)
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("the backup the page names: %v", err)
	}
	if names, _ := f.store.Agents(); len(names) != 0 {
		t.Errorf("agents = %q after the delete, want none", names)
	}
	if r := f.get("/agents/mian"); r.status != http.StatusNotFound {
		t.Errorf("the deleted agent's page: %d, want 404", r.status)
	}
}

// TestDeleteAgentWithoutBackups: a server that keeps no backups offers no
// delete and refuses one.
func TestDeleteAgentWithoutBackups(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", `{"content":"kept"}`)
	if r := f.get("/agents/main/delete"); !strings.Contains(r.body, "keeps no backups") || strings.Contains(r.body, `name="confirm"`) {
		t.Errorf("delete page without backups:\n%s", r.body)
	}
	tok := f.token("/agents/main/consolidate")
	if r := f.post("/agents/main/delete", url.Values{"csrf": {tok}, "confirm": {"main"}}); r.status != http.StatusNotImplemented {
		t.Errorf("a delete without backups: %d, want 501", r.status)
	}
}

// TestBrowserDeleteAgent: in the real Chromium, with scripts off, the
// overview's delete leads to the confirmation page, a wrong name deletes
// nothing, the right one deletes and shows the backup; on a phone too.
func TestBrowserDeleteAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests take a while; not in -short")
	}
	f := newFixture(t, fixtureOptions{backups: t.TempDir()})
	f.seed("mian", `{"content":"typed into the wrong agent"}`)
	b := newBrowser(t, f.url)
	b.phone(true)
	b.open("/agents/mian")
	b.do(chromedp.Click(chromedp.CSS(`details.danger summary`), chromedp.NodeVisible))
	b.submit(`details.danger a`)
	b.checkClean("the delete page on a phone")
	b.shot("delete-agent-phone")
	b.phone(false)
	b.do(chromedp.SendKeys(chromedp.CSS(`input[name=confirm]`), "main"))
	resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(`form.stack button[type=submit]`), chromedp.NodeVisible))
	if err != nil || resp.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a wrong name: %v, status %v; want 422", err, resp)
	}
	if names, _ := f.store.Agents(); len(names) != 1 {
		t.Fatalf("agents = %q after a wrong name, want mian kept", names)
	}
	b.mu.Lock()
	b.logs = slices.DeleteFunc(b.logs, func(l string) bool { return strings.Contains(l, "status of 422") }) // the refusal itself
	b.mu.Unlock()
	b.checkClean("the refused delete")
	b.do(chromedp.SendKeys(chromedp.CSS(`input[name=confirm]`), "mian"))
	b.submit(`form.stack button[type=submit]`)
	if got := b.text("main h1"); got != "Agent mian deleted" {
		t.Errorf("after the delete the page says %q", got)
	}
	if got := b.text("main code"); !strings.Contains(got, "mian") {
		t.Errorf("the backup's path shown: %q", got)
	}
	b.checkClean("after the delete")
	b.shot("delete-agent-done")
	if names, _ := f.store.Agents(); len(names) != 0 {
		t.Errorf("agents = %q after the delete, want none", names)
	}
}
