package web

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// signInAfresh signs in with token in a fresh cookie jar (a new browser).
func (f *fixture) signInAfresh(token string) {
	f.t.Helper()
	jar, _ := cookiejar.New(nil)
	f.hc.Jar = jar
	f.signIn(token)
}

// TestShareFromThePage: the Share form copies a memory by the API's rules:
// a token that may not write the target is refused (403), as are a bad
// name, the memory's own agent and an unknown memory, with nothing stored;
// a token that may write it gets the copy, labelled with its original.
func TestShareFromThePage(t *testing.T) {
	k, err := auth.New([]auth.Rule{
		{Name: "main-writer", SHA256: auth.Hash("tok-main"), Agents: []string{"main"}, Write: true},
		{Name: "both", SHA256: auth.Hash("tok-both"), Agents: []string{"main", "house"}, Write: true},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k})
	f.seedAs("tok-admin", "main", `{"content":"The spare key is under the blue pot."}`)

	f.signInAfresh("tok-main")
	csrf := f.token("/agents/main/memories/1")
	if r := f.post("/agents/main/memories/1/share", url.Values{"csrf": {csrf}, "to": {"house"}}); r.status != http.StatusForbidden ||
		!strings.Contains(r.body, "may not change agent house") {
		t.Errorf("share with main's token into house: %d, want 403\n%s", r.status, r.body)
	}

	f.signInAfresh("tok-both")
	csrf = f.token("/agents/main/memories/1")
	for _, c := range []struct {
		to, id string
		status int
	}{
		{"Bad Name", "1", http.StatusForbidden}, // beyond the token, as the Add box answers
		{"", "1", http.StatusBadRequest},
		{"main", "1", http.StatusBadRequest},
		{"house", "9", http.StatusNotFound},
		{"house", "x", http.StatusBadRequest},
	} {
		if r := f.post("/agents/main/memories/"+c.id+"/share", url.Values{"csrf": {csrf}, "to": {c.to}}); r.status != c.status {
			t.Errorf("share memory %s to %q: %d, want %d", c.id, c.to, r.status, c.status)
		}
	}
	if names, _ := f.store.Agents(); len(names) != 1 {
		t.Errorf("refused shares made agents: %v", names)
	}
	if r := f.post("/agents/main/memories/1/share", url.Values{"to": {"house"}}); r.status != http.StatusForbidden {
		t.Errorf("share without the CSRF token: %d, want 403", r.status)
	}
	r := f.post("/agents/main/memories/1/share", url.Values{"csrf": {csrf}, "to": {"house"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/agents/house/memories/1?done=shared" {
		t.Fatalf("share: %d to %q", r.status, r.header.Get("Location"))
	}
	page := f.get("/agents/house/memories/1?done=shared")
	if !strings.Contains(page.body, `<a class="origin" href="/agents/main/memories/1">main/memory:1</a>`) {
		t.Errorf("the copy's page does not name its original:\n%s", page.body)
	}
	f.agent("house", func(a *store.Agent) {
		if m, err := a.Get(t.Context(), 1); err != nil || m.SharedFrom == nil || m.SharedFrom.String() != "main/memory:1" {
			t.Errorf("the stored copy = %+v, %v", m, err)
		}
	})
	if r := f.post("/agents/main/memories/1/share", url.Values{"csrf": {csrf}, "to": {"house"}}); r.header.Get("Location") != "/agents/house/memories/1?done=already_shared" {
		t.Errorf("share again: %d to %q", r.status, r.header.Get("Location"))
	}
}
