package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

// Another thing of the same kind: a question naming a thing by a word
// that says which one ("the 8am yoga class", "my phone bill", "the car
// repair") is not answered by a text that holds the thing's noun only as
// another one ("a 6:30am spin class", "the electricity bill", "the boiler
// repair"): for that text the noun is not one of the question's words.

// compound is a noun of the question (head) and the word before it that
// says which one (mod), with the words that say the same (alike): the
// modifier, its related words and its topic's members, as stems.
type compound struct {
	head, mod string
	alike     stemList
	modWord   string   // mod as the question writes it
	headWord  string   // head as the question writes it
	heads     stemList // head and its topic's members: "cover" is an insurance
	modTopic  bool     // mod names a topic: its members say which of head's are meant
	days      stemList // the days a part of the week (mod) names: they say which too
}

// compoundsOf are the compounds of q's noun phrases whose words are all
// among words: two terms in a row after a determiner or a possessive
// pronoun ("the 8am yoga class", "my phone bill"), both nouns: an
// adjective ("the big game") or a time ("8am") says which only loosely.
// The phrase "how much" asks the price of ends in a noun whatever the
// lexicon holds: "how much was the skip hire?".
func compoundsOf(q string, words []string) []compound {
	return compoundsAfter(q, words, opensNounPhrase, isNoun)
}

// compoundsAfter are the compounds of q's noun phrases (compoundsOf)
// opened by a word opens reports, their modifiers words mod reports.
func compoundsAfter(q string, words []string, opens, mod func(w string) bool) []compound {
	asked := func(w string) bool { return slices.Contains(words, w) }
	fs := strings.Fields(q)
	var out []compound
	for i := 0; i < len(fs); i++ {
		if !opens(fs[i]) {
			continue
		}
		priced := howMuchOf(fs, i)
		for j := i + 1; j+1 < len(fs) && plainWord(fs[j]); j++ {
			m, head := strings.ToLower(fs[j]), strings.ToLower(bare(fs[j+1]))
			if !plainWord(bare(fs[j+1])) || !asked(head) || clauseVerb(fs, i, j+1) {
				break
			}
			if asked(m) && mod(m) && (isNoun(head) || priced && !costingVerb(head)) {
				out = append(out, compound{head: stem(head), mod: stem(m), alike: alikeStems(m), modWord: m, headWord: head, heads: headStems(head), modTopic: topicOf(m) != nil,
					days: daysOf(m)})
			}
		}
	}
	return out
}

// clauseVerb reports whether fs[k], in the noun phrase opened at fs[i], is
// the verb its phrase is the subject of: after an auxiliary, the phrase's
// last word ("how much does my horse cost?", "did the yoga class move?"),
// or a word an object pronoun follows ("my horse costs me £340").
func clauseVerb(fs []string, i, k int) bool {
	if k+1 < len(fs) && objectPronoun(bare(fs[k+1])) {
		return true
	}
	last := k+1 == len(fs) || !plainWord(bare(fs[k+1])) || bare(fs[k]) != fs[k]
	return last && i > 0 && doWord(fs[i-1])
}

func objectPronoun(w string) bool {
	switch strings.ToLower(w) {
	case "me", "us", "him", "them", "you":
		return true
	}
	return false
}

// rolePossessive reports whether f is a role's possessive, which opens a
// noun phrase as "my" does: "Dad's memory clinic appointment".
func rolePossessive(f string) bool {
	base, poss := cutPossessive(f)
	return poss && roleOf(strings.ToLower(base)) != ""
}

// whDeterminer reports whether f asks which one of the noun phrase after
// it: "what shoe size", "which swimming club".
func whDeterminer(f string) bool {
	f = strings.ToLower(f)
	return f == "what" || f == "which"
}

// isNoun reports whether WordNet holds w, or its base form, as a noun
// with kinds or a definition: "yoga", "phone", "classes"; not "big",
// "new" or "8am".
func isNoun(w string) bool {
	for _, f := range []string{w, baseForm(w), stem(w)} {
		if f != "" && (wordnet.Kinds.Has(f) || wordnet.Definitions.Has(f)) {
			return true
		}
	}
	return false
}

// alikeStems are the stems of mod, its related words and, for a topic
// word, the topic's members: "mobile" says "phone", "dog" says "pet".
func alikeStems(mod string) stemList {
	alike := stemList{stem(mod)}
	for _, w := range Expand([]string{mod}) {
		alike = append(alike, stem(w))
	}
	if t := topicOf(mod); t != nil {
		for _, m := range t.members {
			alike = append(alike, stem(m))
		}
	}
	return alike
}

