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

// hyphenPairRoles writes each role of two words in s as one: "Our au pair
// Wilhelmina" is "Our au-pair Wilhelmina".
func hyphenPairRoles(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	return pairRoleRe.ReplaceAllStringFunc(s, func(m string) string { return strings.Join(strings.Fields(m), "-") })
}

// joinPairRoles merges the two words of a role of two words among t into
// one tok: "the", "au", "pair" is "the", "au-pair".
func joinPairRoles(t []tok) []tok {
	for i := 0; i+1 < len(t); i++ {
		if r, ok := pairRoles[t[i].low+" "+t[i+1].low]; ok && !t[i+1].brk {
			t[i] = tok{low: r, upper: t[i].upper, poss: t[i+1].poss, brk: t[i].brk}
			t = append(t[:i+1], t[i+2:]...)
		}
	}
	return t
}
