package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/when"
	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

// The user's own: a question the user asks of themselves ("what kind of
// phone have I got?", "which restaurants did we try in May?", "what hobby
// have I taken up?") is not answered by someone else's thing ("Mum's new
// iPhone", "Kofi swears by his Galaxy", "my neighbour Dot has taken up
// watercolours"), nor by a wish, a plan or hearsay ("we should go
// sometime", "Jess says it's amazing", "thinking about trying sea swimming
// one day") unless it asks about those. Such memories are left out when a
// memory that is the user's own reaches the floor.

// personNouns are the everyday words for the people in someone's life.
var personNouns = map[string]bool{}

func init() {
	for _, w := range words(`neighbour neighbours neighbor neighbors friend friends mate mates mum mom mam mother dad father
		parents sister sisters brother brothers son sons daughter daughters wife husband partner boyfriend girlfriend
		fiance fiancee colleague colleagues coworker boss manager cousin cousins aunt uncle niece nephew gran granny grandma
		grandmother grandad granddad grandpa grandfather grandparents flatmate housemate roommate landlord landlady
		kids children child baby stepdad stepmum stepson stepdaughter in-laws inlaws sibling siblings`) {
		personNouns[w] = true
	}
}

// needWords ask what is to be done: such a question keeps others' things
// ("what do I need to sort out for the dinner party?" is answered by a
// guest's diet).
var needWords = words("need needs must bring sort prepare")

// household are the people a question asked with "we" or "our" takes in:
// "what pets do we have?" is answered by "the kids' hamster".
var household = map[string]bool{}

func init() {
	for _, w := range words("kids children child baby son sons daughter daughters wife husband partner family") {
		household[w] = true
	}
}

// asksOfUs reports whether the question speaks as "we", "us" or "our".
func asksOfUs(q string) bool {
	return slices.ContainsFunc(text.Words(strings.ToLower(q)), func(w string) bool { return w == "we" || w == "us" || w == "our" })
}

// householdAsOurs is s with each household possessive ("the kids'", "my
// son's") read as "our".
func householdAsOurs(s string) string {
	fs := strings.Fields(s)
	for i, f := range fs {
		if base, ok := cutPossessive(strings.TrimRight(f, ",;:.")); ok && household[strings.ToLower(base)] {
			fs[i] = "our"
			if i > 0 && isDeterminer(fs[i-1]) {
				fs[i-1] = ""
			}
		}
	}
	return strings.Join(strings.Fields(strings.Join(fs, " ")), " ")
}

// wishWords ask about wishes and plans: such a question keeps them ("where
// should we go next?": "we should go to the Wardrobe sometime").
var wishWords = words(`should plan plans planning want wanted wants wish hope hoping next going recommend recommended
	suggest suggested idea ideas can could would will dream dreams dreaming someday`)

// asksOfOwn reports whether the question asks of the user's own things
// (self: "I", "my" or "we", nobody named or by role) and not of a need, a
// plan's day or anyone by a role word.
func (r *ranker) asksOfOwn() bool {
	if !r.self || r.intent.Role == when.Plan {
		return false
	}
	return !slices.ContainsFunc(text.Words(strings.ToLower(r.q.Text)), func(w string) bool {
		return personNouns[w] || slices.Contains(needWords, w)
	})
}

// asksWishes reports whether the question asks about wishes or plans.
func (r *ranker) asksWishes() bool {
	return slices.ContainsFunc(text.Words(strings.ToLower(r.q.Text)), func(w string) bool { return slices.Contains(wishWords, w) })
}

// ofNamedNonSpeaker reports whether the question names people and no
// candidate is a turn of a named speaker: someone of the user's life told
// of in the user's words ("which dance classes does Tomiwa go to?"), not
// a conversation between named speakers, as LoCoMo's are, whose turns are
// read otherwise (its dog Oliver is named by its speakers' turns).
func (r *ranker) ofNamedNonSpeaker() bool {
	if !slices.ContainsFunc(r.people, func(p string) bool { return roleOf(p) == "" }) {
		return false // "Dad's": a role, read as one
	}
	if r.talk == 0 {
		r.talk = -1
		for _, c := range r.cands {
			if speakerName(c) != "" {
				r.talk = 1
				break
			}
		}
	}
	return r.talk < 0
}