// weekPartDays are the days a part of the week names: "my weekend job" is
// the one on "Friday and Saturday nights".
var weekPartDays = map[string][]string{
	"weekend": words("saturday saturdays sunday sundays"),
	"weekday": words("monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays"),
}

// daysOf is the stems of the days mod, a part of the week, names; nil
// for another word. Only otherKind reads them: a text naming Saturday
// alone holds no weekend job asked of, but "a second job on Saturdays" is it.
func daysOf(mod string) stemList {
	var out stemList
	for _, d := range weekPartDays[strings.TrimSuffix(mod, "s")] {
		out = append(out, stem(d))
	}
	return out
}

// opensNounPhrase reports whether f is a determiner or possessive pronoun.
func opensNounPhrase(f string) bool {
	switch strings.ToLower(f) {
	case "the", "a", "an", "my", "our", "your", "his", "her", "their", "this", "that":
		return true
	}
	return false
}

// plainWord reports whether f is one lower-case term with nothing around
// it: no punctuation ending a phrase, no possessive, no name.
func plainWord(f string) bool {
	if f == "" || !text.IsTerm(f) {
		return false
	}
	for _, r := range f {
		if !unicode.IsLower(r) && !unicode.IsDigit(r) && r != '-' {
			return false
		}
	}
	return true
}

// headStems is head's stem and those of its topic's members: "boiler
// cover" is another insurance than "phone insurance".
func headStems(head string) stemList {
	heads := stemList{stem(head)}
	if t := topicOf(head); t != nil {
		for _, m := range t.members {
			heads = append(heads, stem(m))
		}
	}
	return heads
}

// otherKind reports whether s holds c's noun only as another thing: each
// time after a plain word that says something else than c's modifier (by
// word, related word or kind), and c's modifier nowhere.
func (c compound) otherKind(s string, have stemList) bool {
	if !slices.ContainsFunc(c.heads, have.has) || slices.ContainsFunc(c.alike, have.has) || slices.ContainsFunc(c.days, have.has) {
		return false
	}
	fs := strings.Fields(s)
	if c.namesAnotherMember(fs) {
		return true
	}
	seen := false
	for i, f := range fs {
		if !c.heads.has(stem(strings.ToLower(bare(f)))) || strings.HasSuffix(f, ":") {
			continue // a label ("appointment: Booked the vet appointment…") names what its text says
		}
		prev := ""
		if i > 0 {
			prev = thingPossessor(fs[i-1])
			if prev == "" && opensSentence(fs, i-1) && bareCompound(fs[i-1], bare(f)) {
				prev = strings.ToLower(fs[i-1]) // "Home insurance renews…": capitalised as the sentence opens
			}
		}
		if prev == "" || hasDigit(prev) {
			return false // the noun itself, or after a word that says no kind
		}
		if k := kinds.Of(prev); k != "" && slices.ContainsFunc(strings.Fields(k), func(w string) bool { return c.alike.has(stem(w)) }) {
			return false // a kind of the modifier: "dog insurance" asked as "pet insurance"
		}
		seen = true
	}
	return seen
}

// namesAnotherMember reports whether fs, holding nothing of a modifier
// that names a topic, names by name (capitalised) a member of the noun's
// topic and never the noun itself: "Netflix went up" asked what our music
// streaming costs names another streaming service than the music
// topic's Spotify or Deezer.
func (c compound) namesAnotherMember(fs []string) bool {
	if !c.modTopic {
		return false
	}
	named := false
	for _, f := range fs {
		b := bare(f)
		st := stem(strings.ToLower(b))
		if st == c.head {
			return false
		}
		if b != "" && unicode.IsUpper([]rune(b)[0]) && c.heads.has(st) {
			named = true
		}
	}
	return named
}

// thingPossessor is f when it is a plain word, or the word of a thing's
// possessive ("soundbar's"): "the soundbar's warranty" is another warranty
// than the projector's as "the soundbar warranty" is. A name's or a role's
// possessive ("Rosamund's", "my sister's") is a person's, for the person
// filter, and a time's ("today's") says no kind: "" for those.
func thingPossessor(f string) string {
	if plainWord(f) {
		return f
	}
	if base, poss := cutPossessive(f); poss && plainWord(base) && !text.IsStopword(base) && !timeWord(base) && roleOf(base) == "" {
		return base
	}
	return ""
}

// withoutOtherKinds is have without the nouns of the question's compounds
// that s holds only as another thing.
func (r *ranker) withoutOtherKinds(s string, have stemList) stemList {
	for _, c := range r.compounds {
		if c.otherKind(s, have) {
			have = slices.DeleteFunc(slices.Clone(have), c.heads.has)
		}
	}
	return have
}
