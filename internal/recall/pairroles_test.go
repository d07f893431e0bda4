package recall

import (
	"strings"
	"testing"
)

// TestHyphenPairRolesPrecheck holds hyphenPairRoles, which skips the
// regexp on a text holding no last word of a role of two words, to what the
// regexp alone makes, in every case the regexp folds: mixed case, the
// Kelvin sign and the long s, runs of spaces, tabs and line breaks.
func TestHyphenPairRolesPrecheck(t *testing.T) {
	texts := []string{
		"Our au pair Wilhelmina starts in September.",
		"OUR AU PAIR, Wilhelmina, starts soon",
		"my Social\tWorker rang; the dog  walker didn't",
		"the health\nvisitor came round",
		"the dinner lady and the lollipop lady waved",
		"Home Help was booked",
		"a pair of shoes, a walker on the hill, a worker in the yard",
		"the dog wal\u212aer came at noon",   // Kelvin sign folds to k
		"the health vi\u017fitor came again", // long s folds to s
		"our au pair’s room is ready",
		"the au pairs left",
		"care workers and support workers",
		"nothing of the kind here",
		"helpful, a ladybird, a paired sock",
		"", "au", "pair", "au pair", "pair au", " pair", "au ",
		"the dog\r\n walker", "the dog\fwalker", "the dog-walker", "the dog\u00a0walker", "o'au pair", "beau pair",
		"home helper, home  help", "help home help", "dog dog walker",
	}
	for _, r := range []string{"au pair", "dog walker", "social worker", "health visitor", "lollipop lady",
		"dinner lady", "support worker", "care worker", "home help"} {
		texts = append(texts, "my "+r+" Sam", "My "+strings.ToUpper(r)+" rang", strings.ToUpper(r[:1])+r[1:]+" came")
	}
	for _, s := range texts {
		want := s
		if strings.Contains(s, " ") {
			want = pairRoleRe.ReplaceAllStringFunc(s, func(m string) string { return strings.Join(strings.Fields(m), "-") })
		}
		if got := hyphenPairRoles(s, strings.ToLower(s)); got != want {
			t.Errorf("hyphenPairRoles(%q) = %q, want %q", s, got, want)
		}
		if !mayHoldPairRole(s, strings.ToLower(s)) && pairRoleRe.MatchString(s) {
			t.Errorf("mayHoldPairRole(%q) = false, but pairRoleRe matches", s)
		}
	}
}

// TestJoinPairRoles merges a role of two words into one tok, and not
// across a clause break.
func TestJoinPairRoles(t *testing.T) {
	for s, want := range map[string]string{
		"our au pair Wilhelmina":       "our au-pair wilhelmina",
		"the Dog Walker's van":         "the dog-walker van",
		"a dog, walker of the hills":   "a dog walker of the hills",
		"a pair of socks":              "a pair of socks",
		"my social worker and my care": "my social-worker and my care",
	} {
		var got []string
		for _, tk := range toks(s) {
			got = append(got, tk.low)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("toks(%q) = %q, want %q", s, strings.Join(got, " "), want)
		}
	}
}
