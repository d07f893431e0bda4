package capture

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// extractor holds one Extract call's working state.
type extractor struct {
	s         string
	toks      []token
	shouting  bool
	ents      []Entity
	nameWords wordSet // lowercase pieces of names, kept out of topics
	hasMoney  bool
	hasWhen   bool // a date or a time

	// For long texts, how each word is seen, keyed by its lowercase form
	// without a possessive; short texts are scanned instead, which is cheaper
	// than building a map.
	seen map[string]seenAs
}

type seenAs struct{ lowercase, capitalisedMidSentence bool }

// wordSet is a set of words that stays a slice while small, since most
// texts name a handful of people, and becomes a map when a long one names
// many, so lookups stay cheap either way.
type wordSet struct {
	list []string
	m    map[string]struct{}
}

func (s *wordSet) add(w string) {
	switch {
	case s.m != nil:
		s.m[w] = struct{}{}
	case !slices.Contains(s.list, w):
		s.list = append(s.list, w)
		if len(s.list) > 16 {
			s.m = make(map[string]struct{}, 2*len(s.list))
			for _, x := range s.list {
				s.m[x] = struct{}{}
			}
			s.list = nil
		}
	}
}

func (s *wordSet) has(w string) bool {
	if s.m != nil {
		_, ok := s.m[w]
		return ok
	}
	return slices.Contains(s.list, w)
}

// longText is where building the seen map starts to beat scanning.
const longText = 200

// findEntities walks the tokens once, left to right, trying the recognisers
// in order of specificity at each one, so entities come out in the order
// they appear and a token belongs to at most one entity.
func (e *extractor) findEntities() {
	for k := 0; k < len(e.toks); {
		typ, from, to, next := e.match(k)
		if to > from {
			e.add(typ, from, to)
		}
		k = max(next, k+1)
	}
}

// match returns the entity at token k as the tokens [from, to), empty when
// there is none, and the token to look at next.
func (e *extractor) match(k int) (typ string, from, to, next int) {
	t := &e.toks[k]
	switch t.kind {
	case link:
		return TypeURL, k, k + 1, k + 1
	case mail:
		return TypeEmail, k, k + 1, k + 1
	case handle:
		return TypeHandle, k, k + 1, k + 1
	case punct:
		if n := e.money(k); n > 0 {
			return TypeMoney, k, k + n, k + n
		}
		return "", k, k, k + 1
	}
	if n := e.date(k); n > 0 {
		return TypeDate, k, k + n, k + n
	}
	if n := e.clock(k); n > 0 {
		return TypeTime, k, k + n, k + n
	}
	if n := e.money(k); n > 0 {
		return TypeMoney, k, k + n, k + n
	}
	if n := e.code(k); n > 0 {
		return TypeCode, k, k + n, k + n
	}
	from, to, next = e.name(k)
	return TypeName, from, to, next
}

func (e *extractor) add(typ string, from, to int) {
	for k := from; k < to; k++ {
		e.toks[k].used = true
	}
	s := e.s[e.toks[from].start:e.toks[to-1].end]
	switch typ {
	case TypeName:
		if e.possessive(to - 1) {
			s = trimPossessive(s)
		}
		for k := from; k < to; k++ {
			if t := &e.toks[k]; !t.joined {
				e.nameWords.add(t.base)
				continue
			}
			for p, rest := text.NextWord(e.toks[k].base); p != ""; p, rest = text.NextWord(rest) {
				e.nameWords.add(p)
			}
		}
	case TypeMoney:
		e.hasMoney = true
	case TypeDate, TypeTime:
		e.hasWhen = true
	}
	s = collapseSpace(s)
	if len(e.ents) >= maxEntities {
		return
	}
	for _, x := range e.ents {
		if strings.EqualFold(x.Text, s) {
			return
		}
	}
	e.ents = append(e.ents, Entity{Text: s, Type: typ})
}

// word reports whether token j exists and is a word on the same line as the
// token before it.
func (e *extractor) word(j int) bool {
	return j < len(e.toks) && e.toks[j].kind == word && !e.toks[j].newline
}

// is reports whether token j is a word in class c.
func (e *extractor) is(j int, c class) bool {
	return j >= 0 && j < len(e.toks) && e.toks[j].kind == word && e.toks[j].cls&c != 0
}

// punctAt reports whether token j is the punctuation p written right after
// the token before it.
func (e *extractor) punctAt(j int, p string) bool {
	return j < len(e.toks) && e.toks[j].kind == punct && e.toks[j].text == p && !e.toks[j].space
}

