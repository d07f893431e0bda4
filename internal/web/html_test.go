package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// TestPutEscapesForWhereTheValueStands: each verb escapes its value the way
// html/template did in that place, so the pages read as they did.
func TestPutEscapesForWhereTheValueStands(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format markup
		arg    any
		want   string
	}{
		{"text", `<p>%s</p>`, `<b>"Tom" & 'Jerry' + 1</b>`, `<p>&lt;b&gt;&#34;Tom&#34; &amp; &#39;Jerry&#39; &#43; 1&lt;/b&gt;</p>`},
		{"attribute", `<input value="%s">`, `"><img onerror=alert(1)>`, `<input value="&#34;&gt;&lt;img onerror=alert(1)&gt;">`},
		{"NUL", `%s`, "a\x00b", "a\uFFFDb"},
		{"invalid UTF-8", `%s`, "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"valid UTF-8 kept", `%s`, "café →", "café →"},
		{"number", `%s`, int64(42), "42"},
		{"duration", `%s`, 1500 * time.Microsecond, "1.5ms"},
		{"path part", `<a href="/agents/%p">`, `a b/c?d=é&x`, `<a href="/agents/a%20b/c?d=%c3%a9&amp;x">`},
		{"path keeps escapes", `<a href="/d/%p">`, `%41%zz`, `<a href="/d/%41%25zz">`},
		{"query value", `<a href="/s?q=%q">`, `When is Zoltan's birthday?`, `<a href="/s?q=When%20is%20Zoltan%27s%20birthday%3f">`},
		{"query value of markup", `<a href="/s?q=%q">`, `"&<>`, `<a href="/s?q=%22%26%3c%3e">`},
		{"relative URL", `<a href="%u">`, `/agents/main/memories/2`, `<a href="/agents/main/memories/2">`},
		{"http URL", `<a href="%u">`, `https://example.com/a?b=1&c=2`, `<a href="https://example.com/a?b=1&amp;c=2">`},
		{"javascript URL", `<a href="%u">`, `javascript:alert(1)`, `<a href="#ZgotmplZ">`},
		{"JavaScript URL", `<a href="%u">`, ` JaVaScRiPt:alert(1)`, `<a href="#ZgotmplZ">`},
		{"data URL", `<img src="%u">`, `data:text/html,<script>`, `<img src="#ZgotmplZ">`},
		{"markup", `<p>%m</p>`, markup(`<b>bold</b>`), `<p><b>bold</b></p>`},
		{"percent", `width="100%%" %s`, "x", `width="100%" x`},
	} {
		w := &pageWriter{loc: time.UTC}
		w.put(tc.format, tc.arg)
		if w.err != nil || string(w.b) != tc.want {
			t.Errorf("%s: put(%q, %q) = %q, %v; want %q", tc.name, tc.format, tc.arg, w.b, w.err, tc.want)
		}
	}
}

// TestPutRefusesItsOwnMistakes: a page whose code gives a verb no argument,
// too many arguments, data where markup belongs or an unknown verb fails
// (render answers 500) rather than writing something else.
func TestPutRefusesItsOwnMistakes(t *testing.T) {
	for _, tc := range []struct {
		format markup
		args   []any
	}{
		{`<p>%s %s</p>`, []any{"one"}},
		{`<p>%s</p>`, []any{"one", "two"}},
		{`<p>%m</p>`, []any{"<b>data</b>"}},
		{`<p>%x</p>`, []any{"x"}},
	} {
		w := &pageWriter{loc: time.UTC}
		w.put(tc.format, tc.args...)
		if w.err == nil {
			t.Errorf("put(%q, %q) wrote %q without an error", tc.format, tc.args, w.b)
		}
	}
}

