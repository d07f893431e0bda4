package recall

import (
	_ "embed"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// definitionsText is the definitions lexicon: "word noun noun ... kind
// kind ..." a line, sorted, from WordNet 3.0's definitions by lexgen
// (licence: LEXICON-LICENSE): the nouns a word's definition names and the
// first kinds of each ("steakhouse restaurant steak eating house cut meat").
//
//go:generate go run ./lexgen -dict /usr/share/wordnet -definitions ../kinds/kinds.txt -out definitions.txt -max 3
//go:embed definitions.txt
var definitionsText string

// definitionCredit is how much of a question's word an item holds when it
// holds only a word of that word's definition: half, since a definition
// reaches further than a synonym ("gym" → training).
const definitionCredit = 0.5

// Define returns the words of w's definition and their kinds, or nil. It
// searches the sorted lexicon in place: nothing is loaded or allocated
// beyond the answer.
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
	lo, hi := 0, len(definitionsText)
	for lo < hi {
		mid := (lo + hi) / 2
		start := strings.LastIndexByte(definitionsText[:mid], '\n') + 1
		end := start + strings.IndexByte(definitionsText[start:], '\n')
		if end < start {
			end = len(definitionsText)
		}
		line := definitionsText[start:end]
		word, rest, _ := strings.Cut(line, " ")
		switch {
		case word == w:
			return strings.Fields(rest)
		case word < w:
			lo = end + 1
		default:
			hi = start
		}
	}
	return nil
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
