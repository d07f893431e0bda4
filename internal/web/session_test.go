package web

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
)

// signIn signs in with token (the fixture's client keeps the cookies) and
// returns the sign-in cookie the answer set.
func (f *fixture) signIn(token string, header ...string) *http.Cookie {
	f.t.Helper()
	csrf := f.token("/login")
	r := f.post("/login", url.Values{"csrf": {csrf}, "token": {token}, "next": {"/"}}, header...)
	if r.status != http.StatusSeeOther {
		f.t.Fatalf("sign in: %d\n%s", r.status, r.body)
	}
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == auth.CookieName {
			return c
		}
	}
	f.t.Fatalf("sign in set no %s cookie: %q", auth.CookieName, r.header.Values("Set-Cookie"))
	return nil
}

// getWithCookie loads path with only the given sign-in cookie, as a thief
// of the cookie would.
func (f *fixture) getWithCookie(path string, c *http.Cookie) response {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), http.MethodGet, f.url+path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	resp, err := (&http.Client{CheckRedirect: f.hc.CheckRedirect}).Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	return response{status: resp.StatusCode, header: resp.Header}
}

// TestSignInCookieIsASession: the sign-in cookie is a random session id,
// not the token (a stolen cookie is not a stolen API token), and signing
// out ends the session on the server, not only in the browser.
func TestSignInCookieIsASession(t *testing.T) {
	k, err := auth.New([]auth.Rule{{Name: "main", SHA256: auth.Hash("dmt_tok-main"), Agents: []string{"main"}, Write: true}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k})
	f.seedAs("dmt_tok-main", "main", `{"content":"The spare key is under the blue pot."}`)
	c := f.signIn("dmt_tok-main")
	if strings.Contains(c.Value, "tok-main") || len(c.Value) < 32 {
		t.Errorf("the sign-in cookie is %q: want a random session id, not the token", c.Value)
	}
	if r := f.getWithCookie("/agents/main", c); r.status != http.StatusOK {
		t.Fatalf("GET /agents/main with the session cookie: %d", r.status)
	}
	if r := f.getWithCookie("/agents/main", &http.Cookie{Name: auth.CookieName, Value: "dmt_tok-main"}); r.status != http.StatusSeeOther {
		t.Errorf("GET /agents/main with the token as the cookie: %d, want 303 to the sign-in page", r.status)
	}
	if r := f.post("/logout", url.Values{"csrf": {f.token("/agents/main")}}); r.status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", r.status)
	}
	if r := f.getWithCookie("/agents/main", c); r.status != http.StatusSeeOther {
		t.Errorf("GET /agents/main with the cookie kept from before signing out: %d, want 303 to the sign-in page", r.status)
	}
}

// TestSessionCookieSecureBehindTrustedProxy: the cookies are Secure when the
// browser came over HTTPS, which a proxy in api.trusted_proxies says with
// X-Forwarded-Proto; from anyone else the header is ignored.
func TestSessionCookieSecureBehindTrustedProxy(t *testing.T) {
	k, err := auth.New([]auth.Rule{{Name: "main", SHA256: auth.Hash("tok-main"), Agents: []string{"main"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		header  []string
		secure  bool
	}{
		{"trusted proxy, https", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, []string{"X-Forwarded-Proto", "https"}, true},
		{"trusted proxy, http", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, []string{"X-Forwarded-Proto", "http"}, false},
		{"untrusted sender, https", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, []string{"X-Forwarded-Proto", "https"}, false},
		{"no proxies, https", nil, []string{"X-Forwarded-Proto", "https"}, false},
	} {
		f := newFixture(t, fixtureOptions{keyring: k, proxies: tc.proxies})
		if c := f.signIn("tok-main", tc.header...); c.Secure != tc.secure {
			t.Errorf("%s: the sign-in cookie's Secure is %v, want %v", tc.name, c.Secure, tc.secure)
		}
	}
}
