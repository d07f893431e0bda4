package recall

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// properNames are the capitalised words of a question after its first word
// ("When did Caroline go to the LGBTQ support group?" → caroline, lgbtq),
// lowercased.
func properNames(q string) []string {
	var out []string
	eachName(q, func(name, _ string) { out = append(out, name) })
	return dedupe(out)
}

// askedWords are the words q searches: its terms, but the noun of a
// question form ("what time does my train leave?" asks when: a memory
// holding some time of day does not answer it by that) and the period of a
// rate ("how much is my phone bill each month?" asks of the phone bill in
// months: the electricity's "88 a month" does not answer it by that), while
// other words remain to search.
func askedWords(q string) []string {
	words, _ := askedAndFormWords(q)
	return words
}

// askedAndFormWords are askedWords and the nouns it leaves out of "what
// kind of", "which type of" (forms): a note naming the thing says no
// "kind", but in a conversation the other speaker asks in that form ("What
// type of movies do you like best?") and the reply answers
// (wordCandidates).
func askedAndFormWords(q string) (asked, forms []string) {
	words := text.Words(q)
	var out, units []string
	for i, w := range words {
		switch {
		case w == "time" && i > 0 && (words[i-1] == "what" || words[i-1] == "which"):
		case namingVerb(words, i):
		case kindOf(words, i):
			forms = append(forms, w)
		case goActivity(words, i):
		case i > 0 && ratePeriod(words[i-1], w):
			units = append(units, w)
		default:
			out = append(out, w)
		}
	}
	forms = text.TermsOf(forms)
	if terms := text.TermsOf(out); len(terms) > 0 || len(units) == 0 {
		return terms, forms
	}
	return text.TermsOf(append(out, units...)), forms
}

// namingVerb reports whether words[i] is the verb of "what is X called?"
// or "what's X named?": the question asks X's name, and a text giving it
// ("X is Mr Okafor") says no "called"; "a call" is no answer. Only as the
// question's last word: "what is Nate's project called in the writers
// group?" (LoCoMo) names its answer with the verb ("a project called …").
func namingVerb(words []string, i int) bool {
	switch words[i] {
	case "called", "named":
	default:
		return false
	}
	return i > 1 && i == len(words)-1 && (words[0] == "what" || words[0] == "whats")
}

// goActivity reports whether words[i] is the light verb of "go <activity>"
// ("where do I go swimming?", "when did we go sailing?"): the question asks
// of the activity, and a memory saying "I swim at the lido" holds no "go".
func goActivity(words []string, i int) bool {
	switch words[i] {
	case "go", "goes", "going", "went", "gone":
	default:
		return false
	}
	if i+1 >= len(words) {
		return false
	}
	next := words[i+1]
	return len(next) > 5 && strings.HasSuffix(next, "ing") && next != "thing" && next != "nothing" && next != "something" && next != "everything"
}

// kindOf reports whether words[i] opens "what kind of", "which sort of",
// "what type of": the question asks of the noun after it, and a memory
// naming one ("my bike's a Brompton") says no "kind".
func kindOf(words []string, i int) bool {
	switch words[i] {
	case "kind", "kinds", "sort", "sorts", "type", "types":
	default:
		return false
	}
	return i > 0 && i+1 < len(words) && words[i+1] == "of" && (words[i-1] == "what" || words[i-1] == "which")
}

// ratePeriod reports whether "per unit" is the period of a rate: "each
// month", "a year", "per hour", "every week".
func ratePeriod(per, unit string) bool {
	switch per {
	case "a", "an", "per", "each", "every":
	default:
		return false
	}
	switch unit {
	case "hour", "day", "night", "week", "fortnight", "month", "year", "annum":
		return true
	}
	return false
}

// eachName calls yield with each of properNames, and the word before it
// (both lowercased).
func eachName(q string, yield func(name, prev string)) {
	eachNameAs(q, func(name, prev, _ string) { yield(name, prev) })
}

