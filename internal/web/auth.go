package web

import (
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/gate"
)

// Tokens: when the server has them (Options.Keyring), every page but the
// sign-in page and the static files wants one, from the cookie the sign-in
// page sets (or an Authorization header). A page about an agent wants a
// token that covers it; a form that changes something, one that may write
// it. The overview lists only the token's agents.

type loginData struct {
	Next string
}

// guard runs before the routes; it answers itself when it refuses.
func (h *Handler) guard(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	k := h.opts.Keyring
	if !k.Enabled() || strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/login" {
		return r, true
	}
	g, err := h.grant(r)
	if err != nil {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(safeNext(r.URL.RequestURI())), http.StatusSeeOther)
			return nil, false
		}
		h.failStatus(w, r, gate.Unauthorized(err).Status, "Sign in first: this server asks for a token.")
		return nil, false
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/agents/"); ok {
		agent, page, _ := strings.Cut(rest, "/")
		if write := writes(r.Method, page); gate.Scope(g, agent, write) != nil {
			status, msg := h.refuseScope(r, g, agent, write)
			h.failStatus(w, r, status, msg)
			return nil, false
		}
	}
	return r.WithContext(auth.WithGrant(r.Context(), g)), true
}

// refuseScope logs a token beyond its scope and says what it may not do:
// the API's status, in the page's words.
func (h *Handler) refuseScope(r *http.Request, g *auth.Grant, agent string, write bool) (int, string) {
	h.log.Info("web: refused a token beyond its scope", "token", g.Name, "method", r.Method, "path", r.URL.Path)
	verb := "read"
	if write {
		verb = "change"
	}
	return gate.Of(gate.Scope(g, agent, write)).Status, "Token " + g.Name + " may not " + verb + " agent " + agent + "."
}

// writes reports whether a request for an agent's page may change the
// agent: any but a GET, save the Ask box's POST, which only reads (it is a
// POST so that a link cannot spend the model's budget).
func writes(method, page string) bool {
	return method != http.MethodGet && method != http.MethodHead && !(method == http.MethodPost && page == "ask")
}

// grant returns the grant of a page request: its bearer token, else its
// sign-in session, looked up in the keyring each time (a removed token ends
// its sessions).
func (h *Handler) grant(r *http.Request) (*auth.Grant, error) {
	if r.Header.Get("Authorization") != "" {
		return h.opts.Keyring.Check(r)
	}
	c, err := r.Cookie(auth.CookieName)
	if err != nil {
		return nil, auth.ErrNoToken
	}
	return h.sessions.Resolve(h.opts.Keyring, c.Value)
}

// overTLS reports whether the browser reached the page over HTTPS: the
// daemon's own TLS, or a trusted proxy's X-Forwarded-Proto (from anyone
// else the header means nothing). Cookies are Secure then.
func (h *Handler) overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	from, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || r.Header.Get("X-Forwarded-Proto") != "https" {
		return false
	}
	ip := from.Addr().Unmap()
	return slices.ContainsFunc(h.opts.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(ip) })
}

// safeNext keeps a return address on this site, else it is "/". Browsers
// drop tabs and newlines anywhere in a URL and read a backslash as a slash,
// so "/\t/host" and "/\host" lead to host: a path is kept only with none of
// them (nor any other control character or space), one leading slash, and
// no scheme or host.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(next, "/") ||
		strings.HasPrefix(next, "//") || strings.ContainsFunc(next, unsafeInPath) {
		return "/"
	}
	return next
}

func unsafeInPath(c rune) bool { return c <= ' ' || c == 0x7f || c == '\\' }

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	p := h.newPage(w, r, "Sign in")
	p.Data = loginData{Next: safeNext(r.URL.Query().Get("next"))}
	h.render(w, http.StatusOK, "login", p)
}

// login checks the token and starts a session, whose id (never the token)
// it keeps in an HttpOnly, SameSite=Strict cookie that lasts the browser
// session, Secure over HTTPS.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Keyring.Enabled() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	tok := strings.TrimSpace(r.PostFormValue("token"))
	g, err := h.opts.Keyring.Lookup(tok)
	if err != nil {
		h.log.Warn("web: refused a sign-in with an unknown token", "remote", r.RemoteAddr)
		p := h.newPage(w, r, "Sign in")
		p.Error = "That token is not one this server knows."
		p.Data = loginData{Next: safeNext(r.PostFormValue("next"))}
		h.render(w, http.StatusUnauthorized, "login", p)
		return
	}
	id, err := h.sessions.Start(tok)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: auth.CookieName, Value: id, Path: "/", HttpOnly: true, Secure: h.overTLS(r),
		SameSite: http.SameSiteStrictMode,
	})
	h.log.Info("web: signed in", "token", g.Name)
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// logout ends the session and forgets the cookie.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(auth.CookieName); err == nil {
		h.sessions.End(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: auth.CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
