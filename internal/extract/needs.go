package extract

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Needs: the literal words a sentence shape cannot match without. Most
// sentences state nothing, and a shape's backtracking search over one that
// cannot match was most of a day's consolidation (the fact, claim and
// profile shapes, each tried on every sentence). "my (?i:boss|manager)"
// needs "my boss" or "my manager" somewhere, whatever the case: a sentence
// without either is turned away by a substring test, before any regular
// expression runs. The words are worked out from the expression itself, so
// a shape and its words never disagree: the filter only says "cannot
// match", never "matches".

// maxLiterals bounds the strings one part of an expression is expanded
// to; maxJoined the strings neighbouring parts are joined into ("my boss",
// "my manager"), so that a text is tried against a few strings at a time.
const (
	maxLiterals = 64
	maxJoined   = 8
)

// literals is what a part of an expression says about the text it matches,
// each string folded (fold): exact, when not nil, is every text it can
// match; each of need is a set one of whose strings is in every text it
// matches.
type literals struct {
	exact []string
	need  [][]string
}

// needsOf is the sets of folded strings of which every match of expr
// contains one string each, the most telling set first; nil when nothing
// is certain (or expr does not parse).
func needsOf(expr string) []needSet {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	need := literalsOf(re.Simplify()).need
	slices.SortStableFunc(need, func(a, b []string) int {
		if c := shortest(b) - shortest(a); c != 0 {
			return c
		}
		return len(a) - len(b)
	})
	var out []needSet
	for _, set := range need {
		out = append(out, newNeedSet(set))
	}
	return out
}

// needSet is strings one of which a text must hold. Of a set of many, a
// text is searched once for the pairs of bytes they start with, not once
// for each.
type needSet struct {
	words [][]byte
	pairs *[pairBits / 64]uint64 // nil: search for each word
}

const pairBits = 1024

func newNeedSet(words []string) needSet {
	var n needSet
	short := false
	for _, w := range words {
		n.words = append(n.words, []byte(w))
		short = short || len(w) < 2
	}
	if len(words) <= 4 || short {
		return n
	}
	n.pairs = new([pairBits / 64]uint64)
	for _, w := range n.words {
		h := pairHash(w[0], w[1])
		n.pairs[h/64] |= 1 << (h % 64)
	}
	return n
}

func pairHash(a, b byte) uint { return (uint(a)<<5 ^ uint(b)) % pairBits }

// in reports whether folded holds one of the set's words.
func (n needSet) in(folded []byte) bool {
	if n.pairs == nil {
		return slices.ContainsFunc(n.words, func(w []byte) bool { return bytes.Contains(folded, w) })
	}
	for i := 0; i+1 < len(folded); i++ {
		if h := pairHash(folded[i], folded[i+1]); n.pairs[h/64]&(1<<(h%64)) != 0 &&
			slices.ContainsFunc(n.words, func(w []byte) bool { return bytes.HasPrefix(folded[i:], w) }) {
			return true
		}
	}
	return false
}

func literalsOf(re *syntax.Regexp) literals {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactly([]string{""})
	case syntax.OpLiteral:
		return exactly([]string{fold(string(re.Rune))})
	case syntax.OpCharClass:
		return exactly(classRunes(re.Rune))
	case syntax.OpCapture:
		return literalsOf(re.Sub[0])
	case syntax.OpQuest:
		if sub := literalsOf(re.Sub[0]); sub.exact != nil && len(sub.exact) < maxLiterals {
			return exactly(union([]string{""}, sub.exact))
		}
	case syntax.OpPlus:
		return literals{need: literalsOf(re.Sub[0]).need}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literals{need: literalsOf(re.Sub[0]).need}
		}
	case syntax.OpAlternate:
		return alternateLiterals(re.Sub)
	case syntax.OpConcat:
		return concatLiterals(re.Sub)
	}
	return literals{}
}

// exactly is the literals of a part that matches one of set, or nothing
// known when set is nil. A set holding the empty string needs nothing.
func exactly(set []string) literals {
	if set == nil || slices.Contains(set, "") {
		return literals{exact: set}
	}
	return literals{exact: set, need: [][]string{set}}
}

