package recall

import (
	"strings"

	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

// definitionCredit is how much of a question's word an item holds when it
// holds only a word of that word's definition: half, since a definition
// reaches further than a synonym ("gym" → training).
const definitionCredit = 0.5

// Define returns the words of w's definition and their kinds, or nil:
// the definitions lexicon (wordnet.Definitions, from WordNet 3.0's
// definitions by lexgen), looked up in place, so nothing is loaded or
// allocated beyond the answer.
func Define(w string) []string {
	w = strings.ToLower(w)
	if d := lookupDefinition(w); d != nil {
		return d
	}
	for _, suf := range [][2]string{{"ies", "y"}, {"es", ""}, {"s", ""}} {
		if s, ok := strings.CutSuffix(w, suf[0]); ok && len(s) > 2 {
			if d := lookupDefinition(s + suf[1]); d != nil {
				return d
			}
		}
	}
	return nil
}

func lookupDefinition(w string) []string {
	ws, ok := wordnet.Definitions.Lookup(w)
	if !ok {
		return nil
	}
	return appendFields(make([]string, 0, ws.Len()), ws)
}

// gapHits is how many of the best lexical hits are read for the
// question's words.
const gapHits = 50

// gapDefinitions returns, for each of the question's words that none of
// the best lexical hits holds (the vocabulary gap: "steakhouse" where the
// memory says "meat"), the words of its definition.
func gapDefinitions(words []string, hits []store.MemoryHit) map[string][]string {
	var out map[string][]string
	for _, w := range gapWords(words, hits) {
		if d := Define(w); d != nil {
			if out == nil {
				out = map[string][]string{}
			}
			out[w] = d
		}
	}
	return out
}

// gapWords are the words none of the best hits holds: a hit holds a word
// when its text contains the word's stem.
func gapWords(words []string, hits []store.MemoryHit) []string {
	var lower []string
	for _, h := range hits[:min(len(hits), gapHits)] {
		lower = append(lower, strings.ToLower(h.Text))
	}
	var out []string
	for _, w := range words {
		s := stem(strings.ToLower(w))
		held := false
		for _, l := range lower {
			if strings.Contains(l, s) {
				held = true
				break
			}
		}
		if !held {
			out = append(out, w)
		}
	}
	return out
}
