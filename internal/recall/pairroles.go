package recall

import (
	"regexp"
	"strings"
)

// Roles of two words: "our au pair Wilhelmina", "the dog walker", "my
// social worker". Their last word alone names no role (a pair, a walker),
// so each is read as one word, hyphenated: a role the user holds someone
// in, joined to a name and asked with "my" or "the" as any other.
var pairRoles = map[string]string{
	"au pair": "au-pair", "dog walker": "dog-walker", "social worker": "social-worker",
	"health visitor": "health-visitor", "lollipop lady": "lollipop-lady", "dinner lady": "dinner-lady",
	"support worker": "support-worker", "care worker": "care-worker", "home help": "home-help",
}

// pairRoleLast are the last words of pairRoles, and pairRoleWords each
// role's two words: a text holding none of the roles so, in any case,
// holds no role of two words, and most texts hold none.
var pairRoleLast, pairRoleWords = func() (map[string]bool, [][2]string) {
	last := map[string]bool{}
	var words [][2]string
	for p := range pairRoles {
		a, b, _ := strings.Cut(p, " ")
		last[b] = true
		words = append(words, [2]string{a, b})
	}
	return last, words
}()

func init() {
	for _, r := range pairRoles {
		roleCanon[r] = r
	}
}

// pairRoleRe finds the roles of pairRoles in a text, any case.
var pairRoleRe = func() *regexp.Regexp {
	var alts []string
	for p := range pairRoles {
		alts = append(alts, strings.ReplaceAll(p, " ", `\s+`))
	}
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(alts, "|") + `)\b`)
}()

// hyphenPairRoles writes each role of two words in s (low: s lowercased,
// which the caller has for its own checks) as one: "Our au pair
// Wilhelmina" is "Our au-pair Wilhelmina".
func hyphenPairRoles(s, low string) string {
	if !strings.Contains(s, " ") || !mayHoldPairRole(s, low) {
		return s
	}
	return pairRoleRe.ReplaceAllStringFunc(s, func(m string) string { return strings.Join(strings.Fields(m), "-") })
}

// mayHoldPairRole reports whether s (low: s lowercased) holds, in any
// case, the two words of a role of two words with white space between
// (pairRoleRe's \s+, without its word boundaries): without them
// pairRoleRe cannot match, and the check costs a small part of the
// regexp's run. Lowercasing keeps every ASCII
// letter and white space of s, and (?i) folds ASCII letters among
// themselves but for the long s, which folds to s and is not lowered to it:
// a text holding one is left to the regexp.
func mayHoldPairRole(s, low string) bool {
	if strings.ContainsRune(s, '\u017f') {
		return true
	}
	for _, p := range pairRoleWords {
		first, last := p[0], p[1]
		for off := 0; ; {
			i := strings.Index(low[off:], last)
			if i < 0 {
				break
			}
			i += off
			j := i
			for j > 0 && asciiSpace(low[j-1]) {
				j--
			}
			if j < i && strings.HasSuffix(low[:j], first) {
				return true
			}
			off = i + 1
		}
	}
	return false
}

// asciiSpace reports whether b is white space as \s of a regexp reads it.
func asciiSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// joinPairRoles merges the two words of a role of two words among t into
// one tok: "the", "au", "pair" is "the", "au-pair".
func joinPairRoles(t []tok) []tok {
	for i := 0; i+1 < len(t); i++ {
		if !pairRoleLast[t[i+1].low] || t[i+1].brk {
			continue // most pairs: no string made to look up
		}
		if r, ok := pairRoles[t[i].low+" "+t[i+1].low]; ok {
			t[i] = tok{low: r, upper: t[i].upper, poss: t[i+1].poss, brk: t[i].brk}
			t = append(t[:i+1], t[i+2:]...)
		}
	}
	return t
}
