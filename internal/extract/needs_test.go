package extract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNeedsOf: the words worked out of an expression are the ones any
// match holds, joined across neighbouring parts, case-blind, and nothing
// where a match may hold anything.
func TestNeedsOf(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want [][]string
	}{
		{`\b(?i:my|our) (?i:boss|manager)\b`, [][]string{{"MY BOSS", "MY MANAGER", "OUR BOSS", "OUR MANAGER"}}},
		{`^(?i:i'm|i am)(?: now)? dating (\p{Lu}\p{L}+)`, [][]string{{"I'M DATING ", "I AM DATING ", "I'M NOW DATING ", "I AM NOW DATING "}}},
		// Each part that is not one of a few texts needs what it needs on its own.
		{`\b(?i:left|quit) (\p{Lu}.{1,40}?) (?i:for|to join) `, [][]string{{"LEFT ", "QUIT "}, {" FOR ", " TO JOIN "}}},
		{`['’]s rent`, [][]string{{"'S RENT", "’S RENT"}}},
		{`(?:x|y)+z`, [][]string{{"Z"}, {"X", "Y"}}},
		{`(?i)\b(?:not|never)\b[^,;:]*$`, [][]string{{"NOT", "NEVER"}}},
		{`^\+?\(?\d[\d ()-]{4,}\d`, nil}, // digits: a class too large to list
		{`(?:rent)?\d`, nil},             // the optional word may be absent
		{`a|b*`, nil},                    // one alternative needs nothing
		{`a|.b`, [][]string{{"A", "B"}}},
		{`(`, nil}, // not an expression
	} {
		got := needsOf(tc.expr)
		var sets [][]string
		for _, set := range got {
			var ss []string
			for _, n := range set.words {
				ss = append(ss, string(n))
			}
			slices.Sort(ss)
			sets = append(sets, ss)
		}
		for _, w := range tc.want {
			slices.Sort(w)
		}
		if diff := cmp.Diff(tc.want, sets); diff != "" {
			t.Errorf("needsOf(%q) (-want +got):\n%s", tc.expr, diff)
		}
	}
}

// TestNeedsAreCaseBlind: a case-blind shape still matches a text whose
// letters fold to its words only outside ASCII (the Kelvin sign is a
// capital k, the long s an s), and a case-sensitive one a text in any
// case it allows.
func TestNeedsAreCaseBlind(t *testing.T) {
	defer func(registered []*lazyRegexp) { shapes = registered }(shapes)
	for _, tc := range []struct{ expr, text string }{
		{`(?i:kestrel) launch`, "the \u212Aestrel launch"},
		{`(?i:sold) the car`, "I \u017Fold the car"},
		{`(?i:straße) (?i:is)`, "the STRAßE IS closed"},
		{`[Ww]e moved`, "We moved"},
		{`(?i:é)t(?i:é) (?i:is)`, "ÉtÉ IS here"},
	} {
		l := lazy(tc.expr)
		if !l.compiled().MatchString(tc.text) {
			t.Fatalf("%q does not match %q: a bad test", tc.expr, tc.text)
		}
		if !l.MatchString(tc.text) {
			t.Errorf("%q: the words it needs (%v) turned away %q, which it matches", tc.expr, l.built().needs, tc.text)
		}
	}
}

// TestShapesMatchAsBefore: on every sentence this package's tests use,
// each shape answers what its expression answers; the words it needs
// never turn away a sentence it matches.
func TestShapesMatchAsBefore(t *testing.T) {
	texts := testSentences(t)
	if len(texts) < 500 {
		t.Fatalf("%d test sentences found, want this package's (over 500)", len(texts))
	}
	turned := 0
	for _, s := range texts {
		for i, l := range shapes {
			re := l.compiled()
			if got, want := l.FindStringSubmatchIndex(s), re.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
				t.Errorf("shape %d (%s) on %q: %v, its expression %v", i, re, s, got, want)
			}
			if got, want := l.ReplaceAllString(s, "<$0>"), re.ReplaceAllString(s, "<$0>"); got != want {
				t.Errorf("shape %d (%s) replacing in %q: %q, its expression %q", i, re, s, got, want)
			}
			if got, want := l.Split(s, -1), re.Split(s, -1); !slices.Equal(got, want) {
				t.Errorf("shape %d (%s) splitting %q: %q, its expression %q", i, re, s, got, want)
			}
			if l.cannotMatch(s) {
				turned++
			}
		}
	}
	if turned == 0 {
		t.Error("no sentence was turned away by the words a shape needs: the filter does nothing")
	}
}

// FuzzShapeNeeds: whatever the text, no shape turns away a text its
// expression matches.
func FuzzShapeNeeds(f *testing.F) {
	for _, s := range []string{
		"My boss is Dana Whitfield.", "I'm lactose-intolerant.", "the \u212Aestrel launch is on May 12",
		"I \u017Fold the Golf and bought a Kia Niro", "we now pay 1,265 a month for the flat", "\xff my new number: 0687 220 915",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1000 {
			return
		}
		for i, l := range shapes {
			if l.cannotMatch(s) && l.compiled().MatchString(s) {
				t.Errorf("shape %d (%s) turned away %q, which it matches", i, l.compiled(), s)
			}
		}
	})
}

// testSentences are the string literals of this package's tests.
func testSentences(t *testing.T) []string {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
				if s, err := strconv.Unquote(l.Value); err == nil && len(s) > 8 {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}

// TestContainsLower: containsLower answers what lower-casing a copy and
// searching it answers, on the package's test sentences and on letters
// that lower-case to ASCII from outside it.
func TestContainsLower(t *testing.T) {
	texts := append(testSentences(t), "MY name", "\u212Aite my ", "İ said yOu ", "\xffmy \xff", "OUr", "y\u0301ou ")
	for _, s := range texts {
		for _, w := range []string{"you ", "my ", "our ", "ki", "i"} {
			if got, want := containsLower(s, w), strings.Contains(strings.ToLower(s), w); got != want {
				t.Errorf("containsLower(%q, %q) = %v, want %v", s, w, got, want)
			}
		}
	}
}

// TestSharedFoldIsNeverWaitedFor: a shape tried while another holds the
// shared fold (the catch-up's low-priority thread, descheduled) folds on
// its own instead of waiting, and answers the same. Were it to wait, this
// test would hang on its own lock until the test binary's timeout.
func TestSharedFoldIsNeverWaitedFor(t *testing.T) {
	l := kinRe
	text := "My sister Ana is visiting."
	want := l.compiled().MatchString(text)
	if !want {
		t.Fatalf("kinRe does not match %q: a bad test", text)
	}
	lastFolded.Lock()
	defer lastFolded.Unlock()
	if got := l.MatchString(text); got != want {
		t.Errorf("with the shared fold held, kinRe on %q: %v, its expression %v", text, got, want)
	}
}
