package recall

import (
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Addresses reports whether s shares a concept with the question, as the
// ranker's words count one: a word of the question or a word the lexicon
// relates to it, by stem, or a kind of thing s names ("is there any
// medicine I should avoid?": penicillin is a medicine). It judges what recall
// offers whatever the words (the pinned profile): such an item answers a
// question only when it addresses it.
func Addresses(question, s string) bool {
	words := text.Terms(question)
	if len(words) == 0 {
		return false
	}
	return coverage(words, s+" "+kinds.Of(s)) > 0 || coverage(Expand(words), s) > 0
}