// eachNameAs is eachName, with the name as written ("Amira's").
func eachNameAs(q string, yield func(name, prev, raw string)) {
	first := true
	prev := ""
	for _, f := range strings.FieldsFunc(q, func(r rune) bool { return !text.IsWordRune(r) && r != '\'' && r != '’' }) {
		raw := f
		f = strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s")
		w := []rune(f)
		if len(w) == 0 {
			continue
		}
		low := strings.ToLower(f)
		if !first && unicode.IsUpper(w[0]) && len(w) > 1 && !text.IsStopword(low) {
			yield(low, prev, raw)
		}
		first, prev = false, low
	}
}

// markSpeakers sets the speaker part of the memories whose role's first
// word is a name the question uses.
func markSpeakers(cands map[string]*cand, names []string) {
	for _, c := range cands {
		for _, n := range names {
			if c.hit.Kind == "memory" && strings.EqualFold(firstWord(c.hit.Role), n) {
				c.ex.Speaker = 1
			}
		}
	}
}

// voices are the names whose turns answer a question: every name it uses,
// but of two speakers not joined by "and" or "or" only the first, the one
// it asks about ("what did Jon say about Gina's store?", "what book did
// Tim recommend to John?"): what the other said mostly answers nothing.
// On LoCoMo's development split 42 of such questions' 47 evidence turns
// are the first speaker's.
func voices(q string, names, speakers []string) []string {
	if len(speakers) < 2 {
		return names
	}
	first, joined := "", true
	for _, f := range strings.FieldsFunc(q, func(r rune) bool { return !text.IsWordRune(r) && r != '\'' && r != '’' }) {
		w := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s"))
		switch {
		case first == "" && slices.Contains(speakers, w):
			first = w
		case first == "":
		case slices.Contains(speakers, w):
			if joined {
				return names
			}
			return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n != first && slices.Contains(speakers, n) })
		case w != "and" && w != "or" && w != "both":
			joined = false
		}
	}
	return names
}

// speakerNames are the names that are the first word of a hit's role.
func speakerNames(names []string, hits []store.MemoryHit) []string {
	var out []string
	for _, n := range names {
		for _, h := range hits {
			if strings.EqualFold(firstWord(h.Role), n) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool { return !text.IsWordRune(r) }); i >= 0 {
		return s[:i]
	}
	return s
}

func without(words, drop []string) []string { return withoutBy(words, drop, stem) }

// withoutSpelt is without by the words as spelt, a variant not dropped
// for its other word: a topic's member "mobile" is searched as a member
// though the question says "phone", for the names the members' hits give
// it (namedMembers: "Tallyho Mobile").
func withoutSpelt(words, drop []string) []string { return withoutBy(words, drop, plainStem) }

func withoutBy(words, drop []string, stem func(string) string) []string {
	var out []string
	for _, w := range words {
		keep := true
		for _, d := range drop {
			if w == d || stem(w) == stem(d) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, w)
		}
	}
	return out
}