// TestRenderFailsWholeOnAPageMistake: a page whose code went wrong is a
// 500 with nothing of the page in it.
func TestRenderFailsWholeOnAPageMistake(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	rec := newRecorder()
	f.web.render(rec, 200, "search", &page{Title: "Search", Data: "not searchData"})
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "<html") {
		t.Errorf("render with the wrong data: %d\n%s", rec.Code, rec.Body)
	}
	rec = newRecorder()
	f.web.render(rec, 200, "nosuchpage", &page{})
	if rec.Code != 500 {
		t.Errorf("render of an unknown page: %d", rec.Code)
	}
}

// TestMarkupOnlyFromConstants: every format given to put, and every value
// converted to markup, is a constant of this package's code, so data
// reaches a page only through a verb that escapes it.
func TestMarkupOnlyFromConstants(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			isPut := false
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "put" {
				isPut = true
			}
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "markup" {
				isPut = true
			}
			if _, lit := call.Args[0].(*ast.BasicLit); isPut && !lit {
				t.Errorf("%s: markup from %s, not from a constant", fset.Position(call.Pos()), nodeText(call.Args[0]))
			}
			return true
		})
	}
}

func nodeText(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "an expression"
}

// FuzzPutEscapes: whatever a value holds, it stays text or one attribute's
// value (the parsed page has exactly the elements and attributes of the
// format, the value comes back as it was, made valid UTF-8 without NUL), and
// a %u URL never runs script.
func FuzzPutEscapes(f *testing.F) {
	for _, s := range []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`, `javascript:alert(1)`,
		"a\x00b", "\xff\xfe", `' " & + < >`, `&lt;`, `<!--`, `]]>`, "java\nscript:x", ` javascript:x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := &pageWriter{loc: time.UTC}
		w.put(`<p title="%s">%s</p><a href="/agents/%p?q=%q">x</a><a href="%u">y</a><textarea>%s</textarea>`, s, s, s, s, s, s)
		if w.err != nil {
			t.Fatal(w.err)
		}
		want := strings.ReplaceAll(string([]rune(s)), "\x00", "\uFFFD")               // each invalid byte a U+FFFD
		want = strings.ReplaceAll(strings.ReplaceAll(want, "\r\n", "\n"), "\r", "\n") // as the tokenizer reads text
		z := html.NewTokenizer(strings.NewReader(string(w.b)))
		var tags []string
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			tok := z.Token()
			switch tt {
			case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
				tags = append(tags, tok.Data)
				checkAttributes(t, tok, want)
			case html.TextToken:
				if tok.Data != "x" && tok.Data != "y" && tok.Data != want && !(want == "" && tok.Data == "") {
					t.Errorf("text %q, want %q", tok.Data, want)
				}
			default:
				t.Errorf("a %v token from %q", tt, s)
			}
		}
		if got := strings.Join(tags, " "); got != "p p a a a a textarea textarea" {
			t.Errorf("elements %q from %q", got, s)
		}
	})
}

func checkAttributes(t *testing.T, tok html.Token, want string) {
	t.Helper()
	if len(tok.Attr) > 1 {
		t.Errorf("<%s> has %d attributes", tok.Data, len(tok.Attr))
	}
	for _, a := range tok.Attr {
		switch a.Key {
		case "title":
			if a.Val != want {
				t.Errorf("title %q, want %q", a.Val, want)
			}
		case "href":
			if scheme := hrefScheme(a.Val); !utf8.ValidString(a.Val) || scheme != "" && scheme != "http" && scheme != "https" && scheme != "mailto" {
				t.Errorf("href %q: scheme %q", a.Val, scheme)
			}
		default:
			t.Errorf("attribute %s=%q", a.Key, a.Val)
		}
	}
}

// hrefScheme is the scheme a browser reads from href (it drops spaces
// and control characters first), "" for a relative URL.
func hrefScheme(href string) string {
	v := strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, href)
	if i := strings.IndexAny(v, ":/?#"); i >= 0 && v[i] == ':' {
		return strings.ToLower(v[:i])
	}
	return ""
}