// notOwn reports whether a memory's text is about someone else or their
// thing of the kind asked (othersThing), or a wish, a plan or hearsay
// rather than what happened.
func (r *ranker) notOwn(s string) bool {
	return r.othersThing(s) || !r.wishes && wished(s)
}

// othersThing reports whether a memory's text is about someone else or
// their thing of the kind asked: "Mum is on warfarin" asked what medicine
// I take, "our neighbour's spaniel" asked what our dog is called. Asked
// who, someone else opening it is the answer: "who cleans for us?",
// "Magda comes to do the hoovering".
func (r *ranker) othersThing(s string) bool {
	if r.us {
		s = householdAsOurs(s)
	}
	return othersSubject(s, r.asksWord) && !servesUser(s, r.asksWord) && !asksWho(r.q.Text) || othersPossession(s, r.asksWord)
}

// asksWord reports whether w is one of the question's words or a member of a
// topic it names, by stem.
func (r *ranker) asksWord(w string) bool {
	st := stem(w)
	for _, q := range r.words {
		if stem(q) == st {
			return true
		}
	}
	for _, ms := range r.members {
		for _, m := range ms {
			if stem(m) == st {
				return true
			}
		}
	}
	return false
}

// othersSubject reports whether s opens with someone else as its subject:
// a person word ("my neighbour Dot has…", "the neighbours bought…", "my
// sister's cake…"), a
// name ("Jess says…", "Rhys orders…") or a word placed as a person ("Kofi
// at work swears…", "Sam from work lent…"); not "my wife and I", nor a
// name that is of the kind asked (asked: "Naproxen brings me out in
// hives", asked of painkillers).
func othersSubject(s string, asked func(w string) bool) bool {
	fs := strings.Fields(s)
	i := 0
	for i < len(fs) && isDeterminer(fs[i]) {
		i++
	}
	if i+1 >= len(fs) {
		return false
	}
	w := bare(fs[i])
	if strings.EqualFold(fs[i+1], "and") && i+2 < len(fs) && (fs[i+2] == "I" || strings.EqualFold(bare(fs[i+2]), "me")) {
		return false
	}
	if base, _ := cutPossessive(w); personNouns[strings.ToLower(base)] {
		return true // "the neighbours bought…", "my sister's cake…"
	}
	if nextDoors(fs, i) {
		return true // "Next door's parrot…"
	}
	if i > 0 || w != fs[i] || !startsLower(fs[i+1]) {
		return false
	}
	if names := capture.Names(s); len(names) > 0 && names[0] == w {
		return !asked(strings.ToLower(w))
	}
	return placedAsPerson(fs, i)
}

// placedAsPerson reports whether fs[i] is a word the words after it place
// as a person: "Kofi at work", "Hamish next door", "Hal over the road".
func placedAsPerson(fs []string, i int) bool {
	if i+2 < len(fs) {
		switch fs[i+1] + " " + bare(fs[i+2]) {
		case "at work", "from work", "next door", "from school", "from church", "from uni":
			return !text.IsStopword(strings.ToLower(bare(fs[i])))
		}
	}
	if i+3 < len(fs) && fs[i+2] == "the" {
		switch fs[i+1] + " " + bare(fs[i+3]) {
		case "over road", "across road", "across street", "down road", "up road", "round corner", "from office":
			return !text.IsStopword(strings.ToLower(bare(fs[i])))
		}
	}
	return false
}

