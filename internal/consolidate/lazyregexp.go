package consolidate

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use. The
// sentence shapes of claims and facts cost 2 MB and milliseconds to
// compile; compiled at package initialisation, every command paid that on
// start-up (dormouse version too), though only consolidation matches them.
type lazyRegexp struct{ compiled func() *regexp.Regexp }

// shapes are every lazyRegexp, so that a test compiles them all: a bad
// expression no longer panics at start-up.
var shapes []*lazyRegexp

// lazy is regexp.MustCompile(expr), on first use.
func lazy(expr string) *lazyRegexp {
	l := &lazyRegexp{compiled: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	shapes = append(shapes, l)
	return l
}

func (l *lazyRegexp) MatchString(s string) bool            { return l.compiled().MatchString(s) }
func (l *lazyRegexp) FindString(s string) string           { return l.compiled().FindString(s) }
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.compiled().FindStringSubmatch(s) }
func (l *lazyRegexp) ReplaceAllString(s, repl string) string {
	return l.compiled().ReplaceAllString(s, repl)
}
func (l *lazyRegexp) Split(s string, n int) []string { return l.compiled().Split(s, n) }
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.compiled().FindStringSubmatchIndex(s)
}
func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.compiled().FindAllStringSubmatchIndex(s, n)
}
func (l *lazyRegexp) FindStringIndex(s string) []int { return l.compiled().FindStringIndex(s) }
