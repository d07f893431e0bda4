package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
)

// CSRF defence in two layers:
//
//   - http.CrossOriginProtection refuses a POST the browser marks as coming
//     from another site (Sec-Fetch-Site), or whose Origin is not this host;
//   - a token: each browser gets a random cookie (HttpOnly, SameSite=Strict),
//     and every form carries HMAC(key, cookie). A POST must bring both, and
//     they must match. Another site can neither read the page's token nor
//     compute one for the victim's cookie without the key.
//
// The key is per process unless configured, so a restart expires open forms
// (the page says to reload).
const (
	csrfCookie = "dormouse_csrf"
	csrfField  = "csrf"
)

type csrf struct {
	key    []byte
	cross  *http.CrossOriginProtection
	secure func(*http.Request) bool // the cookie is Secure: the page was reached over HTTPS
}

func newCSRF(key []byte, secure func(*http.Request) bool) (*csrf, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	}
	return &csrf{key: key, cross: http.NewCrossOriginProtection(), secure: secure}, nil
}

func (c *csrf) sign(cookie string) string {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(cookie))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// token returns the token for the forms of the page being rendered, setting
// the browser's cookie first when it has none.
func (c *csrf) token(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(csrfCookie); err == nil && len(ck.Value) >= 32 {
		return c.sign(ck.Value)
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	v := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name: csrfCookie, Value: v, Path: "/", HttpOnly: true, Secure: c.secure(r),
		SameSite: http.SameSiteStrictMode,
	})
	return c.sign(v)
}

var errCSRF = errors.New("this form did not come from this page (or the server restarted since it was loaded): reload the page and try again")

// check verifies a state-changing request.
func (c *csrf) check(r *http.Request) error {
	if err := c.cross.Check(r); err != nil {
		return errCSRF
	}
	ck, err := r.Cookie(csrfCookie)
	if err != nil || len(ck.Value) < 32 {
		return errCSRF
	}
	got := r.PostFormValue(csrfField)
	if !hmac.Equal([]byte(got), []byte(c.sign(ck.Value))) {
		return errCSRF
	}
	return nil
}

// formFieldsBytes is room in a form body for the fields besides a memory's
// content (a fact correction's are the largest).
const formFieldsBytes = 64 << 10

// maxFormBytes bounds a form body. A form is URL-encoded, so each byte of
// non-ASCII text takes three: a memory of max_content_bytes the API takes
// must fit three times over, or the page refuses it and loses the text.
func (h *Handler) maxFormBytes() int64 {
	return 3*int64(h.opts.Capture.MaxContent) + formFieldsBytes
}

// post guards a state-changing handler: a bounded form body and a valid
// CSRF token, else 403 and nothing done.
func (h *Handler) post(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, h.maxFormBytes())
		if err := r.ParseForm(); err != nil {
			h.failStatus(w, r, http.StatusBadRequest, "The form could not be read: "+err.Error())
			return
		}
		if err := h.csrf.check(r); err != nil {
			h.log.Warn("web: refused a POST without a valid CSRF token", "path", r.URL.Path)
			h.failStatus(w, r, http.StatusForbidden, err.Error())
			return
		}
		next(w, r)
	}
}