// othersPossession reports whether s speaks of someone else's thing of
// the kind asked about (asked: a question word or topic member): a person
// word or a name with "'s" before it ("Mum's new iPhone", "Sam's bike"),
// "Priya's U13s have entered", not "a trip to Leeds for Hannah's wedding" asked of trips, nor a place
// after "at", "to" or "from" ("at McDonald's today"); or the thing for
// someone (othersBeneficiary).
func othersPossession(s string, asked func(w string) bool) bool {
	fs := strings.Fields(s)
	if othersBeneficiary(fs, asked) {
		return true
	}
	for i, f := range fs {
		base, ok := cutPossessive(strings.TrimRight(f, ",;:."))
		if !ok || base == "" || i+1 >= len(fs) || !startsLower(fs[i+1]) && !modelName(fs[i+1]) {
			continue
		}
		if i > 0 && slices.Contains([]string{"at", "to", "from", "in"}, strings.ToLower(fs[i-1])) {
			continue
		}
		if !personNouns[strings.ToLower(base)] && !isName(base) && !nextDoors(fs, i-1) {
			continue
		}
		for _, f := range fs[i+1 : min(len(fs), i+4)] {
			for _, w := range strings.Split(strings.ToLower(bare(f)), "-") { // "castle-shaped"
				if asked(w) {
					return true
				}
			}
		}
	}
	return false
}

// modelName reports whether f is a capitalised word with a digit, a
// thing's code ("Priya's U13s", "Dad's X5"), not a shop's name ("Sainsbury's
// Local").
func modelName(f string) bool {
	return startsUpper(f) && strings.ContainsFunc(f, unicode.IsDigit)
}

// othersBeneficiary reports whether fs holds the thing asked for someone
// else: "picked up a prescription for Dad" is Dad's medicine, "bought
// Hattie new school shoes" Hattie's shoes; not "a table for Sam and me",
// nor "a trip for Hannah's wedding", nor "we pay for Netflix" (what is
// paid for is the thing bought).
func othersBeneficiary(fs []string, asked func(w string) bool) bool {
	if givenTo(fs, asked) {
		return true
	}
	for i := 0; i+2 < len(fs); i++ {
		if !strings.EqualFold(fs[i+1], "for") || !asked(strings.ToLower(bare(fs[i]))) || doneFor(fs, i) {
			continue
		}
		who := strings.TrimRight(fs[i+2], ",;:.!?")
		if _, poss := cutPossessive(who); poss || !personNouns[strings.ToLower(who)] && !isName(who) {
			continue
		}
		if i+4 < len(fs) && strings.EqualFold(fs[i+3], "and") && firstPerson(strings.ToLower(bare(fs[i+4]))) {
			continue
		}
		if admissionFor(fs, i) {
			continue
		}
		return true
	}
	return false
}

// admissionFor reports whether fs[i] is a ticket or seat "for" a name
// that is the event, not a person: the name is followed by when or where
// it is on ("tickets for Fontaines D.C. in October", "seats for Hamilton
// at the Victoria Palace"); "tickets for Priya for her birthday" are hers.
func admissionFor(fs []string, i int) bool {
	if !slices.Contains(admissions, strings.ToLower(bare(fs[i]))) {
		return false
	}
	j := i + 3 // after the name's first word, its other capitalised words ("D.C.")
	for j < len(fs) && startsUpper(fs[j]) && !strings.ContainsAny(fs[j-1], ",;:!?") {
		j++
	}
	return j < len(fs) && !strings.ContainsAny(fs[j-1], ",;:!?") && slices.Contains(eventPreps, strings.ToLower(fs[j]))
}

// admissions are what is bought to go to an event; eventPreps say when or
// where one is on.
var admissions, eventPreps = words("ticket tickets seat seats"), words("in at on next this tonight tomorrow")

