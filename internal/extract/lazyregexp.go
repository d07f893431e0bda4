package extract

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use. The
// sentence shapes of claims and facts cost 2 MB and milliseconds to
// compile; compiled at package initialisation, every command paid that on
// start-up (dormouse version too), though only consolidation matches them.
// Each also knows the words a match needs (needsOf), and turns away a text
// without them before the expression runs: what it answers is the
// expression's answer either way.
type lazyRegexp struct{ built func() builtShape }

// builtShape is a lazyRegexp once compiled.
type builtShape struct {
	re    *regexp.Regexp
	needs []needSet
}

// shapes are every lazyRegexp, so that a test compiles them all: a bad
// expression no longer panics at start-up.
var shapes []*lazyRegexp

// lazy is regexp.MustCompile(expr), on first use.
func lazy(expr string) *lazyRegexp {
	l := &lazyRegexp{built: sync.OnceValue(func() builtShape {
		return builtShape{re: regexp.MustCompile(expr), needs: needsOf(expr)}
	})}
	shapes = append(shapes, l)
	return l
}

func (l *lazyRegexp) compiled() *regexp.Regexp { return l.built().re }

// cannotMatch reports whether s lacks every word a match needs.
func (l *lazyRegexp) cannotMatch(s string) bool { return !mayContain(s, l.built().needs) }

func (l *lazyRegexp) MatchString(s string) bool {
	return !l.cannotMatch(s) && l.compiled().MatchString(s)
}

func (l *lazyRegexp) FindString(s string) string {
	if l.cannotMatch(s) {
		return ""
	}
	return l.compiled().FindString(s)
}

func (l *lazyRegexp) FindStringSubmatch(s string) []string {
	if l.cannotMatch(s) {
		return nil
	}
	return l.compiled().FindStringSubmatch(s)
}

// ReplaceAllString is s itself when nothing matches: the regexp package
// copies s even then.
func (l *lazyRegexp) ReplaceAllString(s, repl string) string {
	if l.cannotMatch(s) || l.compiled().FindStringIndex(s) == nil {
		return s
	}
	return l.compiled().ReplaceAllString(s, repl)
}

// Split is [s] when nothing matches, as the regexp package's is.
func (l *lazyRegexp) Split(s string, n int) []string {
	if n != 0 && l.cannotMatch(s) {
		return []string{s}
	}
	return l.compiled().Split(s, n)
}

func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	if l.cannotMatch(s) {
		return nil
	}
	return l.compiled().FindStringSubmatchIndex(s)
}

func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if l.cannotMatch(s) {
		return nil
	}
	return l.compiled().FindAllStringSubmatchIndex(s, n)
}

func (l *lazyRegexp) FindStringIndex(s string) []int {
	if l.cannotMatch(s) {
		return nil
	}
	return l.compiled().FindStringIndex(s)
}
