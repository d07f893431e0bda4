package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// Person precision: a question that names a person ("What did Priya think
// of the offer?") is not answered by what is about someone else ("Tom
// thinks the offer is fair: 850k"), though it shares the day and the words.
// An item is about someone else when it names a name the question does
// not and none of the people it asks about; such items are left out when
// anything else reaches the floor, and a day record offers only its
// sentences that are not.

// peopleNamed are the people q names, lowercased: its proper names but a
// weekday or month, and those after an article or a possessive ("the
// Harland offer", "our LGBTQ group"), which name a thing.
func peopleNamed(q string) []string {
	var out []string
	eachName(q, func(name, prev string) {
		if !thingBefore(prev) && !calendarWord(name) {
			out = append(out, name)
		}
	})
	return dedupe(out)
}

func thingBefore(w string) bool {
	switch w {
	case "the", "a", "an", "this", "that", "my", "our", "your", "his", "her", "their", "its":
		return true
	}
	return false
}

// calendar are the weekday and month names, full and short.
var calendar = func() map[string]bool {
	m := map[string]bool{}
	for _, names := range [][]string{when.WeekdayNames(), when.MonthNames(), when.MonthAbbreviations()} {
		for _, n := range names {
			m[n] = true
		}
	}
	return m
}()

// calendarWord reports whether w, lowercase, names a weekday ("Fridays"
// too) or a month.
func calendarWord(w string) bool { return calendar[w] || calendar[strings.TrimSuffix(w, "s")] }

// aboutOthers reports whether names, an item's, hold a name the question
// does not use and none of the people it asks about.
func (r *ranker) aboutOthers(names []string) bool {
	if len(r.people) == 0 {
		return false
	}
	other := false
	for _, n := range names {
		if namesOneOf(n, r.people) {
			return false
		}
		if !namesOneOf(n, r.names) {
			other = true
		}
	}
	return other
}

// namesOneOf reports whether a word of the name n is one of names or the
// short form of one ("Mel" for Melanie) or its long form.
func namesOneOf(n string, names []string) bool {
	for _, w := range text.Words(n) {
		w = strings.ToLower(w)
		for _, p := range names {
			if w == p || len(w) >= 3 && len(p) >= 3 && (strings.HasPrefix(p, w) || strings.HasPrefix(w, p)) {
				return true
			}
		}
	}
	return false
}

// candNames are the names a memory or fact holds (known: the names met
// among the candidates, see namesIn): a memory's as its extractor found
// them, a fact's in its text. A day record's sentences are sorted when it
// is made (daySentences).
func candNames(c *cand, known map[string]bool) []string {
	if c.hit.Kind == "fact" {
		return namesIn(c.hit.Text, known)
	}
	var out []string
	for _, e := range c.entities.Texts() {
		if nameLike(e) {
			out = append(out, e)
		}
	}
	for _, old := range c.standsFor { // the successor of what named them: "actually, make it Friday"
		out = append(out, namesIn(old, known)...)
	}
	return append(out, knownIn(c.hit.Text, known)...)
}

// namesIn are the names s holds: those capture finds, and the words
// written with a capital that are names elsewhere (known), which capture
// cannot tell from another word opening a sentence ("Tom sent his figures").
func namesIn(s string, known map[string]bool) []string {
	return append(capture.Names(s), knownIn(s, known)...)
}

// knownIn are the words of s written with a capital that are known names.
func knownIn(s string, known map[string]bool) []string {
	var out []string
	for w, rest := text.NextWord(s); w != ""; w, rest = text.NextWord(rest) {
		if startsUpper(w) && known[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return out
}

// knownNames are the words of the names the candidates' extractor found
// and of the people the question names, lowercased.
func (r *ranker) knownNames() map[string]bool {
	known := map[string]bool{}
	for _, p := range r.people {
		known[p] = true
	}
	for _, c := range r.cands {
		for _, e := range c.entities.Texts() {
			if nameLike(e) {
				for _, w := range text.Words(e) {
					known[w] = !text.IsStopword(w)
				}
			}
		}
	}
	return known
}

// speakerName is the lowercased first word of a memory's role when the
// role is a name ("Caroline"), not "user" or "assistant".
func speakerName(c *cand) string {
	if sp := firstWord(c.hit.Role); c.hit.Kind == "memory" && startsUpper(sp) {
		return strings.ToLower(sp)
	}
	return ""
}

// aboutOthersCand reports whether c is about someone else (aboutOthers),
// c being a note or a fact: a turn of a conversation between named
// speakers is never left out. What Caroline says to Melanie is about one of
// them whoever it names, and a question that gives Melanie what Caroline
// said ("What did Melanie research?") is answered best by offering it:
// on LoCoMo's development split, leaving such turns out cost 11 points of
// R@10 on the adversarial questions, for nothing on the others.
func (r *ranker) aboutOthersCand(c *cand, known map[string]bool) bool {
	if speakerName(c) != "" {
		return false
	}
	return r.aboutOthers(candNames(c, known))
}

// nameLike reports whether a stored entity is a name, not a date, an
// amount or a code: capitalised, without a digit, not a weekday or month.
func nameLike(e string) bool {
	return startsUpper(e) && !strings.ContainsFunc(e, unicode.IsDigit) && !calendarWord(strings.ToLower(firstWord(e)))
}

func startsUpper(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r)
	}
	return false
}

// othersOut is which candidates the floor leaves out for being about
// someone else: those, when any candidate kept that is not reaches the
// floor; nil when the question names nobody or nothing else would answer.
func (r *ranker) othersOut(kept, reaches func(c *cand) bool) func(c *cand) bool {
	if len(r.people) == 0 {
		return nil
	}
	about := map[*cand]bool{}
	answered := false
	known := r.knownNames()
	for _, c := range r.cands {
		if c.hit.Kind != "consolidation" && r.aboutOthersCand(c, known) {
			about[c] = true
		} else if kept(c) && reaches(c) {
			answered = true
		}
	}
	if !answered {
		return nil
	}
	return func(c *cand) bool { return about[c] }
}

// daySentences is the text a day record is offered with (known: as for
// namesIn): the sentences
// that hold a word of the question (all, for a question that is only a
// date, or when none does and the date named the record), but those about
// someone else; "" when none is left, and the record is not offered.
func (r *ranker) daySentences(summary string, known map[string]bool) string {
	sents := r.ownSentences(capture.Sentences(summary), known)
	var hold []string
	for _, s := range sents {
		if coverage(r.words, s) > 0 {
			hold = append(hold, s)
		}
	}
	if len(hold) == 0 && r.intent.AsksTime() {
		hold = sents
	}
	return strings.Join(hold, " ")
}

// ownSentences are sents but those about someone else. A sentence that
// names nobody and speaks of "he" or "she" is about whom the sentence
// before it names ("Tom sent his figures. He wants 90k.").
func (r *ranker) ownSentences(sents []string, known map[string]bool) []string {
	if len(r.people) == 0 {
		return sents
	}
	var out []string
	var before []string
	for _, s := range sents {
		names := namesIn(s, known)
		if len(names) == 0 && hasPronoun(s) {
			names = before
		}
		before = names
		if !r.aboutOthers(names) {
			out = append(out, s)
		}
	}
	return out
}

// thirdPerson are the pronouns that stand for someone named before.
var thirdPerson = []string{"he", "she", "him", "her", "his", "hers", "they", "them", "their"}

func hasPronoun(s string) bool {
	return slices.ContainsFunc(text.Words(s), func(w string) bool {
		return slices.Contains(thirdPerson, strings.ToLower(w))
	})
}
