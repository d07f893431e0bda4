package recall

import "slices"

// Words that say which one, not what: "when did I last get new glasses?"
// asks of glasses; "the fairy lights from last year" and "a new route on my
// walk" share only "last" and "new" with it, and name nothing it asks
// about. A text sharing only such words with a question that asks of
// something else is a near-miss (nearmiss.go).
var weakWords = []string{"last", "new", "old", "latest", "recent", "recently", "next", "first", "newest", "oldest",
	"previous", "current", "usual", "same", "other", "another", "whole", "big", "small", "little"}

// sharesOnlyWeak reports whether the question has weak words and others,
// and s holds none of the others (by word, related word, kind or topic): a
// day or a month the question names is one of those others, the date
// range's to read ("on Tuesday afternoon" is answered by a rule for
// Tuesdays).
func (r *ranker) sharesOnlyWeak(s string) bool {
	if !slices.ContainsFunc(r.words, func(w string) bool { return slices.Contains(weakWords, w) }) {
		return false
	}
	strong := slices.DeleteFunc(slices.Clone(r.words), func(w string) bool { return slices.Contains(weakWords, w) })
	words := r.analysed(s).words
	have := r.withAliases(stemsOfWords(words, r.stem))
	return len(strong) > 0 && !slices.ContainsFunc(strong, func(w string) bool {
		return slices.ContainsFunc(alikeStems(w), have.has) || r.heldByKindOrTopic(s, w) ||
			slices.ContainsFunc(words, func(x string) bool { return baseForm(x) == w }) // "tried" is "try"
	})
}
