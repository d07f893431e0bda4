package recall

import (
	_ "embed"
	"strings"
	"sync"
)

// lexiconText is the concept lexicon: "word related related ..." a line,
// derived from WordNet 3.0 by lexgen (licence: LEXICON-LICENSE).
//
//go:generate go run ./lexgen -dict /usr/share/wordnet -out lexicon.txt -max 4
//go:embed lexicon.txt
var lexiconText string

var (
	lexiconOnce sync.Once
	lexiconMap  map[string][]string
)

// lexicon parses lexiconText once, on first use.
func lexicon() map[string][]string {
	lexiconOnce.Do(func() {
		lexiconMap = make(map[string][]string, strings.Count(lexiconText, "\n"))
		for line := range strings.SplitSeq(lexiconText, "\n") {
			w, rest, ok := strings.Cut(line, " ")
			if ok {
				lexiconMap[w] = strings.Fields(rest)
			}
		}
	})
	return lexiconMap
}

// Expand returns words related to the query's (synonyms and broader
// concepts) from the built-in lexicon.
func Expand(words []string) []string {
	lex := lexicon()
	var out []string
	for _, w := range words {
		rel, ok := lex[w]
		if !ok {
			rel = lex[stem(w)]
		}
		out = append(out, rel...)
	}
	return out
}
