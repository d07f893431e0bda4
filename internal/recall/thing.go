package recall

import (
	"slices"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// The thing asked about: a question naming a thing by a noun phrase ("my
// bus pass", "my National Trust membership", "the guinea pig's nails") is
// about that thing, and a text holding none of its nouns (by word, kind or
// topic) shares only what is asked of it: "my passport expires in
// October" asked when the bus pass expires, "the library card expires in
// April" asked of the membership, "Pipkin the rabbit's nails" asked of the
// guinea pig's. Such a text is a near-miss (nearmiss.go). A possessor
// ("the guinea pig's") is the thing; else the last phrase the user's own
// is ("the name of our dog"). "The dentist" or "the new tapas bar" may be
// answered in other words ("texts reminders from 0687…", "I'm allergic to
// shellfish"): only the user's own thing and a possessor are read.

// askedThing is the nouns of the thing the question asks about, as the
// question's searched words; nil when it names no thing or names a person
// (the person filter reads those).
func (r *ranker) askedThing() []string {
	if r.thing == nil {
		r.thing = []string{}
		if len(r.people) == 0 {
			r.thing, r.thingOwned = thingOf(asking(r.intent.Rest), func(w string) bool {
				return slices.Contains(r.words, w) && !r.namesPerson(w) && !timeWord(w)
			})
		}
	}
	return r.thing
}

// thingOf is the words (asked: searched, no person nor time) of q's
// possessor phrase, or of its last phrase the user's own: the words after
// a determiner or possessive pronoun, a possessive ending the phrase. After
// "does my", the question's last word is its verb ("does my Garmin need?",
// "does my National Trust membership expire?"); else the phrase is its
// nouns up to the first that is not one ("is my car insurance due?").
func thingOf(q string, asked func(w string) bool) (thing []string, owned bool) {
	fs := strings.Fields(q)
	var last []string
	for i := 0; i < len(fs); i++ {
		if !opensNounPhrase(fs[i]) {
			continue
		}
		inverted := i > 0 && doWord(fs[i-1])
		// "the quote for the splashback": its words are the thing's, known
		// nouns or not; "how much does my horse cost me?" asks of my own
		costed := costedPhrase(fs, i) && !ownsPhrase(fs[i])
		priced := thingsAttr(fs, i) != "" || costed
		var phrase []string
		poss := false
		for j := i + 1; j < len(fs); j++ {
			base, isPoss := cutPossessive(strings.TrimRight(fs[j], ",;:.?!"))
			w, upper := strings.ToLower(bare(base)), startsUpper(base)
			ends := fs[j] != strings.TrimRight(fs[j], ",;:.?!")
			if len(phrase) > 0 && (costingVerb(w) || !isPoss && clauseVerb(fs, i, j) && !(inverted && ends)) {
				break // "how much does my horse cost me a month?": the horse
			}
			switch {
			case inverted && ends && !isPoss:
				// the verb: "does my bus pass expire?"; before a particle, the
				// word before it: "does my gym pass run out?"
				if !asked(w) && len(phrase) > 1 {
					phrase = phrase[:len(phrase)-1]
				}
			case asked(w) && (upper || inverted || priced || isNoun(w)):
				phrase = append(phrase, w)
			case upper && len(phrase) == 0:
				continue // a name no item holds opens the phrase: "my National Trust membership"
			}
			if !asked(w) && !(upper && len(phrase) == 0) || isPoss || ends {
				poss = isPoss
				break
			}
		}
		if costed && slices.Contains(priceWords, phrase[len(phrase)-1]) {
			priced = false // "how much are the parking fees?" asks the fees, which "parking is £4 a day" gives
		}
		if (poss || priced && (len(phrase) > 1 || !costed)) && len(phrase) > 0 {
			return phrase, false // "how much did the plumber charge?" may be answered by his name
		}
		if len(phrase) > 0 && ownsPhrase(fs[i]) {
			last = phrase
		}
	}
	return last, len(last) > 0
}

// howMuchOf reports whether the noun phrase opened at fs[i] is what "how
// much" asks the price of, for its compound (compoundsAfter): "how much was
// the skip hire?", "how much is the lighting hire costing us?", "how much
// did the loft ladder cost?". The user's own ("my vegetables") is read as
// theirs. As the thing asked, costedPhrase reads a wider set.
func howMuchOf(fs []string, i int) bool {
	if i < 3 || i+1 >= len(fs) || !strings.EqualFold(fs[i-3], "how") || !strings.EqualFold(fs[i-2], "much") ||
		ownsPhrase(fs[i]) || priceWord(strings.ToLower(bare(fs[i+1]))) {
		return false
	}
	if costsBe(strings.ToLower(fs[i-1])) {
		return true
	}
	// "how much did the loft ladder cost?", not "how much did the vet
	// charge for the cat's teeth?" (the vet is who charged)
	for _, f := range fs[i+1:] {
		switch strings.ToLower(bare(f)) {
		case "cost", "come", "set", "run", "total":
			return doWord(fs[i-1])
		}
		if !plainWord(bare(f)) && !startsUpper(f) {
			return false
		}
	}
	return false
}

// priceWord reports whether w names a price: "the quote", "the cost".
func priceWord(w string) bool {
	switch w {
	case "quote", "quotes", "quoted", "price", "prices", "priced", "cost", "costs", "estimate", "estimates", "charge", "charged", "fee", "fees", "bill", "invoice":
		return true
	}
	return false
}

// costingVerb is a verb of what a thing comes to, said after it: "the
// lighting hire costing us", "the flights coming to".
func costingVerb(w string) bool {
	switch w {
	case "costing", "coming", "setting", "running", "totalling", "totaling":
		return true
	}
	return false
}

// thingsAttr is the attribute word (lowercase) asked of the noun phrase
// opened at fs[i], or "": the thing a price, a warranty or a code is asked
// of ("the quote for the skylight", "the cost of the tyres", "the warranty
// on the Velux windows"); a quote for another job does not answer it, as
// another thing's possessive does not.
func thingsAttr(fs []string, i int) string {
	if i < 2 {
		return ""
	}
	switch strings.ToLower(fs[i-1]) {
	case "for", "of", "on":
	default:
		return ""
	}
	w := strings.ToLower(strings.TrimRight(fs[i-2], ",;:.?!"))
	if priceWord(w) {
		return w
	}
	if namedAttrs[w] != "" {
		return w
	}
	return ""
}

// namedAttrs are the attributes of a thing a text gives by name, each to
// its canon: a warranty is said as a warranty or a guarantee, a code as a
// code, a PIN or a combination; no text gives one in other words.
var namedAttrs = map[string]string{
	"warranty": "warranty", "warranties": "warranty", "guarantee": "warranty", "guarantees": "warranty",
	"code": "code", "codes": "code", "pin": "code", "combination": "code", "passcode": "code", "password": "code",
}

// costedPhrase reports whether the noun phrase opened at fs[i] is what
// "how much" asks the cost of: "how much did the boiler service cost?",
// "how much was the car service?"; a service or a check of another thing
// does not answer it.
func costedPhrase(fs []string, i int) bool {
	if i < 3 || !strings.EqualFold(fs[i-3], "how") || !strings.EqualFold(fs[i-2], "much") {
		return false
	}
	return doWord(fs[i-1]) || costsBe(strings.ToLower(fs[i-1]))
}

// pricedAsk reports whether q asks the price of a thing (thingsAttr,
// costedPhrase).
func pricedAsk(q string) bool {
	fs := strings.Fields(q)
	for i := range fs {
		if opensNounPhrase(fs[i]) && (thingsAttr(fs, i) != "" || costedPhrase(fs, i)) {
			return true
		}
	}
	return false
}

// lacksNamedAttr reports whether the question asks a named attribute of a
// thing ("how long is the warranty on the Velux windows?") and s gives no
// such attribute of anything: "the skylights are in" names the windows,
// not their warranty.
func (r *ranker) lacksNamedAttr(s string) bool {
	fs := strings.Fields(asking(r.intent.Rest))
	for i := range fs {
		if !opensNounPhrase(fs[i]) && !rolePossessive(fs[i]) { // "the code for Gran's key safe"
			continue
		}
		canon := namedAttrs[thingsAttr(fs, i)]
		if canon == "" {
			continue
		}
		return !slices.ContainsFunc(text.Words(strings.ToLower(s)), func(w string) bool {
			return namedAttrs[w] == canon || namedAttrs[baseForm(w)] == canon
		})
	}
	return false
}

// doWord reports whether f is an auxiliary that puts the verb after its
// subject: "when does my pass expire?".
func doWord(f string) bool {
	switch strings.ToLower(f) {
	case "do", "does", "did", "can", "will", "should", "would", "could":
		return true
	}
	return false
}

// asking is the sentences of q that ask ("Is there anything I can't eat?"
// of "… I'm planning the menu for my birthday."), or q when none does.
func asking(q string) string {
	var asks []string
	for _, s := range splitSentences(q) {
		if strings.HasSuffix(strings.TrimSpace(s), "?") {
			asks = append(asks, s)
		}
	}
	if len(asks) == 0 {
		return q
	}
	return strings.Join(asks, " ")
}

// lacksThing reports whether s holds none of the asked thing's nouns, nor
// its head (the last) by kind ("spaniel": dog), topic member or related
// word ("kids" for "the children's"): "last winter" holds no season
// ticket.
func (r *ranker) lacksThing(s string) bool {
	thing := r.askedThing()
	if len(thing) == 0 {
		return false
	}
	have := r.stems(s)
	head := thing[len(thing)-1]
	if !r.thingOwned && len(thing) > 1 && pricedAsk(asking(r.intent.Rest)) && !have.has(r.stem(head)) && !r.heldByKindOrTopic(s, head) {
		return true // "a wasp got into the kitchen" holds no kitchen splashback's quote
	}
	if slices.ContainsFunc(thing, func(w string) bool { return have.has(r.stem(w)) }) || r.heldByKindOrTopic(s, head) ||
		slices.ContainsFunc(Expand([]string{head}), func(w string) bool { return have.has(r.stem(w)) }) {
		return false // "the kids' swimming lessons" are the children's
	}
	return !r.thingOwned || ownsAnother(s) // "a Vodafone deal that ends in August" may be my phone contract
}

// ownsAnother reports whether s names a thing of the user's own ("my
// passport expires", "our rabbit Pipkin"): asked of the user's own
// thing, a text naming another of theirs is about that one, while one
// naming none may say the thing asked in other words.
func ownsAnother(s string) bool {
	fs := strings.Fields(s)
	for i, f := range fs[:max(0, len(fs)-1)] {
		if w := strings.ToLower(bare(fs[i+1])); ownsPhrase(f) && isNoun(w) && roleOf(w) == "" {
			return true
		}
		if opensSentence(fs, i) && bareCompound(f, fs[i+1]) {
			return true // a diary's "Home insurance renews…" drops the "my"
		}
	}
	return false
}

// opensSentence reports whether fs[i] is the first word of a sentence.
func opensSentence(fs []string, i int) bool {
	return i == 0 || strings.ContainsAny(fs[i-1][len(fs[i-1])-1:], ".!?")
}

// bareCompound reports whether f g, opening a sentence, is a noun said
// with which one and no determiner ("Narrowboat insurance", "Home
// insurance"): both common nouns, the first capitalised only as the
// sentence's first word, neither a role nor a stopword.
func bareCompound(f, g string) bool {
	if !startsUpper(f) || !plainWord(g) {
		return false
	}
	m := strings.ToLower(f)
	return plainWord(m) && !text.IsStopword(m) && isNoun(m) && isNoun(g) && roleOf(m) == "" && roleOf(g) == "" && !timeWord(m)
}

// ownsPhrase reports whether f, opening a noun phrase, makes it the
// user's: "my", "our".
func ownsPhrase(f string) bool {
	f = strings.ToLower(f)
	return f == "my" || f == "our"
}