// classRunes is a small character class's runes, folded, or nil for a class
// too large to be worth listing.
func classRunes(ranges []rune) []string {
	var out []string
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] >= 8 {
			return nil
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if out = union(out, []string{string(foldRune(r))}); len(out) > 8 {
				return nil
			}
		}
	}
	return out
}

// alternateLiterals: a text one of subs matches is one of their exact
// texts, and holds what the one that matched needs: one string of the
// union of their most telling sets.
func alternateLiterals(subs []*syntax.Regexp) literals {
	var exact, need []string
	allExact, allNeed := true, true
	for _, s := range subs {
		l := literalsOf(s)
		allExact = allExact && l.exact != nil
		allNeed = allNeed && l.need != nil
		exact = union(exact, l.exact)
		if l.need != nil {
			need = union(need, best(l.need))
		}
	}
	if !allExact || len(exact) > maxLiterals {
		exact = nil
	}
	if !allNeed || len(need) > maxLiterals {
		return literals{exact: exact}
	}
	return literals{exact: exact, need: [][]string{need}}
}

// concatLiterals joins the exact texts of neighbouring parts ("my" " "
// "boss|manager" is "my boss|my manager") while they stay few, and needs
// what each run of them and each other part needs.
func concatLiterals(subs []*syntax.Regexp) literals {
	run, exact := []string{""}, true
	var need [][]string
	flush := func() {
		need = append(need, exactly(run).need...)
		run = []string{""}
	}
	for _, s := range subs {
		l := literalsOf(s)
		if l.exact == nil {
			flush()
			need, exact = append(need, l.need...), false
			continue
		}
		if len(run)*len(l.exact) > maxJoined {
			flush()
			exact = false
		}
		run = product(run, l.exact)
	}
	if exact {
		return exactly(run)
	}
	flush()
	return literals{need: need}
}

// best is the most telling of sets: the one whose shortest string is the
// longest, then the one with fewest strings.
func best(sets [][]string) []string {
	var b []string
	for _, s := range sets {
		if b == nil || better(b, s) {
			b = s
		}
	}
	return b
}

// better reports whether b is more telling than a.
func better(a, b []string) bool {
	sa, sb := shortest(a), shortest(b)
	return sb > sa || sb == sa && len(b) < len(a)
}

func shortest(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

func product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return union(nil, out)
}

// union is a with the strings of b it lacks.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// fold is s with each rune replaced by the least rune of its case-folding
// orbit ("k", "K" and the Kelvin sign are all "K"), so a case-blind match
// of s and its text fold to the same string.
func fold(s string) string { return string(appendFold(nil, s)) }

func appendFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if 'a' <= b && b <= 'z' {
				b -= 'a' - 'A'
			}
			dst = append(dst, b)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}

func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// lastFolded is the text last folded and its fold: the shapes are tried
// one after another on the same sentence, which is folded once for all.
var lastFolded struct {
	sync.Mutex
	text   string
	folded []byte
}

// mayContain reports whether s holds, case-blind, one string of each of
// needs; no needs means no filter. The fold of the last text is shared,
// but never waited for: capture's requests match the shapes too
// (StatedValues), and the catch-up's thread, at a lower priority, may be
// holding it when the CPU is taken from it; whoever finds it held folds
// on its own.
func mayContain(s string, needs []needSet) bool {
	if needs == nil {
		return true
	}
	if !lastFolded.TryLock() {
		var buf [512]byte
		return containsAll(appendFold(buf[:0], s), needs)
	}
	defer lastFolded.Unlock()
	if s != lastFolded.text || lastFolded.folded == nil {
		lastFolded.text, lastFolded.folded = s, appendFold(lastFolded.folded[:0], s)
	}
	return containsAll(lastFolded.folded, needs)
}

func containsAll(folded []byte, needs []needSet) bool {
	for _, n := range needs {
		if !n.in(folded) {
			return false
		}
	}
	return true
}
