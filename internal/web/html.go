package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The pages are written by Go functions through pageWriter rather than
// executed from html/template: text/template's executor calls
// reflect.Value.MethodByName, and once that call is reachable the linker
// keeps every exported method of every type converted to an interface
// anywhere in the binary (4.2 MB of the arm64 build). pageWriter keeps
// what html/template gave the pages: data only ever reaches the page
// escaped for where it stands, and markup only comes from this package's
// constants.

// markup is HTML this package wrote. An untyped string constant converts
// to it implicitly, a string variable does not, so a page cannot pass data
// as markup by accident (TestMarkupOnlyFromConstants looks for the
// conversions).
type markup string

// pageWriter builds one page in memory; err is the first mistake in a
// page's own code (a verb without its argument), which render turns into
// an error status rather than half a page.
type pageWriter struct {
	b   []byte
	loc *time.Location
	err error
}

// put appends format with each verb replaced by the next argument, escaped
// for where the verb stands:
//
//	%s  text, or a quoted attribute's value
//	%p  a part of a URL before its query, in an attribute (href="/agents/%p")
//	%q  a value in a URL's query or fragment (href="…?q=%q")
//	%u  a whole URL from data: kept when relative or http(s)/mailto, else "#ZgotmplZ" (html/template's answer)
//	%m  markup (the argument must be of type markup)
//	%%  a percent sign
//
// A text or attribute argument may be a string or anything fmt.Sprint
// prints (numbers, durations), as a template printed it.
func (w *pageWriter) put(format markup, args ...any) {
	f := string(format)
	for {
		i := strings.IndexByte(f, '%')
		if i < 0 || i == len(f)-1 {
			w.b = append(w.b, f...)
			break
		}
		w.b = append(w.b, f[:i]...)
		verb := f[i+1]
		f = f[i+2:]
		if verb == '%' {
			w.b = append(w.b, '%')
			continue
		}
		if len(args) == 0 {
			w.fail(fmt.Errorf("%%%c without an argument in %.40q", verb, format))
			return
		}
		w.value(verb, args[0])
		args = args[1:]
	}
	if len(args) > 0 {
		w.fail(fmt.Errorf("%d arguments left over by %.40q", len(args), format))
	}
}

func (w *pageWriter) value(verb byte, arg any) {
	if verb == 'm' {
		m, ok := arg.(markup)
		if !ok {
			w.fail(fmt.Errorf("%%m given a %T, not markup", arg))
			return
		}
		w.b = append(w.b, m...)
		return
	}
	s := printed(arg)
	switch verb {
	case 's':
		w.b = appendEscaped(w.b, s)
	case 'p':
		w.b = appendEscaped(w.b, urlEscaped(s, true))
	case 'q':
		w.b = appendEscaped(w.b, urlEscaped(s, false))
	case 'u':
		w.b = appendEscaped(w.b, urlEscaped(safeURL(s), true))
	default:
		w.fail(fmt.Errorf("unknown verb %%%c", verb))
	}
}

func (w *pageWriter) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func printed(arg any) string {
	switch x := arg.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case markup:
		return string(x) // as text: escaped like any other
	}
	return fmt.Sprint(arg)
}

// appendEscaped escapes s for text or a quoted attribute value with
// html/template's table (so the pages read as they did), and replaces NUL
// and invalid UTF-8 with U+FFFD.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch c {
		case 0:
			b = append(b, "\uFFFD"...)
		case '"':
			b = append(b, "&#34;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '\'':
			b = append(b, "&#39;"...)
		case '+':
			b = append(b, "&#43;"...)
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		default:
			b = append(b, c)
		}
		i++
	}
	return b
}

// urlEscaped percent-encodes what may not stand in a URL as html/template
// does: norm keeps the reserved characters and valid escapes (a path from
// parts), !norm encodes everything but the unreserved ones (a query value).
func urlEscaped(s string, norm bool) string {
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if urlKeeps(s, i, norm) {
			continue
		}
		if written == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[written:i])
		fmt.Fprintf(&b, "%%%02x", c)
		written = i + 1
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

func urlKeeps(s string, i int, norm bool) bool {
	switch c := s[i]; {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~", c) >= 0:
		return true
	case c == '%':
		return norm && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
	case strings.IndexByte("!#$&*+,/:;=?@[]", c) >= 0:
		return norm
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// safeURL refuses a URL with a scheme other than http, https or mailto
// (javascript:, data:, …), the way html/template's filter does.
func safeURL(s string) string {
	if scheme, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(scheme, "/") {
		if !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") && !strings.EqualFold(scheme, "mailto") {
			return "#ZgotmplZ"
		}
	}
	return s
}

// when is a time as the pages show it, in the server's zone; "—" for none.
func (w *pageWriter) when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(w.loc).Format("2006-01-02 15:04")
}

func (w *pageWriter) whenp(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return w.when(*t)
}

func iso(t time.Time) string { return t.Format(time.RFC3339) }
func pct(f float64) string   { return fmt.Sprintf("%.0f%%", f*100) }
func score(f float64) string { return fmt.Sprintf("%.3f", f) }
