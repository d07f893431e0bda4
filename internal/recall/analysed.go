package recall

import (
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// analysis is what the ranker reads of one text's words: feedback its
// terms, coverage its stems. A question reads the same hundred or so hit
// texts in several stages; each is split into words once (analysed).
type analysis struct {
	words []string // text.Words
	terms []string // text.Terms, made when first asked
	stems stemList // stemsOf, made when first asked
	toks  []tok    // toks, made when first asked (whose is it: subject.go)

	bindings []binding // bindingsOf, made when first asked (bindings.go)
	bound    bool      // bindings is made
}

// analysed is the analysis of s, made on first sight and kept for this
// question only (the ranker is dropped after it).
func (r *ranker) analysed(s string) *analysis {
	if a := r.analyses[s]; a != nil {
		return a
	}
	if r.analyses == nil {
		r.analyses = map[string]*analysis{}
	}
	a := &analysis{words: text.Words(s)}
	r.analyses[s] = a
	return a
}

// terms is text.Terms of s.
func (r *ranker) terms(s string) []string {
	a := r.analysed(s)
	if a.terms == nil {
		a.terms = r.termsOf(a.words)
	}
	return a.terms
}

// termsOf is text.TermsOf of words, made without changing words (the
// analysis keeps them) and with one set of the words seen for the whole
// question rather than one a text; never nil.
func (r *ranker) termsOf(words []string) []string {
	if r.seen == nil {
		r.seen = map[string]struct{}{}
	}
	clear(r.seen)
	out := make([]string, 0, len(words))
	for _, w := range words {
		if _, dup := r.seen[w]; dup || !text.IsTerm(w) {
			continue
		}
		r.seen[w] = struct{}{}
		out = append(out, w)
	}
	return out
}

// stems is stemsOf of s.
func (r *ranker) stems(s string) stemList {
	a := r.analysed(s)
	if a.stems == nil {
		a.stems = r.withoutOtherKinds(s, r.withAliases(stemsOfWords(a.words, r.stem)))
	}
	return a.stems
}

// coverage is coverage of s, from its remembered stems.
func (r *ranker) coverage(s string) float64 {
	if len(r.words) == 0 {
		return 0
	}
	have := r.stems(s)
	if r.lightOnly(have) {
		return 0
	}
	return heldShare(r.words, have, nil)
}

// stem is stem of w, remembered for the question: the hit texts of one
// question share most of their words.
func (r *ranker) stem(w string) string {
	if st, ok := r.stemmed[w]; ok {
		return st
	}
	if r.stemmed == nil {
		r.stemmed = map[string]string{}
	}
	st := stem(w)
	r.stemmed[w] = st
	return st
}

// kindsOf is kinds.Of of s, made once a question: the kinds search reads
// it of its first hits and coverage again of the same candidates, and on
// dense text, where a question word is a kind of words most memories hold
// ("report": summary), those are the dearest questions.
func (r *ranker) kindsOf(s string) string {
	if k, ok := r.kinds[s]; ok {
		return k
	}
	if r.kinds == nil {
		r.kinds = map[string]string{}
	}
	k := kinds.Of(s)
	r.kinds[s] = k
	return k
}

// withAliases is have with each of the question's words that names its
// subject a text holds by another of the subject's names ("my wife" for
// Nkechi).
func (r *ranker) withAliases(have stemList) stemList {
	for w, alts := range r.aliases {
		if have.has(r.stem(w)) {
			continue
		}
		for _, a := range alts {
			if have.has(r.stem(a)) {
				have = append(have, r.stem(w))
				break
			}
		}
	}
	return have
}

// toksOf is toks of s.
func (r *ranker) toksOf(s string) []tok {
	a := r.analysed(s)
	if a.toks == nil {
		a.toks = toks(s)
	}
	return a.toks
}

// bindingsOfText is bindingsOf s: the searches for a subject's names find
// again memories the question's words found.
func (r *ranker) bindingsOfText(s string) []binding {
	a := r.analysed(s)
	if !a.bound {
		a.bindings, a.bound = bindingsOf(s, r.toksOf(s)), true
	}
	return a.bindings
}