func dedupe(words []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func containsFold(list []string, w string) bool {
	for _, x := range list {
		if strings.EqualFold(x, w) || strings.EqualFold(firstWord(x), w) {
			return true
		}
	}
	return false
}

// namesAny reports whether s contains any of names as a word.
func namesAny(s string, names []string) bool {
	for _, w := range text.Words(s) {
		for _, n := range names {
			if strings.EqualFold(w, n) {
				return true
			}
		}
	}
	return false
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// coverage is the share of the query's words the text holds.
func coverage(words []string, s string) float64 { return coverageDefined(words, s, nil) }

// coverageDefined is coverage where a word the item holds only by a word
// of its definition counts for definitionCredit.
func coverageDefined(words []string, s string, defs map[string][]string) float64 {
	if len(words) == 0 {
		return 0
	}
	return heldShare(words, stemsOf(s), defs)
}

// stemsOf is the stems of s's words: what heldShare reads, made once for a
// text scored several ways.
func stemsOf(s string) stemList { return stemsOfWords(text.Words(s), stem) }

// stemList is the stems of a text's words, in the text's order. heldShare
// asks them only whether they hold the question's few words, so a list
// serves as well as a set and costs one allocation a text instead of a
// map's several (a question reads hundreds of texts).
type stemList []string

// has reports whether st is one of s.
func (s stemList) has(st string) bool { return slices.Contains(s, st) }

// stemsOfWords is the stems of words; stemOf is stem, or what a ranker
// remembers of it (ranker.stem).
func stemsOfWords(words []string, stemOf func(string) string) stemList {
	have := make(stemList, len(words))
	for i, w := range words {
		have[i] = stemOf(w)
	}
	return have
}

// heldShare is coverageDefined of the text whose stems are have.
func heldShare(words []string, have stemList, defs map[string][]string) float64 {
	if len(words) == 0 {
		return 0
	}
	n := 0.0
	for _, w := range words {
		if have.has(stem(w)) {
			n++
			continue
		}
		for _, d := range defs[w] {
			if have.has(stem(d)) {
				n += definitionCredit
				break
			}
		}
	}
	return n / float64(len(words))
}

// stem is a light English suffix stripper: close enough to the index's
// Porter stemmer to tell whether a word occurs in a text. A plural's "s"
// goes first, and then the word is stripped as its singular is, so both
// forms have one stem ("sundays" and "sunday", "plays" and "play"). An
// everyday variant is stemmed as its thing's one name (kinds.Variant): a
// text saying "telly" holds the question's "TV".
func stem(w string) string { return plainStem(kinds.Variant(w)) }

// plainStem is stem of w as spelt.
func plainStem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "ies") &&
		!strings.HasSuffix(w, "es") {
		w = w[:len(w)-1]
	}
	for _, suf := range stemSuffixes {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) && !(suf == "s" && strings.HasSuffix(w, "ss")) {
			return undouble(w[:len(w)-len(suf)], suf)
		}
	}
	return w
}

// undouble is base, cut of suf, without the "m" its ending doubled:
// "swimming", "drumming", "trimmed" → swim, drum, trim, as Porter's stemmer
// undoubles. Only "m": undoubling every consonant (running, shopping,
// jogging) cost a LoCoMo development question at R@10, and an agent's
// "-er" keeps it (a ski runner is no run).
func undouble(base, suf string) string {
	switch suf {
	case "ing", "ings", "ed":
	default:
		return base
	}
	if n := len(base); n >= 3 && base[n-1] == 'm' && base[n-2] == 'm' {
		return base[:n-1]
	}
	return base
}

var stemSuffixes = []string{"ational", "ization", "iveness", "fulness", "ousness", "ations", "ation", "ities", "ity",
	"ments", "ment", "ness", "ings", "ing", "ied", "ies", "ers", "er", "ed", "es", "ly", "s", "e", "y", "i"}

// feedback picks words that recur among the best hits (pseudo-relevance
// feedback), rarest in the candidate set first; termsOf is text.Terms, or
// what a ranker remembers of it (analysed.terms).
func feedback(hits []store.MemoryHit, termsOf func(string) []string, words, skip []string, docs, n int) []string {
	if len(hits) == 0 || n <= 0 {
		return nil
	}
	df := map[string]int{}
	tf := map[string]float64{}
	for i, h := range hits {
		for _, w := range termsOf(h.Text) { // each once: terms are unique
			df[w]++
			if i < docs {
				tf[w] += 1 / float64(i+1)
			}
		}
	}
	q := map[string]bool{}
	for _, w := range append(append([]string{}, words...), skip...) {
		q[stem(w)] = true
	}
	type sc struct {
		w string
		s float64
	}
	var list []sc
	total := float64(len(hits))
	for w, f := range tf {
		if q[stem(w)] || len(w) < 3 || isNumber(w) {
			continue
		}
		idf := math.Log(1 + total/float64(df[w]))
		list = append(list, sc{w, f * idf})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].s != list[j].s {
			return list[i].s > list[j].s
		}
		return list[i].w < list[j].w
	})
	var out []string
	for i := 0; i < len(list) && len(out) < n; i++ {
		out = append(out, list[i].w)
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
