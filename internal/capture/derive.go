package capture

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// summarize returns the first sentence of s that has a word in it, as one
// line of at most maxSummary characters, cut at a word boundary with "…"
// when longer. Markdown heading, quote and list markers are dropped from its
// start. With no such sentence it returns the whole text on one line.
func summarize(s string) string {
	for rest := s; ; {
		rest = strings.TrimLeftFunc(rest, isBlank)
		if rest == "" {
			break
		}
		end, next := sentenceEnd(rest)
		if line := collapseSpace(stripMarkers(rest[:end])); strings.ContainsFunc(line, text.IsWordRune) {
			return shorten(line)
		}
		rest = rest[next:]
	}
	return shorten(collapseSpace(s))
}

// Sentences splits s into its sentences as summarize sees them: each on one
// line, Markdown markers dropped, those without a word left out.
func Sentences(s string) []string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var out []string
	for rest := s; ; {
		rest = strings.TrimLeftFunc(rest, isBlank)
		if rest == "" {
			return out
		}
		end, next := sentenceEnd(rest)
		if line := collapseSpace(stripMarkers(rest[:end])); strings.ContainsFunc(line, text.IsWordRune) {
			out = append(out, line)
		}
		rest = rest[next:]
	}
}

func isBlank(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// sentenceEnd returns where the sentence s starts with ends (closing quotes
// and brackets included) and where the next one starts. A sentence ends at
// . ! ? or … followed by a space or the end, except after an abbreviation
// or an initial; at a blank line; and at a line break unless the next line
// starts in lowercase, which is a hard-wrapped sentence going on. A heading
// ends at its line break.
func sentenceEnd(s string) (end, next int) {
	heading := s[0] == '#'
	for i := 0; i < len(s); {
		r, w := decode(s, i)
		switch r {
		case '\n', '\r', '\u2028', '\u2029':
			if heading || lineBreakEnds(s[i+w:]) {
				return i, i + w
			}
		case '.', '!', '?', '…', '。', '！', '？':
			j := i + w
			for j < len(s) {
				r2, w2 := decode(s, j)
				if !strings.ContainsRune(".!?…\"'”’)]»", r2) {
					break
				}
				j += w2
			}
			if next, _ := utf8.DecodeRuneInString(s[j:]); j == len(s) || r >= '。' || isBlank(next) {
				if r != '.' || j > i+w || !abbreviationBefore(s[:i]) {
					return j, j
				}
			}
			i = j
			continue
		}
		i += w
	}
	return len(s), len(s)
}

// lineBreakEnds reports whether a line break followed by rest ends a sentence.
func lineBreakEnds(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// abbreviationBefore reports whether s ends with an abbreviation or initial
// that a following period belongs to.
func abbreviationBefore(s string) bool {
	i := len(s)
	for i > 0 {
		r, w := utf8.DecodeLastRuneInString(s[:i])
		if !text.IsWordRune(r) && r != '.' {
			break
		}
		i -= w
	}
	w := s[i:]
	if w == "" {
		return false
	}
	if r, n := utf8.DecodeRuneInString(w); n == len(w) {
		return unicode.IsUpper(r)
	}
	return len(w) <= 6 && lexicon[strings.ToLower(w)]&abbreviation != 0
}

// stripMarkers removes Markdown heading, quote and list markers from the
// start of s: "## ", "> ", "- ", "* ", "1. ".
func stripMarkers(s string) string {
	for {
		t := strings.TrimLeftFunc(s, isBlank)
		u := strings.TrimLeft(t, "#>-*+•–—")
		if u == t {
			if n, rest := leadingNumber(t); n >= 0 && rest != "" && (rest[0] == '.' || rest[0] == ')') {
				u = rest[1:]
			}
		}
		if r, _ := utf8.DecodeRuneInString(u); u == t || u != "" && !isBlank(r) {
			return t
		}
		s = u
	}
}

// shorten cuts s to at most maxSummary characters, "…" included, at a word
// boundary unless that would lose more than half of it.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	cut := 0
	for range maxSummary - 1 {
		_, w := utf8.DecodeRuneInString(s[cut:])
		cut += w
	}
	head := s[:cut]
	if s[cut] != ' ' {
		if sp := strings.LastIndexByte(head, ' '); sp > len(head)/2 {
			head = head[:sp]
		}
	}
	head = strings.TrimRightFunc(head, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:-–—([{", r)
	})
	return head + "…"
}

// topics returns up to maxTopics keywords: lowercase words outside entities
// that are not stopwords, fillers, dates or numbers. Each scores 6 per
// occurrence plus 1 per character up to 8, less 4 for a past tense or an
// adverb, so a word said twice beats any word said once, and among those
// said as often the longer, rarer-looking noun wins. Ties go to the word
// seen first.
func (e *extractor) topics() []string {
	type candidate struct {
		word               string
		count, first, size int
	}
	var (
		cands = make([]candidate, 0, 32)
		index map[string]int // built once cands outgrows a linear search
	)
	consider := func(w string, cls class) {
		if !e.topical(w, cls) {
			return
		}
		i := -1
		if index != nil {
			if j, ok := index[w]; ok {
				i = j
			}
		} else {
			i = slices.IndexFunc(cands, func(c candidate) bool { return c.word == w })
		}
		if i >= 0 {
			cands[i].count++
			return
		}
		size := min(utf8.RuneCountInString(w), 8)
		if looksInflected(w) && !strings.HasSuffix(w, "ing") || len(w) >= 5 && strings.HasSuffix(w, "ly") {
			size -= 4 // "suggested", "roughly": verbs and adverbs make poor topics
		}
		cands = append(cands, candidate{word: w, count: 1, first: len(cands), size: size})
		if index != nil {
			index[w] = len(cands) - 1
		} else if len(cands) > 32 {
			index = make(map[string]int, 2*len(cands))
			for j, c := range cands {
				index[c.word] = j
			}
		}
	}
	for k := range e.toks {
		t := &e.toks[k]
		switch {
		case t.kind != word || t.used:
		case !t.joined:
			consider(t.low, t.cls) // the common case: the token is one word, already looked up
		default:
			for w, rest := text.NextWord(t.low); w != ""; w, rest = text.NextWord(rest) {
				consider(w, lexicon[w])
			}
		}
	}
	// Keep the best maxTopics in order by insertion: cheaper than sorting
	// every candidate to use five.
	score := func(c candidate) int { return 6*c.count + c.size }
	better := func(a, b candidate) bool {
		return score(a) > score(b) || score(a) == score(b) && a.first < b.first
	}
	best := make([]candidate, 0, maxTopics)
	for _, c := range cands {
		i := len(best)
		for i > 0 && better(c, best[i-1]) {
			i--
		}
		if i == maxTopics {
			continue
		}
		if len(best) < maxTopics {
			best = append(best, candidate{})
		}
		copy(best[i+1:], best[i:len(best)-1]) // the last falls off a full list
		best[i] = c
	}
	topics := make([]string, len(best))
	for i, c := range best {
		topics[i] = c.word
	}
	return topics
}

// topical reports whether the lowercase word w, in lexicon classes cls, can
// be a topic.
func (e *extractor) topical(w string, cls class) bool {
	n := utf8.RuneCountInString(w)
	if n < 3 || n > 24 { // longer is a hash, a blob or an unsegmented script
		return false
	}
	const notTopics = stopword | filler | vague | smallTalkWord | weekday | relativeUnit | monthName | monthAbbreviation
	if cls&notTopics != 0 {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsMark(r) {
			return false
		}
	}
	return !e.nameWords.has(w)
}

// Importance weights. The client sets importance when it knows better; these
// guess what a person would want kept. Each category counts once, however
// often its markers appear, so repeating "important" does not inflate it.
const (
	baseImportance = 0.5
	minImportance  = 0.05 // never 0: everything stored was worth storing once
	maxImportance  = 1.0

	wSafety     = 0.30  // allergies: forgetting one can hurt someone
	wEmphasis   = 0.15  // the writer says so: remember, important, always, never, must, don't forget
	wObligation = 0.15  // secrets and commitments: password, deadline, due
	wDecision   = 0.15  // decided, agreed, chose, we will, we'll
	wPreference = 0.10  // prefer, favourite, love, hate
	wMoney      = 0.10  // an amount of money
	wWhen       = 0.10  // a date or time: plans and deadlines
	wChatShort  = -0.30 // a greeting or thanks that is all the message says (six words or fewer)
	wChat       = -0.10 // pleasantries around something longer
	wTrivial    = -0.15 // four words or fewer, with no entity and none of the markers above
)

// importance scores the memory from its words and entities; see the weights
// above. Text without a word or a link, such as an emoji alone, scores the
// minimum.
func (e *extractor) importance() float64 {
	var (
		words                                                                int
		safety, hasEmphasis, hasObligation, hasDecision, hasPreference, chat bool
		prev                                                                 string
	)
	for k := range e.toks {
		t := &e.toks[k]
		if t.kind != word {
			if t.kind != punct {
				words++ // a link, an address or a handle says something
			}
			continue
		}
		words++
		w, next := t.low, ""
		if e.word(k + 1) {
			next = e.toks[k+1].low
		}
		c := t.cls
		if t.base != w {
			c = 0 // "love's" is not "love"
		}
		switch {
		case strings.HasPrefix(w, "allerg") || strings.HasPrefix(w, "anaphyla") || w == "epipen":
			safety = true
		case c&emphasis != 0 || w == "forget" && (prev == "don't" || prev == "dont" || prev == "not"):
			hasEmphasis = true
		case w == "due":
			hasObligation = hasObligation || next != "to" // "due Friday", not "due to rain"
		case c&obligation != 0:
			hasObligation = true
		case c&decision != 0 || w == "will" && prev == "we":
			hasDecision = true
		case c&preference != 0:
			hasPreference = true
		case c&smallTalkWord != 0 || w == "thank" && next == "you" ||
			w == "good" && (next == "morning" || next == "night" || next == "evening" || next == "afternoon"):
			chat = true
		}
		prev = w
	}
	if words == 0 {
		return minImportance
	}
	x := baseImportance
	for _, c := range []struct {
		on bool
		w  float64
	}{
		{safety, wSafety}, {hasEmphasis, wEmphasis}, {hasObligation, wObligation},
		{hasDecision, wDecision}, {hasPreference, wPreference}, {e.hasMoney, wMoney},
		{e.hasWhen, wWhen}, {chat && words <= 6, wChatShort}, {chat && words > 6, wChat},
		{words <= 4 && len(e.ents) == 0 && !(safety || hasEmphasis || hasObligation || hasDecision || hasPreference), wTrivial},
	} {
		if c.on {
			x += c.w
		}
	}
	x = min(max(x, minImportance), maxImportance)
	return math.Round(x*100) / 100
}
