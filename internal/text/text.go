// Package text splits text into the words that capture and recall agree on:
// what a word is, which words are too common to search for, what a token
// costs, and how text is clipped and a size written for a person.
package text

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words returns the lowercased words of s in order. A word is a run of
// Unicode letters, digits and combining marks; everything else separates
// words, apostrophes and hyphens included, so "don't" gives "don" and "t" and
// "e-mail" gives "e" and "mail". That is how SQLite FTS5's unicode61
// tokenizer splits the stored text, so a query built from Words asks for the
// same words the index holds; the fragments contractions leave behind are
// stopwords. Invalid UTF-8 separates words and never appears in one.
func Words(s string) []string {
	var words []string
	for w, rest := NextWord(s); w != ""; w, rest = NextWord(rest) {
		if words == nil {
			// Sized once, by the spaces: recall splits hundreds of texts
			// a question, and growing each slice was most of what it
			// allocated for them.
			words = make([]string, 0, strings.Count(rest, " ")+1)
		}
		words = append(words, strings.ToLower(w))
	}
	return words
}

// NextWord splits the first word, as Words splits them but not lowercased,
// off s: "well-known" gives "well" and "-known", then "known" and "". A loop
// over it does what Words does without allocating.
func NextWord(s string) (word, rest string) {
	i := 0
	for i < len(s) {
		r, w := decode(s, i)
		if IsWordRune(r) {
			break
		}
		i += w
	}
	j := i
	for j < len(s) {
		r, w := decode(s, j)
		if !IsWordRune(r) {
			break
		}
		j += w
	}
	return s[i:j], s[j:]
}

// decode is utf8.DecodeRuneInString at s[i:], without the call for ASCII.
func decode(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// IsWordRune reports whether r belongs inside a word as Words splits them.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// Terms returns the words of s worth searching for: Words without stopwords
// and one-character words, each once, in the order first seen.
func Terms(s string) []string { return TermsOf(Words(s)) }

// TermsOf is Terms of the text Words split into words; it reuses words'
// array.
func TermsOf(words []string) []string {
	return Unique(slices.DeleteFunc(words, func(w string) bool { return !IsTerm(w) }))
}

// IsTerm reports whether the lowercased word w is one Terms keeps: not a
// stop word, and at least two letters long.
func IsTerm(w string) bool { return !IsStopword(w) && utf8.RuneCountInString(w) >= 2 }

// Unique drops the repeats from words, keeping each in the order first seen,
// nil when none is left; it reuses words' array.
func Unique(words []string) []string {
	seen := make(map[string]struct{}, len(words))
	out := words[:0] // filtering in place: each kept word is at or before its source
	for _, w := range words {
		if _, dup := seen[w]; !dup {
			seen[w] = struct{}{}
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// EstimateTokens estimates what s costs in model tokens, for budgets: one
// token per four characters (runes), rounded up, so 0 for "" and at least 1
// for any other string. Four characters a token is the usual average for
// English under BPE tokenizers; counting runes rather than bytes keeps accented
// and non-Latin text from counting two to four times over. It is an estimate:
// scripts without spaces, such as Chinese, cost more than it says.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// IsLineControl reports whether r has no place in one line of text shown to a person or a model:
// a control character (a newline starts a line of its own, where a stored label could print a
// forged citation), a line or paragraph separator, or a bidirectional embedding, override or
// isolate (text that displays otherwise than it reads). Capture refuses them in single-line
// fields; recall renders them as spaces.
func IsLineControl(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Clip keeps at most n bytes of s, cut at a rune boundary.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Size writes n bytes for a person: "512 B", "1.5 KiB", "20.0 MiB", up to TiB.
func Size[N int | int64 | uint64](n N) string {
	v := float64(n)
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