// doneFor reports whether fs[i], before "for", is the user's doing, not
// a thing: a verb of work or paying, or an -ing form after no determiner
// ("driving for Uber", "I work for Arup", "volunteering for Oxfam", "we
// pay for Netflix"): what it is for is an employer, a cause or the thing
// bought, and the doing is the user's.
func doneFor(fs []string, i int) bool {
	w := strings.ToLower(bare(fs[i]))
	if slices.Contains(doneForVerbs, w) {
		return true
	}
	return strings.HasSuffix(w, "ing") && len(w) > 4 && (i == 0 || !isDeterminer(fs[i-1]) && !ownsPhrase(fs[i-1]) && !opensNounPhrase(fs[i-1]))
}

// doneForVerbs say whom the user works for or what they pay for.
var doneForVerbs = words("work works worked drive drives drove volunteer volunteers volunteered play plays played pay pays paid")

// givingVerbs take whom a thing is for before it: "bought Hattie new
// shoes", "got Dad a new phone".
var givingVerbs = words("bought buy buying got get getting ordered order ordering gave give giving made make")

// givenTo reports whether fs gives the thing asked to someone named or by
// a person word, right after a giving verb: "bought Hattie new school
// shoes in a size 4" is her size, not mine.
func givenTo(fs []string, asked func(w string) bool) bool {
	for i := 0; i+2 < len(fs); i++ {
		if !slices.Contains(givingVerbs, strings.ToLower(fs[i])) {
			continue
		}
		who := fs[i+1]
		if _, poss := cutPossessive(who); poss || !personNouns[strings.ToLower(who)] && !isName(who) {
			continue
		}
		for _, f := range fs[i+2 : min(len(fs), i+6)] {
			if asked(strings.ToLower(bare(f))) {
				return true
			}
		}
	}
	return false
}

// nextDoors reports whether fs[i:] opens "next door's": the neighbours'.
func nextDoors(fs []string, i int) bool {
	if i < 0 || i+1 >= len(fs) || !strings.EqualFold(fs[i], "next") {
		return false
	}
	base, ok := cutPossessive(strings.TrimRight(fs[i+1], ",;:."))
	return ok && strings.EqualFold(base, "door")
}

// cutPossessive is f without its possessive ending ("Mum's", "the
// neighbours'"), and whether it had one.
func cutPossessive(f string) (string, bool) {
	for _, suf := range []string{"'s", "’s", "s'", "s’"} {
		if b, ok := strings.CutSuffix(f, suf); ok {
			if suf[0] == 's' {
				b += "s"
			}
			return b, true
		}
	}
	return f, false
}

// dreamPhrases say that something is only wished for, neither done nor
// arranged: "we'd love to take the kids to Japan one day".
var dreamPhrases = []string{"one day", "someday", "some day", "one year", "one of these days", "would love to", "'d love to",
	"would like to", "'d like to", "dream of", "dreaming of", "bucket list", "wish list", "wishlist", "if we ever", "if i ever"}

// wishPhrases say that something is planned or told by someone else
// rather than done (dreamPhrases: wished).
var wishPhrases = []string{"should go", "we should", "sometime", "some time", "maybe", "thinking about", "thinking of",
	"want to", "wants to", "hoping to", "plan to", "planning to", "next time", "says it's",
	"says it is", "recommended", "apparently",
	// someone else's advice: "Joel keeps telling me to read Wolf Hall" is no book I read
	"telling me to", "tells me to", "told me to", "recommends", "swears by", "says i should", "said i should",
	"says we should", "said we should", "suggested i", "suggested we", "suggests i", "suggests we",
	// a job still to do: "need to sand the back door next weekend"
	"need to", "needs to", "have to", "has to", "got to", "tomorrow", "next week", "next weekend", "next month"}

// desirePhrases say that someone only wants something, neither done nor
// arranged nor told: "she keeps asking to try contemporary".
var desirePhrases = []string{"want to", "wants to", "wanted to", "hoping to", "hopes to", "keen to", "asking to", "begging to",
	"thinking about", "thinking of"}

// desired reports whether s only wishes or wants something (dreamt,
// desirePhrases): no plan, job or hearsay, which say when or what.
func desired(s string) bool {
	low := strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	return dreamt(s) || holdsPhrase(low, desirePhrases)
}

