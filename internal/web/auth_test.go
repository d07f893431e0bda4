package web

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
)

func TestSignIn(t *testing.T) {
	k, err := auth.New([]auth.Rule{
		{Name: "main-writer", SHA256: auth.Hash("tok-main"), Agents: []string{"main"}, Write: true},
		{Name: "main-reader", SHA256: auth.Hash("tok-read"), Agents: []string{"main"}},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k})
	for _, agent := range []string{"main", "other"} {
		f.seedAs("tok-admin", agent, `{"content":"The spare key is under the blue pot."}`)
	}

	// Signed out: pages send to the sign-in page; static files and the
	// sign-in page itself are open.
	for path, want := range map[string]string{"/": "/login?next=%2F", "/agents/main/days?q=a+b&x=1": "/login?next=%2Fagents%2Fmain%2Fdays%3Fq%3Da%2Bb%26x%3D1"} {
		if r := f.get(path); r.status != http.StatusSeeOther || r.header.Get("Location") != want {
			t.Errorf("GET %s signed out: %d to %q, want 303 to %q", path, r.status, r.header.Get("Location"), want)
		}
	}
	if r := f.get("/static/style.css"); r.status != http.StatusOK {
		t.Errorf("GET /static/style.css signed out: %d", r.status)
	}
	csrf := f.token("/login?next=/agents/main")
	if r := f.post("/agents/main/memories/1/delete", url.Values{"csrf": {csrf}}); r.status != http.StatusUnauthorized {
		t.Errorf("POST delete signed out: %d, want 401", r.status)
	}

	// A wrong token: 401, no cookie.
	r := f.post("/login", url.Values{"csrf": {csrf}, "token": {"tok-nope"}, "next": {"/"}})
	if r.status != http.StatusUnauthorized || !strings.Contains(r.body, "not one this server knows") {
		t.Errorf("sign-in with a wrong token: %d\n%s", r.status, r.body)
	}
	if strings.Contains(r.header.Get("Set-Cookie"), auth.CookieName) {
		t.Error("a wrong token set the cookie")
	}

	// The writer's token: back where they were going, scoped to main.
	r = f.post("/login", url.Values{"csrf": {csrf}, "token": {"tok-main"}, "next": {"/agents/main"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/agents/main" {
		t.Fatalf("sign-in: %d to %q", r.status, r.header.Get("Location"))
	}
	if c := r.header.Get("Set-Cookie"); !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") {
		t.Errorf("cookie %q: want HttpOnly and SameSite=Strict", c)
	}
	if r := f.get("/agents/main"); r.status != http.StatusOK || !strings.Contains(r.body, "Sign out") {
		t.Errorf("GET /agents/main signed in: %d", r.status)
	}
	if r := f.get("/agents/other"); r.status != http.StatusForbidden {
		t.Errorf("GET /agents/other with main's token: %d, want 403", r.status)
	}
	if r := f.get("/"); r.status != http.StatusOK || !strings.Contains(r.body, `href="/agents/main"`) ||
		strings.Contains(r.body, `href="/agents/other"`) {
		t.Errorf("the overview with main's token: %d; want main listed and other not", r.status)
	}

	// A reader may look but not change.
	jar, _ := cookiejar.New(nil)
	f.hc.Jar = jar
	csrf = f.token("/login")
	if r := f.post("/login", url.Values{"csrf": {csrf}, "token": {"tok-read"}, "next": {"//evil.example/x"}}); r.header.Get("Location") != "/" {
		t.Errorf("next=//evil.example/x sent to %q, want /", r.header.Get("Location"))
	}
	csrf = f.token("/agents/main/memories/1")
	if r := f.post("/agents/main/memories/1/delete", url.Values{"csrf": {csrf}}); r.status != http.StatusForbidden {
		t.Errorf("delete with a read-only token: %d, want 403", r.status)
	}
	if r := f.get("/agents/main/memories/1"); r.status != http.StatusOK || !strings.Contains(r.body, "blue pot") {
		t.Errorf("the memory after a refused delete: %d", r.status)
	}

	// Signing out forgets the token.
	if r := f.post("/logout", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Errorf("sign out: %d", r.status)
	}
	if r := f.get("/agents/main"); r.status != http.StatusSeeOther {
		t.Errorf("GET /agents/main after signing out: %d, want 303", r.status)
	}
}

// TestOverviewHealthIsTheTokensOwn: the overview's health card shows a
// token scoped to some agents only the reasons about those agents, as
// /health does; a token for every agent sees them all.
func TestOverviewHealthIsTheTokensOwn(t *testing.T) {
	k, err := auth.New([]auth.Rule{
		{Name: "main-reader", SHA256: auth.Hash("tok-read"), Agents: []string{"main"}},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k})
	for _, agent := range []string{"main", "secret-project"} { // a day old: overdue for consolidation
		f.seedAs("tok-admin", agent, `{"content":"The spare key is under the blue pot.","timestamp":"2026-02-09T12:00:00Z"}`)
	}
	for _, tc := range []struct {
		token      string
		seesSecret bool
	}{{"tok-read", false}, {"tok-admin", true}} {
		jar, _ := cookiejar.New(nil)
		f.hc.Jar = jar
		if r := f.post("/login", url.Values{"csrf": {f.token("/login")}, "token": {tc.token}, "next": {"/"}}); r.status != http.StatusSeeOther {
			t.Fatalf("sign in with %s: %d", tc.token, r.status)
		}
		r := f.get("/")
		if r.status != http.StatusOK || !strings.Contains(r.body, `agent &#34;main&#34;`) {
			t.Fatalf("%s: overview %d without main's reason:\n%s", tc.token, r.status, r.body)
		}
		if got := strings.Contains(r.body, "secret-project"); got != tc.seesSecret {
			t.Errorf("%s: the overview names secret-project = %v, want %v", tc.token, got, tc.seesSecret)
		}
	}
}
