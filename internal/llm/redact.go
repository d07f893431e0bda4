package llm

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// redactor hides every secret, and the encodings an echoing provider or a
// quoted URL may carry one in: a body can quote the key it refused
// URL-encoded, base64-encoded, JSON-escaped or as hex.
func (s secrets) redactor() *strings.Replacer {
	var forms []string
	for _, v := range s.values() {
		forms = append(forms, encodings(v)...)
	}
	// The longest first: a form another one begins with must not cut it.
	slices.SortFunc(forms, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range slices.Compact(forms) {
		pairs = append(pairs, f, "[redacted]")
	}
	return strings.NewReplacer(pairs...)
}

// encodings are v and the forms it takes URL-encoded, base64-encoded,
// JSON-escaped and as hex.
func encodings(v string) []string {
	b := []byte(v)
	forms := []string{
		v,
		url.QueryEscape(v),
		url.PathEscape(v),
		base64.StdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b),
		base64.RawStdEncoding.EncodeToString(b),
		base64.RawURLEncoding.EncodeToString(b),
		jsonEscaped(v, true),
		jsonEscaped(v, false),
		strings.ReplaceAll(jsonEscaped(v, false), "/", `\/`), // as PHP and others escape it
		hex.EncodeToString(b),
		strings.ToUpper(hex.EncodeToString(b)),
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		forms = append(forms, base64Inside(enc, b)...)
	}
	return forms
}

// base64Inside is what stays of v's base64 inside a longer base64 text
// (Basic authentication's "user:key"): at each of the three offsets v can
// start at, the characters that encode only v's bits.
func base64Inside(enc *base64.Encoding, v []byte) []string {
	var out []string
	for k := range 3 {
		s := enc.EncodeToString(append(make([]byte, k), v...))
		first, last := (8*k+5)/6, 8*(k+len(v))/6
		out = append(out, s[first:last])
	}
	return out
}

// jsonEscaped is v as it appears inside a JSON string, with <, > and &
// escaped (as Go writes them) or not.
func jsonEscaped(v string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(v) // a string always encodes
	q := strings.TrimSpace(b.String())
	return q[1 : len(q)-1]
}

// reason is what an error status means for the person who configured the
// provider: the summary an API client gets instead of the provider's body.
func reason(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "unauthorized: check the API key"
	case http.StatusForbidden:
		return "forbidden: check the API key and what it may use"
	case http.StatusBadRequest:
		return "bad request: check the API key, llm.model and llm.base_url"
	case http.StatusNotFound:
		return "not found: check llm.model and llm.base_url"
	case http.StatusTooManyRequests:
		return "rate limited"
	}
	if status >= 500 {
		return "the provider's server failed"
	}
	return "refused"
}

// summary is the error a caller sees for a failed attempt: the provider,
// the status and its reason, never the provider's words, which may quote
// the key or the prompt. Without an answer the error is our own network's
// (the URL in it redacted).
func summary(kind error, provider, what string, status int, timedOut bool, timeout time.Duration, detail string) error {
	switch {
	case timedOut || status == 0:
		return fmt.Errorf("%w: %s %s%s: %s", kind, provider, what, describe(status, timedOut, timeout), detail)
	case status < 300:
		return fmt.Errorf("%w: %s %s%s", kind, provider, what, describe(status, timedOut, timeout))
	}
	return fmt.Errorf("%w: %s %s%s: %s", kind, provider, what, describe(status, timedOut, timeout), reason(status))
}

// errorBodyLimit is how much of an error answer is kept for the debug log.
const errorBodyLimit = 4 << 10

// keepErrorBody copies the start of an error answer into o, for the debug
// log, and leaves resp's body whole for the provider's client.
func keepErrorBody(resp *http.Response, o *observed) {
	if resp.StatusCode < 400 || resp.Body == nil {
		return
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	o.body = head
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
}