func wished(s string) bool {
	low := strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	return dreamt(s) || holdsPhrase(low, wishPhrases) || goingToDo(low)
}

// dreamt reports whether s only wishes for something (dreamPhrases, or
// "would be brilliant to", "it'd be nice to").
func dreamt(s string) bool {
	low := strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	return holdsPhrase(low, dreamPhrases) || wouldBeTo(low)
}

// holdsPhrase reports whether low holds one of ps from a word's start.
func holdsPhrase(low string, ps []string) bool {
	for _, p := range ps {
		if i := strings.Index(low, p); i >= 0 && (i == 0 || !isLetter(low[i-1])) {
			return true
		}
	}
	return false
}

// wouldBeTo reports whether low says it "would be" some way to do a thing:
// "would be brilliant to take the boys", "it'd be lovely to see".
func wouldBeTo(low string) bool {
	ws := text.Words(low)
	for i := 0; i+3 < len(ws); i++ {
		if (ws[i] == "would" || ws[i] == "d") && ws[i+1] == "be" && ws[i+3] == "to" && !text.IsStopword(ws[i+2]) {
			return true
		}
	}
	return false
}

// goingToDo reports whether low says something is going to be done ("going
// to put up the curtain pole"), not where one goes ("going to the gym").
func goingToDo(low string) bool {
	ws := text.Words(low)
	for i := 0; i+2 < len(ws); i++ {
		if ws[i] == "going" && ws[i+1] == "to" && !isDeterminer(ws[i+2]) && !text.IsStopword(ws[i+2]) {
			return true
		}
	}
	return false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' }

func isDeterminer(f string) bool {
	switch strings.ToLower(f) {
	case "my", "our", "the", "a", "an":
		return true
	}
	return false
}

// isName reports whether w is written like a name the lexicon does not
// hold as a word: "Kofi", not "Dinner" or "Took".
func isName(w string) bool {
	low := strings.ToLower(w)
	return startsUpper(w) && len(w) > 1 && w != "I" && !isWord(low) && !text.IsStopword(low) && !calendarWord(low)
}

// irregularPast are the everyday irregular past forms, which WordNet's
// lists do not hold as words ("Went to the park…" opens with no name).
var irregularPast = words(`went saw took got made had ate drank bought brought thought told said came gave found left met
	paid put ran sat sent spent slept sold stood swam threw wore won wrote caught chose drove flew felt forgot kept knew
	lost read rode sang spoke began broke built did fell fed fought heard held hid hit hurt let lit meant rang rose
	shook shut sold sang sank stuck stole struck swept taught tore understood woke`)

// isWord reports whether one of WordNet's lists holds w or, an inflection
// undone, its base form ("cooked": cook), or w is an irregular past.
func isWord(w string) bool {
	has := func(w string) bool {
		return lexicon.Has(w) || wordnet.Kinds.Has(w) || wordnet.Definitions.Has(w) || slices.Contains(irregularPast, w)
	}
	if has(w) {
		return true
	}
	for _, in := range inflections {
		if s, ok := strings.CutSuffix(w, in[0]); ok && len(s) >= 2 && (has(s+in[1]) || len(s) > 2 && s[len(s)-1] == s[len(s)-2] && has(s[:len(s)-1])) {
			return true
		}
	}
	return false
}

func startsLower(s string) bool {
	for _, r := range s {
		return unicode.IsLower(r)
	}
	return false
}

// bare is f without the punctuation around it.
func bare(f string) string {
	return strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// usersOwn are the sentences of a day record that are the user's own
// (notOwn), or all of them when none is: the record is then left out as a
// whole, as a memory is, when something else answers.
func (r *ranker) usersOwn(sents []string) []string {
	own := slices.DeleteFunc(slices.Clone(sents), r.notOwn)
	if len(own) == 0 {
		return sents
	}
	return own
}
