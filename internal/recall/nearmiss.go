package recall

import (
	"slices"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

// Near-misses: a memory that names the sibling of a question's word and
// not the word ("the plumber quoted 160" asked what the electrician
// quoted, "Luca has football on Tuesdays" asked when he has swimming) is
// about the other thing of that kind, however many other words it shares
// with the question. It does not reach the floor; nothing else answering,
// recall says it found nothing. So is a wish asked of the user's own (or
// a role of theirs) as what is or will be ("we'd love to go to Japan one
// day" asked when we fly to Japan), a want asked as what happened
// ("thinking of a henna design for my ankle" asked what I had done there),
// and a plan or a wish asked of the user's own as done ("we should get the
// chimney swept" asked when we last had it swept).

// nearMiss reports whether c is a near-miss of the question (above),
// remembered on c: a day record is one when each of its sentences that
// holds a word of the question is.
func (r *ranker) nearMiss(c *cand) bool {
	if c.near == 0 {
		c.near = -1
		if r.nearMissText(c) {
			c.near = 1
		}
	}
	return c.near > 0
}

func (r *ranker) nearMissText(c *cand) bool {
	if c.hit.Kind != "consolidation" {
		// A successor ("actually it's £24 now") speaks of what it
		// replaced: a near-miss only when read with it too.
		near := r.nearMissSaid(c.hit.Text) && (len(c.standsFor) == 0 || r.nearMissSaid(c.hit.Text+" "+strings.Join(c.standsFor, " ")))
		return near || r.lacksName(c.hit.Text) && !r.nameBeside(c)
	}
	near := false
	for _, s := range splitSentences(c.hit.Text) {
		if r.coverage(s) == 0 {
			continue
		}
		if !r.nearMissSaid(s) && !r.lacksName(s) {
			return false
		}
		near = true
	}
	return near
}

// nearMissSaid reports whether s names a sibling of a question's word or
// none of the thing it asks about (thing.go).
func (r *ranker) nearMissSaid(s string) bool {
	return r.namesSibling(s) || r.lacksThing(s) || r.holdsOnlyWhom(s) || r.anotherOfCompound(s) || r.anotherThingsAttr(s) || r.kinOfModifierOnly(s) || r.headByRelatedOnly(s) ||
		r.lacksAmount(s) || r.lacksTime(s) || r.lacksNamedAttr(s) || r.sharesOnlyWeak(s) || r.anotherPlace(s) || r.own && othersBeneficiary(strings.Fields(s), r.asksWord) ||
		r.ofUserOrRole() && !r.wishes && (dreamt(s) || r.past && opensWithWant(s) || r.own && r.whenDone && undone(s))
}

// anotherOfCompound reports whether s holds the noun of one of the
// question's compounds (compound.go), by word or related word, as another
// thing's: after a thing's possessive or a sibling of the modifier, and the
// modifier nowhere. "The soundbar's warranty runs out at the end of May"
// asked when the projector warranty ends shares "end" and a warranty, but
// not the projector's; "the annual service" may be the boiler's.
func (r *ranker) anotherOfCompound(s string) bool {
	if len(r.compounds) == 0 {
		return false
	}
	have := r.withAliases(stemsOfWords(r.analysed(s).words, r.stem))
	fs := strings.Fields(s)
	return slices.ContainsFunc(r.compounds, func(c compound) bool {
		if slices.ContainsFunc(c.alike, have.has) {
			return false // the modifier, in its words: "the projector's guarantee"
		}
		heads := alikeStems(c.headWord) // "the kettle's guarantee" is another warranty
		for i, f := range fs[1:] {
			if !heads.has(stem(strings.ToLower(bare(f)))) {
				continue
			}
			prev, plain := fs[i], fs[i]
			if i == 0 {
				plain = strings.ToLower(plain) // "Scaffold hire came to £480"
			}
			if base, poss := cutPossessive(prev); poss && thingPossessor(prev) != "" && !kindOfModifier(base, c) ||
				!poss && plainWord(plain) && (r.siblings(c.modWord, plain) || r.amount && r.anotherNounMod(plain, c)) {
				return true
			}
		}
		return false
	})
}

// anotherNounMod reports whether prev, said before c's noun, is a noun
// that says another one, as a price asks it: "costume hire" asked what
// the lighting hire costs, "the roof repair" asked of the gutter repair.
// Only a noun with kinds counts: "the annual service" may be the boiler's.
func (r *ranker) anotherNounMod(prev string, c compound) bool {
	w := strings.ToLower(bare(prev))
	return wordnet.Kinds.Has(w) && !r.asksWord(w) && !kindOfModifier(w, c) && !text.IsStopword(w)
}

// kindOfModifier reports whether w is a kind of c's modifier ("dog" of
// "pet"): "the dog's insurance" is the pet insurance.
func kindOfModifier(w string, c compound) bool {
	return slices.ContainsFunc(strings.Fields(kinds.Of(strings.ToLower(w))), func(k string) bool { return c.alike.has(stem(k)) })
}

// kinOfModifierOnly reports whether s holds none of the question's words,
// nothing of a compound's noun (by word, related word, kind or topic), and
// its modifier by a related word or a kind: "found a tub of soup from last winter"
// asked when my season ticket renews, "added marmalade to the shopping
// list" asked who our contents insurance is with. A text holding nothing of
// the modifier either (a rule, a successor) is not read here; "the Fiesta
// cover renews in May" may be my car insurance.
func (r *ranker) kinOfModifierOnly(s string) bool {
	if len(r.compounds) == 0 {
		return false
	}
	have := r.withAliases(stemsOfWords(r.analysed(s).words, r.stem))
	if slices.ContainsFunc(r.words, func(w string) bool { return have.has(r.stem(w)) }) {
		return false
	}
	if slices.ContainsFunc(r.compounds, func(c compound) bool {
		return slices.ContainsFunc(alikeStems(c.headWord), have.has) || r.heldByKindOrTopic(s, c.headWord)
	}) {
		return false
	}
	theirs := strings.Fields(r.kindsOf(s)) // "winter" is a season
	return slices.ContainsFunc(r.compounds, func(c compound) bool {
		return slices.ContainsFunc(c.alike, have.has) || slices.Contains(theirs, c.modWord)
	})
}

// headByRelatedOnly reports whether s holds of one of the question's
// compounds only a word related to its noun: neither the noun (nor its
// topic's members) nor anything of the modifier, by word, related word,
// kind or topic. "The plumber charged £95 to fix the leaking shower
// valve", asked how much the oven repair was, is about another repair.
func (r *ranker) headByRelatedOnly(s string) bool {
	if len(r.compounds) == 0 {
		return false
	}
	have := r.withAliases(stemsOfWords(r.analysed(s).words, r.stem))
	return slices.ContainsFunc(r.compounds, func(c compound) bool {
		if slices.ContainsFunc(c.alike, have.has) || slices.ContainsFunc(c.heads, have.has) ||
			r.heldByKindOrTopic(s, c.modWord) || r.heldByKindOrTopic(s, c.headWord) {
			return false
		}
		return slices.ContainsFunc(alikeStems(c.headWord), have.has)
	})
}

// holdsOnlyWhom reports whether s, asked of a role ("when does my son have
// rowing?"), holds none of what the question asks of them, by word,
// related word, kind or topic, and names another thing of a near kind
// (kindmate): "my son Lachlan has hockey on Wednesdays" is about him and
// another sport, not his rowing. "My trainer wants a food diary" asked
// what my trainer asked for names no other thing of asking's kind. Asked
// of a role or of someone the user's own notes name, an item holding
// nothing of a thing the question names of them is about them alone
// (lacksCompound).
func (r *ranker) holdsOnlyWhom(s string) bool {
	attrs := r.siblingWords()
	if len(attrs) == 0 {
		return false
	}
	if (r.strictSubject() || r.ofNamedNonSpeaker()) && r.lacksCompound(s) {
		return true
	}
	if !r.strictSubject() {
		return false
	}
	have := r.stems(s)
	if slices.ContainsFunc(attrs, func(w string) bool {
		return slices.ContainsFunc(alikeStems(w), have.has) || r.heldByKindOrTopic(s, w)
	}) {
		return false
	}
	theirs := strings.Fields(r.kindsOf(s))
	return slices.ContainsFunc(attrs, func(w string) bool { return kindmate(w, theirs) })
}

// lacksCompound reports whether s holds nothing of one of the question's
// compounds, those after a role's possessive ("Dad's memory clinic
// appointment") and those it asks which one of ("what shoe size") among them:
// neither its modifier nor its noun, by word, related word, kind, topic
// or definition. "Bramble had her flea treatment" holds nothing of "her
// worming tablet", "Grandson Alfie started Year 3" nothing of "what shoe
// size"; "Isolde's flute lesson" holds the music lesson's lesson.
func (r *ranker) lacksCompound(s string) bool {
	if r.ofWhom == nil {
		// a modifier need not be a noun WordNet lists ("what ring size"),
		// but a word saying only which one makes none ("the new job")
		r.ofWhom = compoundsAfter(r.intent.Rest, r.words, func(f string) bool {
			return opensNounPhrase(f) || rolePossessive(f) || whDeterminer(f)
		}, func(w string) bool { return !slices.Contains(weakWords, w) })
	}
	if len(r.ofWhom) == 0 {
		return false
	}
	have, kinds := r.withAliases(stemsOfWords(r.analysed(s).words, r.stem)), r.stems(r.kindsOf(s))
	holds := func(w string) bool {
		return slices.ContainsFunc(alikeStems(w), func(st string) bool { return have.has(st) || kinds.has(st) }) || r.heldByKindOrTopic(s, w) ||
			slices.ContainsFunc(r.defs[w], func(d string) bool { return have.has(r.stem(d)) })
	}
	return slices.ContainsFunc(r.ofWhom, func(c compound) bool { return !holds(c.modWord) && !holds(c.headWord) })
}

// kindmate reports whether one of w's nearest kinds (its first three, but
// the broadest: "animate", "activity") is among theirs: "rowing" (sport)
// and "hockey" (contact sport), "cello" and "piano" (instrument).
func kindmate(w string, theirs []string) bool {
	near := strings.Fields(kinds.Of(w))
	return slices.ContainsFunc(near[:min(3, len(near))], func(k string) bool {
		return !broadKind(k) && slices.Contains(theirs, k)
	})
}

func broadKind(k string) bool {
	switch k {
	case "animate", "human", "activity", "device", "person", "thing", "object", "entity", "act", "event", "being":
		return true
	}
	return false
}

// namesSibling reports whether s holds words of the question, and for
// some word of it that it does not hold (nor by kind or topic) a sibling
// of that word: it shares the question's words but is about another thing.
func (r *ranker) namesSibling(s string) bool {
	have := r.stems(s)
	var missing []string
	shares := false
	for _, q := range r.words {
		switch {
		case have.has(r.stem(q)):
			shares = true
		case slices.Contains(r.siblingWords(), q) && !r.heldByKindOrTopic(s, q):
			missing = append(missing, q)
		}
	}
	if !shares || len(missing) == 0 {
		return false
	}
	for _, w := range r.analysed(s).words {
		if text.IsStopword(w) || timeWord(w) {
			continue
		}
		// a synonym held ("author" asked as "writer") is the word, not its
		// sibling: looked up only once a sibling is found, which is seldom
		if slices.ContainsFunc(missing, func(q string) bool { return r.siblings(q, w) && !slices.ContainsFunc(alikeStems(q), have.has) }) {
			return true
		}
	}
	return false
}

// heldByKindOrTopic reports whether s holds q as one of its kinds
// ("beagle": dog) or by a member of the topic q names.
func (r *ranker) heldByKindOrTopic(s, q string) bool {
	if slices.Contains(strings.Fields(r.kindsOf(s)), q) {
		return true
	}
	return r.heldByMember(r.stems(s), q)
}

// heldByMember reports whether have holds a member of the topic the
// question's word q names.
func (r *ranker) heldByMember(have stemList, q string) bool {
	return slices.ContainsFunc(r.members[q], func(m string) bool { return have.has(r.stem(m)) })
}

// siblingWords are the question's words that may have a sibling: its
// terms that name no one it asks about, nor a time (a day asked about is
// the date range's to read: "on Tuesday" is answered by a rule for
// weekdays).
func (r *ranker) siblingWords() []string {
	if r.sibWords == nil {
		r.sibWords = []string{}
		for _, w := range r.attrWords() {
			if text.IsTerm(w) && !timeWord(w) {
				r.sibWords = append(r.sibWords, w)
			}
		}
	}
	return r.sibWords
}

// siblings is kinds.Siblings, remembered for the question.
func (r *ranker) siblings(a, b string) bool {
	k := a + "\x00" + b
	if v, ok := r.sibMemo[k]; ok {
		return v
	}
	if r.sibMemo == nil {
		r.sibMemo = map[string]bool{}
	}
	v := kinds.Siblings(a, b)
	r.sibMemo[k] = v
	return v
}

// timeWord reports whether w names a day, a month or a part of one.
func timeWord(w string) bool {
	if calendarWord(w) {
		return true
	}
	switch strings.TrimSuffix(w, "s") {
	case "day", "weekday", "weekend", "week", "month", "year", "morning", "afternoon", "evening", "night", "hour",
		"minute", "tonight", "today", "tomorrow", "yesterday", "spring", "summer", "autumn", "winter", "fall":
		return true
	}
	return false
}
