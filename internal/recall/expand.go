package recall

import (
	"slices"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

// lexicon is the concept lexicon: a word's related words, derived from
// WordNet 3.0 by lexgen, looked up in place and shared by every agent.
const lexicon = wordnet.Concepts

// Expand returns words related to the query's (synonyms and broader
// concepts) from the built-in lexicon. An inflected word ("married",
// "children") has its base form's related words as well as any of its own
// ("planning" the noun is not "plan" the verb): the lexicon holds base
// forms, and irregular ones as lexgen found them in WordNet.
func Expand(words []string) []string {
	var out []string
	for _, w := range words {
		rel, own := lexicon.Lookup(w)
		out = appendFields(out, rel)
		if b := baseForm(w); b != "" && b != w {
			out = appendFields(out, lookup(b))
		} else if !own {
			out = appendFields(out, lookup(stem(w)))
		}
	}
	return out
}

func lookup(w string) wordnet.Words {
	rel, _ := lexicon.Lookup(w)
	return rel
}

// appendFields appends the words of ws to out.
func appendFields(out []string, ws wordnet.Words) []string {
	out = slices.Grow(out, ws.Len())
	for f := range ws.All() {
		out = append(out, f)
	}
	return out
}

// inflections are WordNet's detachment rules (its "morphy"), nouns', verbs'
// and adjectives' in that order: a suffix and what replaces it.
var inflections = [][2]string{
	{"ies", "y"}, {"ches", "ch"}, {"shes", "sh"}, {"xes", "x"}, {"ses", "s"}, {"s", ""},
	{"ied", "y"}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}, {"es", "e"}, {"es", ""},
	{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"},
}

// baseForm is the first base form of w the lexicon holds, undoing a regular
// inflection and a doubled final consonant ("planned": plan), or "".
func baseForm(w string) string {
	for _, in := range inflections {
		s, ok := strings.CutSuffix(w, in[0])
		if !ok || len(s) < 2 {
			continue
		}
		if lexicon.Has(s + in[1]) {
			return s + in[1]
		}
		if n := len(s); in[1] == "" && n > 2 && s[n-1] == s[n-2] {
			if lexicon.Has(s[:n-1]) {
				return s[:n-1]
			}
		}
	}
	return ""
}
