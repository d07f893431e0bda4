package daemon_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// TestWebPageRemembersWithTheAPIsLimits: the daemon gives its page's
// add-a-memory box the API's content limit, and what the box stores the
// API recalls.
func TestWebPageRemembersWithTheAPIsLimits(t *testing.T) {
	d := daemontest.Start(t, func(cfg *config.Config) { cfg.API.MaxContentBytes = 100 })
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(d.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(page))
	if tok == nil {
		t.Fatalf("no CSRF token on the overview:\n%s", page)
	}
	post := func(content string) (int, string) {
		form := url.Values{"csrf": {tok[1]}, "agent": {"main"}, "content": {content}}
		resp, err := hc.PostForm(d.URL()+"/memories", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := post(strings.Repeat("long ", 30)); status != http.StatusUnprocessableEntity || !strings.Contains(body, "the limit is 100") {
		t.Errorf("a memory over api.max_content_bytes from the page: %d\n%s", status, body)
	}
	if status, body := post("The fern wants water on Sundays."); status != http.StatusSeeOther {
		t.Fatalf("a memory from the page: %d\n%s", status, body)
	}
	res, err := client.New(d.Addr).Recall(t.Context(), "main", client.RecallRequest{Query: "fern"})
	if err != nil || len(res.Items) != 1 {
		t.Errorf("recall of the page's memory: %+v, %v", res, err)
	}
}

// TestWebPageTakesWhatTheAPITakes: at api.max_content_bytes = api.max_body_bytes, a memory of
// non-ASCII text the API would store is stored from the page too, though URL-encoding triples it
// past max_body_bytes.
func TestWebPageTakesWhatTheAPITakes(t *testing.T) {
	d := daemontest.Start(t, func(cfg *config.Config) { cfg.API.MaxContentBytes = int(cfg.API.MaxBodyBytes) })
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(d.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(page))
	if tok == nil {
		t.Fatalf("no CSRF token on the overview:\n%s", page)
	}
	content := strings.Repeat("Папоротник поливают по воскресеньям. ", 500_000/69)
	resp, err = hc.PostForm(d.URL()+"/memories", url.Values{"csrf": {tok[1]}, "agent": {"main"}, "content": {content}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("%d bytes of Cyrillic from the page: %d\n%.300s", len(content), resp.StatusCode, body)
	}
}
