package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
)

// sameOriginPath reports whether a browser would stay on this site
// following Location: p. WHATWG URL parsing drops tabs and newlines anywhere
// and reads a backslash as a slash, so "/\t/x" and "/\x" are "//x", another
// host: a safe p has none of them, starts with one slash, and resolves to
// the page's own host.
func sameOriginPath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsRune(p, '\\') {
		return false
	}
	for _, c := range p {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	base, _ := url.Parse("http://dormouse.test/agents/")
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Host == "" && base.ResolveReference(u).Host == "dormouse.test"
}

// TestNextStaysOnSite: the sign-in's return address is a path on this site,
// whatever the link said; anything else returns to /.
func TestNextStaysOnSite(t *testing.T) {
	for next, want := range map[string]string{
		"/agents/main":           "/agents/main",
		"/agents/main?q=a%20b":   "/agents/main?q=a%20b",
		"/\t/evil.example":       "/",
		"/\n/evil.example":       "/",
		"/\r/evil.example":       "/",
		"/ /evil.example":        "/",
		"\t//evil.example":       "/",
		"//evil.example":         "/",
		"/\\evil.example":        "/",
		"/a\\..\\\\evil.example": "/",
		"https://evil.example":   "/",
		"javascript:alert(1)":    "/",
		"evil.example":           "/",
		"":                       "/",
		"/\x00/evil.example":     "/",
		"/\x7f":                  "/",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}

// TestSignInNextTab is the reported redirect: next=/%09/evil.example after a
// sign-in sent the browser to /\t/evil.example, which it follows off-site.
func TestSignInNextTab(t *testing.T) {
	k, err := auth.New([]auth.Rule{{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k})
	csrf := f.token("/login?next=/%09/evil.example")
	r := f.post("/login", url.Values{"csrf": {csrf}, "token": {"tok-admin"}, "next": {"/\t/evil.example"}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/" {
		t.Errorf("sign-in with next=/%%09/evil.example: %d to %q, want 303 to /", r.status, r.header.Get("Location"))
	}
}

// FuzzNext: whatever next holds, the sign-in's redirect stays on this site:
// safeNext gives next itself or "/", and the Location http.Redirect makes of
// it is a same-origin path.
func FuzzNext(f *testing.F) {
	for _, s := range []string{"/", "/agents/main?q=x", "/\t/evil.example", "//evil.example", "/\\evil.example",
		"https://evil.example", "/%09/evil.example", "/./\\/x", "/..//evil.example", "/a/../../\t/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if got != next && got != "/" {
			t.Fatalf("safeNext(%q) = %q: neither next nor /", next, got)
		}
		if !sameOriginPath(got) {
			t.Fatalf("safeNext(%q) = %q: not a same-origin path", next, got)
		}
		w := httptest.NewRecorder()
		http.Redirect(w, httptest.NewRequest("POST", "/login", nil), got, http.StatusSeeOther)
		if loc := w.Header().Get("Location"); !sameOriginPath(loc) {
			t.Fatalf("safeNext(%q) = %q redirects to %q: not a same-origin path", next, got, loc)
		}
	})
}