// date matches "2026-02-01", "01/02/2026", "Feb 1", "March 3rd, 2026",
// "1 February 2026", "3rd of March", "March 2026", a capitalised month,
// "yesterday", "tomorrow", "next Tuesday", "last week", a weekday, and a year
// after a preposition ("since 2019"). It returns the number of tokens.
func (e *extractor) date(k int) int {
	t := &e.toks[k]
	low := t.low
	if isNumericDate(low) {
		return 1
	}
	if t.cls&(monthName|monthAbbreviation) != 0 && low == t.base {
		full := t.cls&monthName != 0
		j := k + 1
		if !full && e.punctAt(j, ".") {
			j++
		}
		if e.word(j) {
			if isDay(e.toks[j].low) {
				return e.withYear(j+1) - k
			}
			if isYear(e.toks[j].low) {
				return j + 1 - k
			}
		}
		// A month alone is a date only when it cannot be something else:
		// capitalised, and "May" only after a preposition ("in May").
		if full && t.capital && (low != "may" || e.is(k-1, yearPreposition)) {
			return 1
		}
		return 0
	}
	if isDay(low) {
		j := k + 1
		if e.word(j) && e.toks[j].low == "of" && !isAllDigits(low) {
			j++ // "3rd of March", but not "3 of March"
		}
		if e.word(j) && e.is(j, monthName|monthAbbreviation) {
			end := j + 1
			if e.is(j, monthAbbreviation) && e.punctAt(end, ".") {
				end++
			}
			return e.withYear(end) - k
		}
		return 0
	}
	switch low {
	case "yesterday", "tomorrow":
		// "today" and "tonight" are left out: they mean the memory's own
		// timestamp, which recall already has.
		return 1
	case "next", "last", "this", "coming":
		if e.word(k+1) && e.is(k+1, weekday|relativeUnit|monthName) {
			return 2
		}
	}
	if t.cls&weekday != 0 {
		// "Tuesday 3 February 2026", "Friday, Feb 6": one date, not two.
		j := k + 1
		if e.punctAt(j, ",") {
			j++
		}
		if e.word(j) && (isDay(e.toks[j].low) || e.is(j, monthName|monthAbbreviation)) {
			if n := e.date(j); n > 0 && e.toks[j].cls&weekday == 0 {
				return j + n - k
			}
		}
		return 1
	}
	if isYear(low) && e.is(k-1, yearPreposition) {
		return 1
	}
	return 0
}

// withYear extends a date ending before token end with a year: " 2026" or ", 2026".
func (e *extractor) withYear(end int) int {
	j := end
	if e.punctAt(j, ",") {
		j++
	}
	if e.word(j) && isYear(e.toks[j].low) {
		return j + 1
	}
	return end
}

// clock matches "14:30", "10:30-11:00", "9:15 am", "3pm", "3 p.m.",
// "5 o'clock", "noon" and "midnight". It returns the number of tokens.
func (e *extractor) clock(k int) int {
	low := e.toks[k].low
	if low == "noon" || low == "midnight" {
		return 1
	}
	if rest, ok := clockPrefix(low); ok {
		switch rest {
		case "":
			return 1 + e.meridiem(k+1)
		case "am", "pm":
			return 1
		}
		if strings.HasPrefix(rest, "-") { // a range: "10:30-11:00"
			if end, ok := clockPrefix(rest[1:]); ok && (end == "" || end == "am" || end == "pm") {
				return 1
			}
		}
		return 0
	}
	h, rest := leadingNumber(low)
	if h < 1 || h > 12 {
		return 0
	}
	switch rest {
	case "am", "pm":
		return 1
	case "":
		if n := e.meridiem(k + 1); n > 0 {
			return 1 + n
		}
		if e.word(k+1) && e.toks[k+1].low == "o'clock" {
			return 2
		}
	}
	return 0
}

// meridiem returns how many tokens from j spell am or pm: "pm", "p.m" or "p.m.".
func (e *extractor) meridiem(j int) int {
	if !e.word(j) {
		return 0
	}
	switch e.toks[j].low {
	case "am", "pm":
		return 1
	case "a.m", "p.m":
		if e.punctAt(j+1, ".") {
			return 2
		}
		return 1
	}
	return 0
}

// money matches "$12.50", "€30", "$5k", "$3 million", "30 €", "30 EUR",
// "1,200 dollars", "1.2 million euros" and "USD 30". It returns the number
// of tokens.
func (e *extractor) money(k int) int {
	t := &e.toks[k]
	if t.kind == punct {
		if isCurrencySymbol(t.text) && e.word(k+1) && isAmount(e.toks[k+1].low) {
			return e.withScale(k+2) - k
		}
		return 0
	}
	if isAmount(t.low) {
		j := e.withScale(k + 1)
		if j >= len(e.toks) || e.toks[j].newline {
			return 0
		}
		switch nt := &e.toks[j]; nt.kind {
		case punct:
			// "30 €", unless the symbol opens the next amount: "5 $10".
			if isCurrencySymbol(nt.text) && !(e.word(j+1) && !e.toks[j+1].space && isAmount(e.toks[j+1].low)) {
				return j + 1 - k
			}
		case word:
			if nt.cls&currencyWord != 0 || nt.cls&currencyCode != 0 && isUpperASCII(nt.text) {
				return j + 1 - k
			}
		}
		return 0
	}
	if t.cls&currencyCode != 0 && isUpperASCII(t.text) && e.word(k+1) && isAmount(e.toks[k+1].low) {
		return e.withScale(k+2) - k
	}
	return 0
}

// withScale extends an amount ending before token j with "million" and the like.
func (e *extractor) withScale(j int) int {
	if e.word(j) && e.is(j, scaleWord) {
		return j + 1
	}
	return j
}

// code matches ticket keys ("JIRA-123", "CVE-2024-1234"), versions ("v2.3.1",
// "1.4.2"), capitals with digits ("ABC123", "MP3") and a capitalised
// standard name with a number ("RFC 3339", "ISO 8601"). It returns the number
// of tokens.
func (e *extractor) code(k int) int {
	t := &e.toks[k]
	if isTicket(t.text) || isVersion(t.text) || isDottedNumber(t.text) || isCapsWithDigits(t.text) {
		return 1
	}
	if !e.shouting && isCapsWord(t.text) && t.cls&(stopword|filler|currencyCode) == 0 &&
		e.word(k+1) && isPlainNumber(e.toks[k+1].text) {
		return 2
	}
	return 0
}

// name matches a run of capitalised words ("Alice", "Bob Smith", "Bank of
// England") at k. It returns the part of the run that is a name as [from,
// to), possibly empty, and the token after the run.
//
// A capital letter means little at the start of a sentence, so there the
// first word must earn its place: it is dropped when it is a stopword or a
// filler ("The", "Thanks"), and when it is a common noun, looks inflected
// ("Discussed", "Meeting") or is written in lowercase elsewhere, unless it is
// also capitalised mid-sentence somewhere. A name of one word at the start of
// a sentence also needs a sign of being someone: a possessive, a verb or
// comma after it ("Alice is", "Bob said", "Carol,"), or "Name:" opening a line.
func (e *extractor) name(k int) (from, to, next int) {
	if !e.isNameWord(k) {
		return k, k, k + 1
	}
	end := k + 1
	for end < len(e.toks) && !e.possessive(end-1) {
		if e.startsOther(end) { // "On Jan 14", "See RFC 3339": the date or code wins
			break
		}
		if e.word(end) && e.isNameWord(end) {
			end++
			continue
		}
		if e.word(end) && e.is(end, connector) && e.word(end+1) && e.isNameWord(end+1) {
			end += 2
			continue
		}
		break
	}
	from, to = k, end
	initial := e.toks[k].initial
trim:
	for from < to {
		t := &e.toks[from]
		switch {
		case t.cls&(stopword|filler) != 0:
			initial = false // "Thanks Bob": Bob no longer opens the sentence
		case t.cls&connector != 0:
		case initial && e.common(from):
			// The next word opens the sentence now, unless the opener is
			// a verb done to someone: "Interviewed Rosa" names Rosa,
			// "Discussed Budget" is a heading.
			initial = !e.is(from, personVerb)
		default:
			break trim
		}
		from++
	}
	for to > from {
		if e.toks[to-1].cls&(stopword|filler|connector) == 0 {
			break
		}
		to--
	}
	if to-from == 1 && initial && !e.nameEvidence(from) {
		to = from
	}
	return from, to, end
}

// startsOther reports whether an entity other than a name starts at token k.
func (e *extractor) startsOther(k int) bool {
	return e.date(k) > 0 || e.money(k) > 0 || e.code(k) > 0
}

// isNameWord reports whether token k can be part of a name: a word starting
// with a capital that has small letters after it, or an acronym of two to six
// capitals when the text is not shouted. Words with digits are codes,
// contractions ("I'm") are not names, and months and weekdays are dates.
func (e *extractor) isNameWord(k int) bool {
	if k >= len(e.toks) {
		return false
	}
	t := &e.toks[k]
	switch {
	case t.kind != word || !t.capital || t.digit || isContraction(t.base):
		return false
	case t.cls&weekday != 0 || t.cls&monthName != 0 && t.base != "may":
		return false
	case t.lower > 0:
		return true
	}
	return !e.shouting && t.upper >= 2 && t.upper <= 6
}

func (e *extractor) possessive(k int) bool {
	return e.toks[k].kind == word && e.toks[k].base != e.toks[k].low
}

// common reports whether the sentence-initial word k is more likely an
// ordinary word than a name: a common noun, an opener verb, an inflected form, or a word
// written in lowercase elsewhere, unless it is also capitalised mid-sentence
// somewhere.
func (e *extractor) common(k int) bool {
	t := &e.toks[k]
	seen := e.seenAs(k)
	if seen.capitalisedMidSentence {
		return false
	}
	return t.cls&(commonNoun|openerVerb) != 0 || looksInflected(t.base) || seen.lowercase
}

// seenAs reports how the word at token k is written elsewhere.
func (e *extractor) seenAs(k int) seenAs {
	base := e.toks[k].base
	if len(e.toks) >= longText {
		if e.seen == nil {
			e.seen = make(map[string]seenAs)
			for j := range e.toks {
				if t := &e.toks[j]; t.kind == word {
					e.seen[t.base] = e.seen[t.base].with(t)
				}
			}
		}
		// Token k itself, capitalised at the start of a sentence, counts as
		// neither, so it cannot have changed the entry.
		return e.seen[base]
	}
	var s seenAs
	for j := range e.toks {
		if t := &e.toks[j]; j != k && t.kind == word && t.base == base {
			s = s.with(t)
		}
	}
	return s
}

func (s seenAs) with(t *token) seenAs {
	r, _ := utf8.DecodeRuneInString(t.text)
	switch {
	case unicode.IsLower(r):
		s.lowercase = true
	case t.capital && !t.initial:
		s.capitalisedMidSentence = true
	}
	return s
}

// nameEvidence reports whether the lone capitalised word k that opens a
// sentence shows a sign of naming someone.
func (e *extractor) nameEvidence(k int) bool {
	if e.possessive(k) || e.seenAs(k).capitalisedMidSentence {
		return true
	}
	j := k + 1
	if j >= len(e.toks) || e.toks[j].newline {
		return false
	}
	nt := &e.toks[j]
	switch nt.kind {
	case punct:
		switch nt.text {
		case ",":
			return true
		case ":":
			return e.toks[k].lineFirst // "Alice: ..." at the start of a line is a speaker
		}
	case word:
		if nt.low == "and" || nt.low == "or" {
			return e.word(j+1) && e.isNameWord(j+1)
		}
		if looksPlural(e.toks[k].base) {
			// "Timestamps must", "Tests failed": a plural noun takes the same
			// verbs as a name, except the singular ones.
			switch nt.low {
			case "is", "was", "has", "does", "isn't", "wasn't", "hasn't", "doesn't":
				return true
			}
			return !nt.capital && nt.lower > 0 && strings.HasSuffix(nt.low, "s") && looksLikeVerb(nt.low)
		}
		if nt.cls&nameVerb != 0 || e.qualifiedPerson(j) {
			return true
		}
		return !nt.capital && nt.lower > 0 && nt.base == nt.low && looksLikeVerb(nt.low)
	}
	return false
}

// qualifiedPerson reports whether token j, after a lone capitalised word
// opening a sentence, starts a phrase saying which person it is, with the
// verb after it: "Pete from payroll needs", "Lorna on the tills wants".
func (e *extractor) qualifiedPerson(j int) bool {
	switch e.toks[j].low {
	case "from", "on", "at", "in", "with":
	default:
		return false
	}
	for i := j + 1; i < len(e.toks) && i <= j+4; i++ {
		t := &e.toks[i]
		if t.kind != word || t.newline {
			return false
		}
		if i > j+1 && !t.capital && t.lower > 0 && t.base == t.low && looksLikeVerb(t.low) {
			return true
		}
	}
	return false
}

// looksPlural reports whether a word looks like an English plural:
// "timestamps", but not "boss", "status", "paris" or "lucas".
func looksPlural(low string) bool {
	if len(low) < 4 || !strings.HasSuffix(low, "s") {
		return false
	}
	switch low[len(low)-2] {
	case 's', 'u', 'i', 'a':
		return false
	}
	return true
}

// looksInflected reports whether a word looks like a past tense, a gerund
// or an adverb, which opens sentences far more often than a name does.
func looksInflected(low string) bool {
	n := len(low)
	switch {
	case n >= 5 && (strings.HasSuffix(low, "ed") || strings.HasSuffix(low, "ing")):
		return true
	case n >= 6:
		for _, suf := range []string{"ally", "ully", "ously", "ively", "ately", "ently", "antly", "ably", "ibly", "ainly", "ctly", "ckly", "ardly"} {
			if strings.HasSuffix(low, suf) {
				return true
			}
		}
	}
	return false
}

// looksLikeVerb reports whether a lowercase word after a name looks like a
// verb in the third person or the past: "prefers", "mentioned".
func looksLikeVerb(low string) bool {
	n := len(low)
	switch {
	case n >= 4 && strings.HasSuffix(low, "ed"):
		return true
	case n >= 3 && strings.HasSuffix(low, "s"):
		return !strings.HasSuffix(low, "ss") && !strings.HasSuffix(low, "us") && !strings.HasSuffix(low, "is")
	}
	return false
}
