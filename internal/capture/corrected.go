package capture

import (
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Which claim a correction corrects: among a speaker's older memories, the
// one about the same subject, found by the words both hold, the kind of
// value both state, the session and recency. The night retires it
// (internal/consolidate); before the night, recall leaves it out.

// Corrected is the ids of the memories among hits that correction c, said
// in memory m, corrects: the best scored (claimScore), newest first on a
// tie, and the others of its session that score (the agent's echo of it).
// Only the speaker's own memories are candidates; nothing scores without
// a word of the subject in common, nor, when c names the old value,
// without it.
//
// ofKind, when not nil, lets a negation naming the thing by its kind end a
// claim naming it by its make ("we haven't got a car any more" ends "I
// drive a Skoda Fabia").
func Corrected(m store.Hit, c Correction, hits []store.Hit, ofKind OfKind) []int64 {
	return new(Claims).Corrected(m, c, hits, ofKind)
}

// Claims keeps what Corrected reads of each claim's text (its stems, the
// parts of its names, its words beside numbers), made once a text for all
// the corrections asked of one set of hits rather than once a correction
// and claim. It holds the texts it was asked of until it is dropped: make
// one for a recall, not one for a process. The zero value is ready.
type Claims struct{ texts map[string]*claimText }

// claimText is what Claims keeps of one text; a nil field is not made yet.
type claimText struct {
	stems, parts, words []string
	tested, kinds       kindSet // the value kinds tested, and those of them the text states
	read, holds         uint8   // bit i: claimRes[i] was run over the text, and matched
}

// claimRes are the expressions recentOfKind runs over a correction and a
// claim, by their bit in claimText's read and holds.
var claimRes = [...]func() *regexp.Regexp{anaphoricRe, movedItRe, oneRe, choiceRe}

const (
	anaphoric = iota
	movedIt
	oneChoice
	choice
)

// of is what cl keeps of s.
func (cl *Claims) of(s string) *claimText {
	if cl.texts == nil {
		cl.texts = map[string]*claimText{}
	}
	t := cl.texts[s]
	if t == nil {
		t = &claimText{}
		cl.texts[s] = t
	}
	return t
}

// stems are ClaimStems(s), shared: the caller must not change them.
func (cl *Claims) stems(s string) []string {
	t := cl.of(s)
	if t.stems == nil {
		t.stems = orEmpty(ClaimStems(s))
	}
	return t.stems
}

// parts are nameParts(s), shared.
func (cl *Claims) parts(s string) []string {
	t := cl.of(s)
	if t.parts == nil {
		t.parts = orEmpty(nameParts(s))
	}
	return t.parts
}

// words are wordsBesideNumbers(s), shared.
func (cl *Claims) words(s string) []string {
	t := cl.of(s)
	if t.words == nil {
		t.words = orEmpty(wordsBesideNumbers(s))
	}
	return t.words
}

// kindsIn is ks.in(s), each kind tested once a text.
func (cl *Claims) kindsIn(ks kindSet, s string) kindSet {
	t := cl.of(s)
	if untested := ks &^ t.tested; untested != 0 {
		t.kinds |= untested.in(s)
		t.tested |= untested
	}
	return t.kinds & ks
}

// shared is ks.sharedWith(s), each kind tested once a text.
func (cl *Claims) shared(ks kindSet, s string) int {
	return bits.OnesCount32(uint32(cl.kindsIn(ks, s)))
}

// matches is claimRes[i]().MatchString(s), run once a text.
func (cl *Claims) matches(i int, s string) bool {
	t := cl.of(s)
	if t.read&(1<<i) == 0 {
		if claimRes[i]().MatchString(s) {
			t.holds |= 1 << i
		}
		t.read |= 1 << i
	}
	return t.holds&(1<<i) != 0
}

// orEmpty is xs, or an empty slice for nil: what Claims keeps for "made, none".
func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// Corrected is the package's Corrected, reading each text once for cl.
func (cl *Claims) Corrected(m store.Hit, c Correction, hits []store.Hit, ofKind OfKind) []int64 {
	ids := cl.correctedHolding(m, c, hits, c.OldStem(), ofKind)
	if head := c.headStem(); len(ids) == 0 && c.Ends && head != "" {
		ids = cl.correctedHolding(m, c, hits, head, ofKind)
	}
	if (c.Ends || c.namesSubject()) && !holdsOtherStem(c, hits, ids) {
		for _, st := range c.otherStems() {
			if alt := cl.correctedHolding(m, c, hits, st, cancelledKind(c, ofKind)); len(alt) > 0 {
				ids = alt
				break
			}
		}
	}
	if len(ids) == 0 && c.Shape == "switched kind" {
		ids = correctedProvider(m, c, hits)
	}
	if len(ids) == 0 && c.SaysSuccessor() {
		ids = correctedInFrame(m, hits)
	}
	return ids
}

// cancelledKind is ofKind for a cancellation's other words, nil for the
// other shapes: "cancelled the newspaper delivery" ends "the Observer
// comes on Sundays" by its kind, but "not doing the bookshop shifts any
// more" ends no other shifts by theirs.
func cancelledKind(c Correction, ofKind OfKind) OfKind {
	if c.Shape != "cancelled" {
		return nil
	}
	return ofKind
}

// SaysSuccessor reports whether c ends a claim and says what replaces it
// ("I've stopped the running plan, … so I'm doing aqua aerobics
// instead"): the claim may be found among the recent ones by its frame,
// though it shares no word with c.
func (c Correction) SaysSuccessor() bool {
	return c.Ends && slices.Contains(text.Words(strings.ToLower(c.Said)), "instead")
}

// correctedInFrame is Corrected for a habit ended by another name than
// its claim's, its successor said in the claim's frame: "I've stopped the
// running plan, … so I'm doing aqua aerobics on Tuesdays instead" ends
// "I'm doing Couch to 5K on Monday, Wednesday and Friday mornings". The
// claim is the speaker's newest recent one saying it does as m's successor
// does (habitVerbs), at a kind of time m's states (a weekday, a clock time).
func correctedInFrame(m store.Hit, hits []store.Hit) []int64 {
	verbs, when := habitVerbs(m.Text), whenKindsOf(m.Text)
	if len(verbs) == 0 || when == 0 {
		return nil
	}
	var lead *store.Hit
	for i, h := range hits {
		if h.ID == m.ID || !h.Timestamp.Before(m.Timestamp) || !strings.EqualFold(h.Role, m.Role) || !recent(m, h) ||
			otherPeople(m.Text, h.Text) || when.in(h.Text) == 0 {
			continue
		}
		if slices.ContainsFunc(habitVerbs(h.Text), func(v string) bool { return slices.Contains(verbs, v) }) &&
			(lead == nil || h.Timestamp.After(lead.Timestamp)) {
			lead = &hits[i]
		}
	}
	if lead == nil {
		return nil
	}
	return []int64{lead.ID}
}

// habitVerbs are the verbs s says the speaker does, as said after "I" or
// "we" ("I'm doing", "we go", "I usually play"), -s dropped: "doing",
// "go", "play". Not an auxiliary's: "I've stopped", "I'll go".
func habitVerbs(s string) []string {
	ws := text.Words(strings.ToLower(s))
	var out []string
	for i := 0; i < len(ws); i++ {
		if ws[i] != "i" && ws[i] != "we" {
			continue
		}
		j := i + 1
		if j < len(ws) && (ws[j] == "m" || ws[j] == "am" || ws[j] == "re" || ws[j] == "are") {
			j++
		}
		for j < len(ws) && habitAdverbs[ws[j]] {
			j++
		}
		if j < len(ws) && !notHabitVerbs[ws[j]] && (!text.IsStopword(ws[j]) || doForms[ws[j]]) {
			out = append(out, strings.TrimSuffix(ws[j], "s"))
		}
	}
	return out
}

// doForms are "do" as a habit's verb ("I'm doing Couch to 5K", "we do
// parkrun"), which the stopwords hold.
var doForms = map[string]bool{"do": true, "does": true, "doing": true}

// habitAdverbs may stand between the speaker and the verb of a habit.
var habitAdverbs = map[string]bool{"now": true, "still": true, "usually": true, "normally": true, "always": true,
	"also": true, "currently": true, "mostly": true, "often": true, "just": true}

// notHabitVerbs follow "I" or "we" without saying what they do: an
// auxiliary or a negation.
var notHabitVerbs = map[string]bool{"ve": true, "have": true, "had": true, "d": true, "ll": true, "will": true,
	"was": true, "were": true, "not": true, "never": true, "don": true, "didn": true, "can": true, "could": true,
	"would": true, "should": true, "might": true, "must": true, "going": true, "gonna": true, "think": true, "guess": true}

// OfKind reports whether memory h names a thing of the kind the stem kind
// names ("car": "I drive a blue Skoda Fabia"). Capture has no lexicon
// (internal/deps): recall passes kinds', the night its search of the
// store's kinds index.
type OfKind func(h store.Hit, kind string) bool

// subjectText is the text of m the corrected claim's subject is read
// from: c.Said, or all of m when c was not read from it.
func (c Correction) subjectText(m store.Hit) string {
	if c.Said == "" {
		return m.Text
	}
	return c.Said
}

// otherStems are the stems of what c names but its last, last first: where the claim said the thing in other words, another word
// of it names the subject ("not doing the bookshop shifts any more" after
// "I volunteer at the Oxfam bookshop", "changed my mind on the spare room"
// after "painting the spare bedroom sage green").
func (c Correction) otherStems() []string {
	stems := ClaimStems(c.Old)
	slices.Reverse(stems)
	return slices.DeleteFunc(stems, func(st string) bool { return st == c.OldStem() })
}

// holdsOtherStem reports whether a claim among ids holds a word of what c
// names besides its last: "the bookshop shifts" are not the shifts at work.
func holdsOtherStem(c Correction, hits []store.Hit, ids []int64) bool {
	others := c.otherStems()
	for _, h := range hits {
		if !slices.Contains(ids, h.ID) {
			continue
		}
		for _, st := range ClaimStems(h.Text) {
			if slices.ContainsFunc(others, func(o string) bool { return o == st || slices.Contains(BaseForms(o), st) }) {
				return true
			}
		}
	}
	return len(others) == 0 && len(ids) > 0
}

// namesSubject reports whether what c names is the subject of the claim it
// corrects rather than its old value: "changed my mind about the
// armchair", "we switched gyms". A claim holding it is the one corrected,
// though it shares no other word.
func (c Correction) namesSubject() bool {
	return c.Old != "" && (c.Shape == "changed my mind" || c.Shape == "switched kind" || c.Shape == "again" || c.Shape == "cover")
}

// correctedProvider is Corrected for a switch of provider whose kind no
// older claim names ("we switched garages; the van goes to Pennant Motors
// now" after "the van gets serviced at Fairfax Autos"): the newest claim
// naming a provider m does not, that shares a word of the subject with m
// or whose provider's name holds the kind ("PureGym" for "gyms").
func correctedProvider(m store.Hit, c Correction, hits []store.Hit) []int64 {
	kind := c.OldStem()
	mine := slices.DeleteFunc(ClaimStems(c.subjectText(m)), func(st string) bool { return st == kind })
	mineNames := Names(m.Text)
	var lead *store.Hit
	top := 0
	for i, h := range hits {
		if h.ID == m.ID || !h.Timestamp.Before(m.Timestamp) || !strings.EqualFold(h.Role, m.Role) || otherPeople(m.Text, h.Text) ||
			othersOwn(m.Text, h.Text) {
			continue
		}
		var named, holdsKind bool
		for _, n := range Names(h.Text) {
			if slices.ContainsFunc(mineNames, func(mn string) bool { return strings.EqualFold(mn, n) }) {
				continue
			}
			named = true
			if kind != "" && strings.Contains(strings.ToLower(n), kind) {
				holdsKind = true
			}
		}
		if !named {
			continue
		}
		names := strings.ToLower(strings.Join(Names(h.Text), " "))
		shared := 0
		for _, st := range ClaimStems(h.Text) {
			if slices.Contains(mine, st) && !strings.Contains(names, st) {
				shared++ // a word of the subject, not of the provider's name
			}
		}
		score := shared
		if holdsKind || kind != "" && KindLinked(kind, h.Text) {
			score += 2
		}
		if score == 0 {
			continue
		}
		if m.Timestamp.Sub(h.Timestamp) < RecentContext {
			score++
		}
		if lead == nil || score > top || score == top && h.Timestamp.After(lead.Timestamp) {
			lead, top = &hits[i], score
		}
	}
	if lead == nil {
		return nil
	}
	return []int64{lead.ID}
}

// nameParts are the words inside the names of s made of words, lower
// case, as a brand holds its kind: "PureGym" a gym, "EasyJet" a jet; not
// "Bartholomew" an art, nor a one-word name itself.
func nameParts(s string) []string {
	var out []string
	for _, n := range Names(s) {
		var parts []string
		part := []rune{}
		for i, r := range []rune(n + " ") {
			if (unicode.IsUpper(r) || unicode.IsSpace(r)) && i > 0 {
				parts = append(parts, strings.ToLower(string(part)))
				part = part[:0]
			}
			if !unicode.IsSpace(r) {
				part = append(part, r)
			}
		}
		if len(parts) > 1 {
			out = append(out, parts...)
		}
	}
	return out
}

// correctedHolding is Corrected where the claim corrected must hold
// oldStem (any claim, when ""), or, for a negation, a thing of its kind
// (ofKind).
func (cl *Claims) correctedHolding(m store.Hit, c Correction, hits []store.Hit, oldStem string, ofKind OfKind) []int64 {
	k := &correcting{cl: cl, m: m, c: c, oldStem: oldStem, ofKind: ofKind,
		mine: ClaimStems(c.subjectText(m)), bases: BaseForms(oldStem), kinds: cl.kindsIn(allKinds, m.Text),
		context: SessionContext(m, hits)}
	if oldStem == "" && (c.Shape == "back to" || c.Shape == "switched to") {
		k.frames = framesIn(m.Text) // once a correction, not per candidate
	}
	if c.Shape == "switched to" {
		k.home = homeMoveIn(m.Text)
		k.putOn = putOntoRe().MatchString(m.Text)
	}
	var best []scoredClaim
	top := 0
	for _, h := range hits {
		if score, ok := k.score(h); ok {
			best = append(best, scoredClaim{h, score})
			top = max(top, score)
		}
	}
	return leadSession(best, top)
}

// correcting is what correctedHolding reads once a correction: m, said
// as c, corrects a claim holding oldStem.
type correcting struct {
	cl      *Claims
	m       store.Hit
	c       Correction
	oldStem string
	ofKind  OfKind
	mine    []string  // the stems of what c says of its subject
	bases   []string  // oldStem's base forms
	kinds   kindSet   // the kinds of value m states
	context []string  // the stems of m's session before it
	frames  []frame   // m's frames, for a "back to" or "switched to" naming no old value
	home    *homeMove // the move of home m tells, for a "switched to"; nil for none
	putOn   bool      // m puts the speaker on something ("they've put me on nights")
}

// scoredClaim is a claim a correction may end, with its score.
type scoredClaim struct {
	h     store.Hit
	score int
}

// score is how well h is the claim k corrects, and whether it is one.
func (k *correcting) score(h store.Hit) (int, bool) {
	m, c, oldStem, cl := k.m, k.c, k.oldStem, k.cl
	if h.ID == m.ID || !h.Timestamp.Before(m.Timestamp) || !strings.EqualFold(h.Role, m.Role) {
		return 0, false // a speaker corrects their own claims (the agent's echo of one goes with it: echoes)
	}
	theirs, ok := k.holdingOld(h)
	if !ok || k.anotherThing(h) {
		return 0, false
	}
	shared, besides := k.sharedStems(h, theirs)
	linked := c.Shape == "switched to" && oldStem == "" && (recent(m, h) && KindLinked(m.Text, h.Text) ||
		rivalServes(m.Text, h.Text)) // "switched the energy over to Octopus" after "we're with EDF for gas and electric"
	if besides == 0 && !linked && !k.home.moves(h.Text) && !(c.Ends && oldStem != "") && !(c.namesSubject() && oldStem != "") &&
		!(oldStem == "" && (sameSession(m, h) || cl.shared(k.kinds, h.Text) >= 3 || cl.recentOfKind(m, h))) &&
		!(c.Shape == "moved from" && cl.shared(k.kinds, h.Text) > 0) {
		return 0, false // the old value alone is not the subject: "instead of March" is not every March, but "moved from Leeds" is where I live
	}
	if shared == 0 && (c.Shape == "is now" || c.Shape == "back to") {
		return 0, false // "our rent is now £1,450" is not where we live, though said in one breath
	}
	booking := c.Shape == "cancelled" && oldStem == "" && bookedWith(m, h)
	if c.Ends && oldStem == "" && shared < 2 && (h.SessionID == "" || h.SessionID != m.SessionID) && !booking {
		return 0, false // "cancelled my gym membership" does not end every word of the gym
	}
	habit := (c.Ends && c.Shape != "cancelled" || c.Shape == "switched kind") && oldStem != ""
	score, ok := claimScore(m, h, cl.shared(k.kinds, h.Text), shared, oldStem != "" && !habit || c.Ends && oldStem == "", habit)
	if !ok {
		ok = k.takenAnyway(h, theirs, shared, linked, booking)
	}
	if !ok || c.Shape == "pushed to" && !(ahead(h.Text) && movedFrom(m, h)) {
		return 0, false // "my tournament got pushed back" moves none I won last week
	}
	if c.Ends && oldStem != "" && (doesHabit(h.Text, oldStem) || saysOwn(h.Text, oldStem) || namesStem(h.Text, oldStem)) {
		score += 2 // "I smoke five roll-ups a day", not "the washing smells of smoke", ends with "given up smoking"; "our cat Biscuit", not "the good biscuits", with "Biscuit is no longer with us"
	}
	return score, true
}

// holdingOld is h's stems holding the old value, and whether h holds it:
// as a stem, as a base form of it read as it, or, for an ending, as a
// thing of its kind. The old value first: most claims lack it, and it is
// the cheapest test.
func (k *correcting) holdingOld(h store.Hit) ([]string, bool) {
	theirs := k.cl.stems(h.Text)
	if k.oldStem == "" || slices.Contains(theirs, k.oldStem) {
		return theirs, true
	}
	if base := slices.IndexFunc(theirs, func(st string) bool { return slices.Contains(k.bases, st) }); base >= 0 {
		theirs = slices.Clone(theirs) // cl's are shared
		theirs[base] = k.oldStem      // "I stopped running" ends "I run 5k round the park"
		return theirs, true
	}
	if k.c.Ends && k.ofKind != nil && k.ofKind(h, k.oldStem) {
		return append(slices.Clone(theirs), k.oldStem), true // "sold my bike" ends "I ride my Brompton to work"
	}
	return nil, false
}

// anotherThing reports whether h, though it holds the old value, speaks of
// another thing than the correction.
func (k *correcting) anotherThing(h store.Hit) bool {
	m := k.m
	switch {
	case slices.Equal(k.cl.words(m.Text), k.cl.words(h.Text)):
		return true // "ticket 8 moved to review" after "ticket 7 moved to review": another event, not a correction
	case otherPeople(m.Text, h.Text):
		return true // "my brother Benedikt is moving to Dundee" does not move my wife's brother Caspian
	case k.c.Shape == "sold" && !saysHad(h.Text):
		return true // "sold my first painting" ends no "the painting class starts in May"
	case k.c.Shape == "can't come" && !namesComer(m.Text, h.Text):
		return true // "Femi can't make Christmas now" ends "Femi is coming for Christmas", not the Christmas plans
	case k.c.Shape == "again" && !negatedIn(h.Text, k.oldStem):
		return true // "started eating fish again" ends "no meat or fish", not "fish and chips on Friday"
	case k.c.Shape == "retired" && !servesUs(h.Text, k.oldStem):
		return true // "Dad's retired" ends "Dad works at the depot", not "Dad's coming for lunch"
	}
	return false
}

// sharedStems counts the correction's subject stems h holds (as a stem or
// a name's part), and those of them that are not the old value.
func (k *correcting) sharedStems(h store.Hit, theirs []string) (shared, besides int) {
	parts := k.cl.parts(h.Text)
	for _, st := range k.mine {
		if slices.Contains(theirs, st) || slices.Contains(parts, st) {
			shared++
			if st != k.oldStem {
				besides++
			}
		}
	}
	return shared, besides
}

// takenAnyway reports whether h, which claimScore does not take, is the
// claim corrected all the same, by one of the shapes' own tests.
func (k *correcting) takenAnyway(h store.Hit, theirs []string, shared int, linked, booking bool) bool {
	m, c, oldStem, cl := k.m, k.c, k.oldStem, k.cl
	return c.Shape == "cancelled" && oldStem != "" && ahead(h.Text) || // "had to cancel the sweep" weeks after "booked a chimney sweep for the 3rd", "scrapped the Coniston trip" after "booked a cottage near Coniston": a thing cancelled was booked, or said for a time
		c.Shape == "cancelled" && oldStem != "" && servesUs(h.Text, oldStem) || // "got rid of TalkTalk" after "our broadband is with TalkTalk"
		c.Shape == "cancelled" && oldStem != "" && k.ofKind != nil && k.ofKind(h, oldStem) && usersOwnWith(h.Text) || // "cancelled the paper" after "we get the Guardian delivered"
		(c.Shape == "instead" || c.Shape == "actually" || c.Shape == "switched to") && (shared >= 2 || shared > 0 && recent(m, h)) &&
			swappedNames(m.Text, h.Text) || // "change of plan for the bank holiday, we're doing Trieste instead" after "… booked: Ghent"; "the quiz team moved to the Drovers"
		booking || // "Mariana's birthday meal is cancelled" a week after "booked a table … for Mariana's 40th"
		oldStem == "" && cl.recentOfKind(m, h) && stemsInContext(cl.stems(h.Text), k.context) || // "changed my mind, the blue one", "actually, make it Friday": the recent claim of that kind
		len(k.frames) > 0 && sharesFrame(k.frames, h.Text) || // "gone back to semi-skimmed in my coffee" after "coconut milk in my coffee": another value in its place
		linked || // "switched to the outdoor pool at Penrose Park" days after "I swim at the Aquadrome"
		k.home.moves(h.Text) || // "Ruth's moved down to Bristol" after "my sister Ruth lives in Leeds"
		k.putOn && shared > 0 && onRe().MatchString(h.Text) || // "they've put me on nights" after "I'm on the 8 till 4 shift"
		c.Shape == "switched to" && movedAlike(m.Text, theirs) ||
		c.Shape == "switched to" && oldStem == "" && otherKindOfHead(m.Text, h.Text) || // "switched to oat milk" after "semi-skimmed milk in my tea": another kind of the same thing
		c.Shape == "changed my mind" && oldStem != "" && swappedNames(m.Text, h.Text) || // "changed our minds about the reception, the Old Mill now" weeks after the deposit on Hollins Barn for it
		c.Shape == "again" || // what anotherThing let through denied the thing done again
		c.Shape == "cover" && oldStem != "" && usersOwnWith(h.Text) || // "my PT is Gemma" gives way to "Gemma's off … I'm with Callum for now"
		c.Shape == "went up to" && shared > 0 && cl.shared(k.kinds, h.Text) > 0 // "raised my pension contribution to 8%" after "I pay 5% into my pension", months apart
}

// leadSession are the ids of the lead of best (the newest of those scored
// top) and of the others said in its session.
func leadSession(best []scoredClaim, top int) []int64 {
	if len(best) == 0 {
		return nil
	}
	var lead *store.Hit
	for i := range best {
		if best[i].score == top && (lead == nil || best[i].h.Timestamp.After(lead.Timestamp)) {
			lead = &best[i].h
		}
	}
	var ids []int64
	for _, b := range best {
		if b.h.ID == lead.ID || lead.SessionID != "" && b.h.SessionID == lead.SessionID {
			ids = append(ids, b.h.ID)
		}
	}
	return ids
}

// frame is where or for what a value is had: "in my coffee" ("in",
// "coffee"), "for work" ("to", "work": the way there), "for breakfast".
type frame struct{ prep, stem string }

// frameRe is a frame after a value: the user's thing a value is had in, on
// or with ("in my coffee", "on our porridge", "with my tea"), the way to
// work or school, or a meal.
var frameRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(in|on|with)\s+(?:my|our)\s+([\pL-]+)(?:\s+([\pL-]+))?|\b(?:for|to)\s+(work|school|college|uni)\b|\bfor\s+(breakfast|lunch|dinner|supper)\b`)
})

// framesIn are the frames s states; none is a time ("in my free time",
// "on my days off"): two pastimes of one evening are not one value.
func framesIn(s string) []frame {
	var out []frame
	for _, g := range frameRe().FindAllStringSubmatch(s, -1) {
		switch {
		case g[4] != "":
			out = append(out, frame{"to", strings.ToLower(g[4])})
		case g[5] != "":
			out = append(out, frame{"for", strings.ToLower(g[5])})
		default:
			noun, next := strings.ToLower(g[2]), strings.ToLower(g[3])
			if !slices.Contains(timeFillers, noun) && !slices.Contains(timeFillers, next) && text.IsTerm(noun) {
				out = append(out, frame{strings.ToLower(g[1]), claimStem(noun)})
			}
		}
	}
	return out
}

// sharesFrame reports whether h states a value in one of frames: "I only
// have coconut milk in my coffee" in that of "gone back to semi-skimmed in
// my coffee", "I drive to work" in that of "switched to the bus for work".
// A thing of the user's frames a value only when h says it is had or used
// in it: "I grow tomatoes in my garden" is no choice of what goes in it.
func sharesFrame(frames []frame, h string) bool {
	lower := strings.ToLower(h)
	if !slices.ContainsFunc(frames, func(f frame) bool { return strings.Contains(lower, f.stem) }) {
		return false // the expression is not run over a claim without the thing
	}
	return slices.ContainsFunc(framesIn(h), func(f frame) bool {
		return slices.Contains(frames, f) && (f.prep == "to" || f.prep == "for" || usesIn(lower))
	})
}

// usesIn reports whether s, lowercase, says a thing is had or used: the
// verbs of a value put in, on or with something.
func usesIn(s string) bool {
	return slices.ContainsFunc(text.Words(s), func(w string) bool {
		switch w {
		case "have", "has", "take", "takes", "use", "uses", "drink", "drinks", "eat", "eats", "put", "puts", "add", "adds", "stick", "like":
			return true
		}
		return false
	})
}

// introducedRe is a person introduced by who they are to the user: "my
// brother Benedikt", "our cleaner Ines", "my wife's brother Caspian".
var introducedRe = regexp.MustCompile(`\b(?i:my|our)\s+(?:\p{Ll}[\p{Ll}-]*(?:'s|’s)?\s+){1,2}(\p{Lu}[\p{L}-]+)`)

// otherPeople reports whether m and h each introduce someone ("my brother
// Benedikt", "my wife's brother Caspian") and m names none of h's: claims
// about two people, however alike their words.
func otherPeople(m, h string) bool {
	theirs := introducedRe.FindAllStringSubmatch(h, -1)
	if len(theirs) == 0 || !introducedRe.MatchString(m) {
		return false
	}
	named := Names(m)
	for _, g := range theirs {
		if slices.ContainsFunc(named, func(n string) bool { return slices.Contains(strings.Fields(n), g[1]) }) {
			return false
		}
	}
	return true
}

// swappedNames reports whether a and b each name someone or somewhere the
// other does not: a value of the kind "a name" replaced.
func swappedNames(a, b string) bool {
	na, nb := Names(a), Names(b)
	only := func(xs, ys []string) bool {
		return slices.ContainsFunc(xs, func(x string) bool {
			return !slices.ContainsFunc(ys, func(y string) bool { return strings.EqualFold(x, y) })
		})
	}
	return only(na, nb) && only(nb, na)
}

// anaphoricRe is a correction that stands for its subject by a pro-form:
// "make it Friday", "the blue one", "make that the 21st", "he's coming
// Wednesday instead" (the recent visit of that kind), "actually it's
// £8.25", "it's £4 now".
var anaphoricRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:make\s+(?:it|that)|the\s+[\pL-]+\s+ones?|(?:it|that)['’]?s\s+(?:now|actually)|actually,?\s+(?:it|that)(?:['’]s|\s+is)|(?:it|that)(?:['’]s|\s+is)\s+[$€£]\s?\d[\d.,]*\s+now|change\s+(?:it|that)\s+to|(?:he|she|they)(?:['’](?:s|re|ll)|\s+(?:is|are|will|can|could))?\s+(?:now\s+)?(?:coming|come|doing|do|arriving|turning up|popping round|going)\s+[^.;!?]{1,30}?\binstead)\b`)
})

// movedItRe is a pro-form moved in time: "it's moved to Thursdays",
// "they've shifted it to Fridays", "that's been pushed back", "brought it
// forward". What it stands for is a claim of when something is
// (sharesWhen), never a place ("moved it to the shed").
var movedItRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:(?:it|that)(?:['’]s|\s+has|\s+is)\s+(?:been\s+)?(?:moved|changed|shifted|switched|pushed|put\s+back|brought\s+forward)|(?:moved|shifted|changed|switched|pushed)\s+(?:it|that)\s+(?:to|back|forward)|brought\s+(?:it|that)\s+forward)\b`)
})

// BaseForms are the base forms a verb's -ing or -ed form may have:
// "running": run; "cycling": cycle, cycl; "baked": bake, bak. None for
// another word.
func BaseForms(w string) []string {
	var out []string
	if r, ok := strings.CutSuffix(w, "ship"); ok && len(r) >= 4 {
		out = append(out, r) // "cancelled my membership" ends "I'm a member of …"
	}
	for _, suf := range []string{"ing", "ed"} {
		r, ok := strings.CutSuffix(w, suf)
		if !ok || len(r) < 2 {
			continue
		}
		out = append(out, r, r+"e")
		if n := len(r); n >= 3 && r[n-1] == r[n-2] && !strings.ContainsRune("aeiouls", rune(r[n-1])) {
			out = append(out, r[:n-1]) // "running": run; not "spelling": spel
		}
	}
	return out
}

// doesHabit reports whether s says the user does what verb (a -ing form,
// or a base) names: "I smoke", "we bake", "I'm running", "I usually cycle".
// It reads either of the two words after "I" or "we" whatever the first
// is, which habitVerbs does not: "I've cut out dairy", "I only eat halal",
// "I play badminton" (verb "badminton") say verbs habitVerbs does not find,
// "I'm also allergic" one it finds and this does not.
func doesHabit(s, verb string) bool {
	forms := append([]string{verb}, BaseForms(verb)...)
	ws := text.Words(strings.ToLower(s))
	for i, w := range ws {
		if w != "i" && w != "we" { // "I'm" is two words: i, m
			continue
		}
		for _, next := range ws[i+1 : min(len(ws), i+3)] { // "I usually smoke"
			if slices.Contains(forms, next) || slices.Contains(forms, strings.TrimSuffix(next, "s")) {
				return true
			}
		}
	}
	return false
}

// hadRe is a thing said as the user's: "my bike", "our Skoda", "we
// have a piano", "I drive a Corsa".
var hadRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:my|our)\b|\b(?:i|we)(?:['’]ve)?\s+(?:have|has|own|owned|drive|ride|got|bought|keep)\b`)
})

// saysHad reports whether s speaks of a thing as the user's: what a sale
// or "got rid of" can end.
func saysHad(s string) bool { return hadRe().MatchString(s) }

// saysOwn reports whether s, after "I" or "we", holds a word of stem st:
// "I have two biscuits with my tea" is what "I've cut biscuits out" ends,
// not "the biscuit tin is in the top cupboard".
func saysOwn(s, st string) bool {
	ws := text.Words(strings.ToLower(s))
	i := slices.IndexFunc(ws, func(w string) bool { return w == "i" || w == "we" })
	return i >= 0 && slices.ContainsFunc(ws[i+1:], func(w string) bool { return slices.Contains(ClaimStems(w), st) })
}

// namesStem reports whether s holds a name whose word is stem st: "our
// cat Biscuit" for biscuit, not "the good biscuits".
func namesStem(s, st string) bool {
	return slices.ContainsFunc(Names(s), func(n string) bool { return claimStem(strings.ToLower(n)) == st })
}

// Anaphoric reports whether s corrects by a pro-form, naming neither the
// subject nor the old value: its claim is found among the recent ones.
func Anaphoric(s string) bool {
	if !holdsAnaphoricNeed(s) {
		return false // the regexps backtrack over a text holding none of their words
	}
	return proForm(s) || movedItRe().MatchString(s)
}

// proForm reports whether s holds a match of anaphoricRe that stands for
// something said before: "the chewable ones" after "changed my phosphate
// binder to" stands for the binder its own sentence names (ownNoun).
func proForm(s string) bool {
	for _, loc := range anaphoricRe().FindAllStringIndex(s, -1) {
		if !oneRe().MatchString(s[loc[0]:loc[1]]) || !ownNoun(s[:loc[0]]) {
			return true
		}
	}
	return false
}

// ownNoun reports whether the sentence ending in before names a thing of
// someone's ("my phosphate binder", "our old sofa"), other than a mind
// ("changed my mind, the blue one" speaks of a recent choice).
func ownNoun(before string) bool {
	if i := strings.LastIndexAny(before, ".!?"); i >= 0 {
		before = before[i+1:]
	}
	ws := text.Words(strings.ToLower(before))
	for i, w := range ws[:max(0, len(ws)-1)] {
		switch w {
		case "my", "our", "his", "her", "their":
			if next := ws[i+1]; next != "mind" && next != "minds" {
				return true
			}
		}
	}
	return false
}

// holdsAnaphoricNeed reports whether s, lowercased, holds one of
// anaphoricNeeds; in an ASCII text (whose bytes lowercasing keeps in
// place), one opening a word. In every match each of them follows white
// space or \b (ASCII word bytes), and most texts hold one only inside a
// word ("someone", "know", "input").
func holdsAnaphoricNeed(s string) bool {
	lower, ascii := strings.ToLower(s), isASCII(s)
	return slices.ContainsFunc(anaphoricNeeds, func(w string) bool {
		for off := 0; ; {
			i := strings.Index(lower[off:], w)
			if i < 0 {
				return false
			}
			if i += off; !ascii || i == 0 || !isAlnumByte(lower[i-1]) && lower[i-1] != '_' {
				return true
			}
			off = i + 1
		}
	})
}

// anaphoricNeeds are words one of which every match of anaphoricRe or
// movedItRe holds, lowercased.
var anaphoricNeeds = []string{"make", "one", "now", "actually", "chang", "instead", "moved", "shifted", "switched", "pushed", "put", "brought"}

// recentOfKind reports whether m corrects by a pro-form (anaphoricRe) and h
// is a recent claim stating a value of a kind m states.
func (cl *Claims) recentOfKind(m, h store.Hit) bool {
	if !recent(m, h) {
		return false
	}
	if !cl.matches(anaphoric, m.Text) || !proForm(m.Text) { // sharesWhen(m.Text, h.Text):
		return cl.matches(movedIt, m.Text) && cl.kindsIn(whenKinds(), m.Text)&cl.kindsIn(whenKinds(), h.Text) != 0
	}
	// SharedValueKinds(m.Text, h.Text) > 0:
	return cl.kindsIn(allKinds, m.Text)&cl.kindsIn(allKinds, h.Text) != 0 || cl.matches(oneChoice, m.Text) && cl.matches(choice, h.Text)
}

// SessionContext is the stems of the turns of m's session before it (both
// speakers'): what a pro-form ("make it Thursday") speaks of.
func SessionContext(m store.Hit, hits []store.Hit) []string {
	var out []string
	for _, h := range hits {
		if h.ID != m.ID && sameSession(m, h) && h.Timestamp.Before(m.Timestamp) {
			out = append(out, ClaimStems(h.Text)...)
		}
	}
	return out
}

// inContext reports whether h may be what a pro-form speaks of, given the
// stems of its session's earlier turns: a claim of that session, or one
// sharing a word with them ("about the boiler engineer's visit" then
// "actually, make it Monday"); any, when the session says nothing before it.
// "Can you move my haircut?" then "make it Thursday" is not the pottery
// class said on Wednesday in another chat.
func inContext(h store.Hit, context []string) bool {
	return stemsInContext(ClaimStems(h.Text), context)
}

// stemsInContext is inContext of a claim with stems.
func stemsInContext(stems, context []string) bool {
	return len(context) == 0 || slices.ContainsFunc(stems, func(st string) bool { return slices.Contains(context, st) })
}

// oneRe is a choice named by a pro-form: "the velvet ones", "the blue one".
var oneRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bthe\s+[\pL-]+\s+ones?\b`) })

// choiceRe is a claim choosing a thing: "going with the linen blinds",
// "I'll get the red kettle", "ordering the grey sofa".
var choiceRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:going with|go with|get|getting|order|ordering|buy|buying|choose|chose|choosing|picked|pick|opted for|went for|go for|decided on|settled on)\s+(?:the|a|an)\b`)
})

// aheadRe is a claim of what is still to come: booked, planned, due.
var aheadRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:will|['’]ll|going to|gonna|booked|scheduled|planned|planning|due|upcoming|coming up|next|tomorrow|tonight|is on|are on|starts?|begins?)\b`)
})

// ahead reports whether h says when something is (a weekday, a time, a
// date) or that it is still to come: what a postponement can move.
func ahead(h string) bool { return whenKindsOf(h) != 0 || aheadRe().MatchString(h) }

// laterRe and earlierRe say which way a move in time goes: a thing
// postponed goes later, one brought forward earlier ("rescheduled" says
// neither).
var (
	laterRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:postponed|delayed|pushed|bumped|put\s+(?:\S+\s+){0,3}?back|later)\b`)
	})
	earlierRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(?:forward|earlier|sooner)\b`) })
)

// movedFrom reports whether h's day of the calendar is one m's move in
// time can come from: "pushed to Friday 23 October" moves what was before
// the 23rd, never the window cleaner's "next one is 29 October"; "brought
// forward to the 3rd" what was after it. True when either names no day or
// m no way.
func movedFrom(m, h store.Hit) bool {
	to, ok := calendarDay(m.Text, m.Timestamp)
	from, known := calendarDay(h.Text, h.Timestamp)
	if !ok || !known {
		return true
	}
	if earlierRe().MatchString(m.Text) {
		return from.After(to)
	}
	if laterRe().MatchString(m.Text) {
		return from.Before(to)
	}
	return true
}

// calendarDayRe is a day of the calendar: "23 October", "Oct 23rd", "the
// 23rd" (groups: day and month, month and day, day).
var calendarDayRe = sync.OnceValue(func() *regexp.Regexp {
	const month = `(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*`
	return regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + month + `\b|\b` + month + `\s+(\d{1,2})(?:st|nd|rd|th)?\b|\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b`)
})

// calendarDay is the first day of the calendar s names, said at at: the
// next such day, or one of the month before (a day just gone).
func calendarDay(s string, at time.Time) (time.Time, bool) {
	g := calendarDayRe().FindStringSubmatch(s)
	if g == nil {
		return time.Time{}, false
	}
	monthOf := func(name string) time.Month {
		return time.Month(strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(name[:3]))/3 + 1)
	}
	day, month := 0, at.Month()
	switch {
	case g[1] != "":
		day, month = atoi(g[1]), monthOf(g[2])
	case g[3] != "":
		day, month = atoi(g[4]), monthOf(g[3])
	default:
		day = atoi(g[5])
		if day < at.Day() {
			month++ // "the 3rd" said on the 20th: next month's
		}
	}
	if day < 1 || day > 31 {
		return time.Time{}, false
	}
	t := time.Date(at.Year(), month, day, 0, 0, 0, 0, at.Location())
	if t.Before(at.AddDate(0, -1, 0)) {
		t = t.AddDate(1, 0, 0)
	}
	return t, true
}

// bookedWith reports whether h books a day still to come when m is said
// and names someone m names: what m cancels may be that booking, told in
// other words ("the birthday meal" of "a table for six … for Mariana's
// 40th").
func bookedWith(m, h store.Hit) bool {
	day, ok := calendarDay(h.Text, h.Timestamp)
	if !ok || day.Before(m.Timestamp.Truncate(24*time.Hour)) {
		return false
	}
	theirs := Names(h.Text)
	return slices.ContainsFunc(Names(m.Text), func(n string) bool { return slices.Contains(theirs, n) })
}

func recent(m, h store.Hit) bool { return m.Timestamp.Sub(h.Timestamp) < RecentContext }

// othersOwnRe is a name's possession: "Tobi's dog".
var othersOwnRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(\p{Lu}\p{Ll}+)['’]s\s+\p{Ll}`) })

// othersOwn reports whether h speaks of the thing of someone m does not
// name: "Tobi's dog goes to Oakfield" is not our cat's vet.
func othersOwn(m, h string) bool {
	for _, g := range othersOwnRe().FindAllStringSubmatch(h, -1) {
		if !strings.Contains(m, g[1]) {
			return true
		}
	}
	return false
}

// moveRe is a move of something to somewhere: "we've moved Hao to
// Sunflower Nursery", "switched the kids to the Tuesday club".
var moveRe = regexp.MustCompile(`(?i)\b(?:moved|switched|changed|transferred|shifted|swapped)\s+((?:[\pL\pN'’-]+\s+){1,4}?)to\s+((?:[\pL\pN'’-]+\s?){1,4})`)

// movedAlike reports whether a move in s names what moved and the kind of
// place it went to as a claim with stems theirs does: "moved Hao to
// Sunflower Nursery" corrects "Hao goes to Little Acorns nursery", though
// it repeats no old value and is said weeks later. What moved named in two
// words or more, all of them the claim's, is enough: "switched my contact
// lenses to Feel Good" corrects "I order my contact lenses from LensPlus".
func movedAlike(s string, theirs []string) bool {
	g := moveRe.FindStringSubmatch(s)
	if g == nil {
		return false
	}
	has := func(st string) bool {
		return slices.ContainsFunc(theirs, func(t string) bool { return sameRoot(t, st) })
	}
	what, where := ClaimStems(g[1]), ClaimStems(g[2])
	if len(what) >= 2 && !slices.ContainsFunc(what, func(st string) bool { return !has(st) }) {
		return true
	}
	return slices.ContainsFunc(what, has) && slices.ContainsFunc(where, func(st string) bool { return has(st) && !slices.Contains(what, st) })
}

// switchedToRe is what a switch names: "switched to oat milk", "moved to
// the fixed tariff" (up to three words, the last the thing's noun).
var switchedToRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:switched|changed|moved|swapped|gone over)\s+to\s+(?:the\s+|a\s+|an\s+)?((?:[\pL-]+\s+){0,2}[\pL-]+)`)
})

// otherKindOfHead reports whether h has the noun s switched to after
// another word of kind: "switched to oat milk" and "I have semi-skimmed
// milk in my tea", "moved to the fixed tariff" and "we're on the variable
// tariff"; not "a coffee" or "my milk", which name no kind.
func otherKindOfHead(s, h string) bool {
	g := switchedToRe().FindStringSubmatch(s)
	if g == nil {
		return false
	}
	new := strings.Fields(strings.ToLower(g[1]))
	if i := slices.IndexFunc(new, text.IsStopword); i >= 0 {
		new = new[:i] // "the fixed tariff in March": fixed tariff
	}
	if len(new) < 2 {
		return false // "switched to oat": no noun said to compare
	}
	head := claimStem(new[len(new)-1])
	ws := text.Words(strings.ToLower(h))
	for i := 1; i < len(ws); i++ {
		mod := ws[i-1]
		if claimStem(ws[i]) == head && !text.IsStopword(mod) && !slices.Contains(new, mod) {
			return true
		}
	}
	return false
}

// sameRoot reports whether stems a and b are one word or two forms of one
// with a suffix of agent or action: "childminder" and "childminding",
// "cleaner" and "cleaning".
func sameRoot(a, b string) bool {
	if a == b {
		return true
	}
	root := func(w string) string {
		for _, suf := range []string{"ing", "ers", "er", "ed"} {
			if r, ok := strings.CutSuffix(w, suf); ok && len(r) >= 4 {
				return r
			}
		}
		return ""
	}
	ra := root(a)
	return ra != "" && ra == root(b) // both derived: "garden" is not "gardener"
}

// RecentContext is how near a claim said in another session must be for a
// correction to count it as its context ("actually, make it Thursday"), and
// RecentClaims how many of the newest memories before a correction by a
// pro-form are read as that context (by the night and by recall).
const (
	RecentContext = 7 * 24 * time.Hour
	RecentClaims  = 12
)

// claimScore scores h as the claim m corrects, given the kinds of value
// and the words of the subject both hold: the words, the kinds, and one
// more when h is of m's session or recent. A negation naming the habit it
// ends ("I don't drink coffee any more") needs only h to hold it; a
// correction naming the old value, or a cancellation ("the retreat is
// cancelled": its words are the subject), needs 2; one that names neither
// needs a kind of value and 3 (or its session: "actually, make it Thursday
// instead" after "book the roofer for Tuesday"; or a word of the subject
// and a day or time both state: "we've switched Dorota to Mondays" after
// "Dorota comes on Wednesdays"; or a word of the subject and a provider
// both state: "moved my phone contract over to Giffgaff" after "my mobile
// is with EE"), or 3 words in common.
func claimScore(m, h store.Hit, kinds, shared int, named, habit bool) (int, bool) {
	score := shared + kinds
	if sameSession(m, h) || m.Timestamp.Sub(h.Timestamp) < RecentContext {
		score++
	}
	if named {
		return score, score >= 2
	}
	if habit {
		return score, true // "I don't drink coffee any more": coffee is the subject
	}
	return score, kinds > 0 && (score >= 3 || sameSession(m, h) || shared > 0 && (sharesWhen(m.Text, h.Text) || sharesProvider(m.Text, h.Text))) || shared >= 3
}

func sameSession(m, h store.Hit) bool {
	return h.SessionID != "" && h.SessionID == m.SessionID
}

// Echoes are the agent's turns among around that repeat a claim of old
// (ids among hits or around): "Noted: piano on Tuesdays at 4pm" after "the
// piano lesson is on Tuesday at 4pm" goes with it, though it shares no word
// with the correction.
func Echoes(hits []store.Hit, old []int64, around []store.Hit) []int64 {
	if len(old) == 0 {
		return nil // no claim, nothing to echo
	}
	var stems []string
	for _, some := range [][]store.Hit{hits, around} {
		for _, h := range some {
			if slices.Contains(old, h.ID) {
				stems = append(stems, ClaimStems(h.Text)...)
			}
		}
	}
	var out []int64
	for _, h := range around {
		if !strings.EqualFold(h.Role, "assistant") || slices.Contains(old, h.ID) {
			continue
		}
		if slices.ContainsFunc(ClaimStems(h.Text), func(st string) bool { return slices.Contains(stems, st) }) &&
			SharedValueKinds(h.Text, strings.Join(texts(hits, old), " ")) > 0 {
			out = append(out, h.ID)
		}
	}
	return out
}

// texts is the texts of the hits with the given ids.
func texts(hits []store.Hit, ids []int64) []string {
	var out []string
	for _, h := range hits {
		if slices.Contains(ids, h.ID) {
			out = append(out, h.Text)
		}
	}
	return out
}

// wordsBesideNumbers are the words of s but those holding a digit: two
// claims with the same say the same words but for their numbers.
func wordsBesideNumbers(s string) []string { return slices.DeleteFunc(text.Words(s), hasDigit) }

// kindLinks are kinds of place or provider and what one does or keeps
// there, which WordNet does not link: a pool is where one swims, a bank
// holds the account. A switch to one ("switched to the pool at Penrose
// Park", "we swapped banks") corrects the claim naming the other ("I swim
// at the Aquadrome", "our joint account is with Nationwide").
// The providers' work (claim.ProviderWork) is linked the same way: "we
// switched opticians" corrects "my eye tests are at Lenswright".
var kindLinks = append(providerLinks(), [][2][]string{
	{{"pool", "pools", "lido", "lidos", "baths"}, {"swim", "swims", "swimming", "swam", "lengths"}},
	{{"bank", "banks"}, {"account", "accounts", "savings", "mortgage", "overdraft", "isa"}},
	{{"court", "courts"}, {"tennis", "badminton", "squash", "padel"}},
	{{"course", "courses"}, {"golf"}},
	{{"pitch", "pitches"}, {"football", "rugby", "hockey", "cricket"}},
	{{"gym", "gyms"}, {"workout", "workouts", "weights"}},
	{{"wall", "walls"}, {"climb", "climbs", "climbing", "bouldering"}},
	{{"studio", "studios"}, {"yoga", "pilates"}},
	{{"salon", "salons", "barber", "barbers", "hairdresser", "hairdressers"}, {"haircut", "hair"}},
	{{"garage", "garages", "mechanic", "mechanics"}, {"serviced", "service", "mot"}},
	{{"insurer", "insurers"}, {"policy", "cover", "insurance"}},
	{{"network", "networks"}, {"contract", "sim"}},
	{{"supplier", "suppliers"}, {"gas", "electricity", "tariff"}},
}...)

// providerLinks are claim.ProviderWork as kindLinks: each provider, one
// and many, and its work.
func providerLinks() [][2][]string {
	var out [][2][]string
	for p, work := range claim.ProviderWork {
		out = append(out, [2][]string{{p, p + "s"}, work})
	}
	return out
}

// KindLinked reports whether a names a kind of kindLinks and b what one
// does or keeps there, or the other way round.
func KindLinked(a, b string) bool {
	wa, wb := text.Words(strings.ToLower(a)), text.Words(strings.ToLower(b))
	has := func(ws, list []string) bool {
		return slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(list, w) })
	}
	for _, l := range kindLinks {
		if has(wa, l[0]) && has(wb, l[1]) || has(wa, l[1]) && has(wb, l[0]) {
			return true
		}
	}
	return false
}

// LinkedWords are the words kindLinks links to those of s: the words to
// search for the claim a switch corrects ("pool": swim, swimming, …).
func LinkedWords(s string) []string {
	ws := text.Words(strings.ToLower(s))
	var out []string
	for _, l := range kindLinks {
		for side := range 2 {
			if slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(l[side], w) }) {
				out = append(out, l[1-side]...)
			}
		}
	}
	return out
}

// ProFormReferent is the claim a correction m by a pro-form corrects when
// none is in its recent context ("it's moved to Thursdays" said three weeks
// after "I go to a pottery class on Tuesday evenings"), among older, the
// speaker's memories before it, newest first: the newest one stating when
// something is, as m does (a weekday, a clock time, a date), however old,
// if it states it alike (a day every week for a day every week). A nearer
// memory stating such a value otherwise (a single Tuesday) may be the
// pro-form's referent, so then nothing is, and so is a single weekday said
// a week or more before (that day is past). A memory of another subject
// than the session's context (SessionContext) is not it. done is false
// when no memory of older states such a value: the next older ones may.
func ProFormReferent(m store.Hit, older []store.Hit, context []string) (id int64, done bool) {
	kinds := whenKindsOf(m.Text)
	if kinds == 0 || !Anaphoric(m.Text) {
		return 0, true
	}
	for _, h := range older {
		if h.ID == m.ID || !h.Timestamp.Before(m.Timestamp) || !strings.EqualFold(h.Role, m.Role) {
			continue
		}
		shared := kinds.in(h.Text)
		if shared == 0 || !inContext(h, context) {
			continue
		}
		weekly := weeklyRe().MatchString(h.Text)
		if shared&(1<<weekdayKind) != 0 && (weeklyRe().MatchString(m.Text) != weekly || !weekly && !recent(m, h)) {
			return 0, true
		}
		return h.ID, true
	}
	return 0, false
}

// weekdayKind is the index of the weekday among valueKinds.
const weekdayKind = 0

// weeklyRe is a day every week: "on Tuesdays", "every Friday", "Thursday
// evenings".
var weeklyRe = sync.OnceValue(func() *regexp.Regexp {
	const day = `(?:mon|tues|wednes|thurs|fri|satur|sun)day`
	return regexp.MustCompile(`(?i)\b` + day + `s\b|\bevery\s+` + day + `\b|\b` + day + `\s+(?:mornings|afternoons|evenings|nights|lunchtimes)\b`)
})

// movedHomeRe is a move of home to a named place, said as done: "Ruth's
// moved down to Bristol", "we relocated to Glasgow", "I moved back to
// Cork" (group 1 the place).
var movedHomeRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:[Mm]oved|[Rr]elocated)\s+(?:(?:down|up|over|back|out|across|away|home)\s+)?(?:to|into)\s+(\p{Lu}[\pL'’-]+)`)
})

// livesInRe is where someone lives or stays: "my sister Ruth lives in
// Leeds", "I'm based in Manchester", "we live near Ely", "Mum's in Ward 7
// at St James's" (group 1 the place, a name).
var livesInRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\b(?:[Ll]ive|[Ll]ives|[Ll]iving|[Bb]ased)\s+(?:in|at|near)|(?:['’]s|['’]re|\bis|\bare)\s+(?:staying\s+|still\s+)?(?:in|at))\s+(\p{Lu}[\pL'’-]+)`)
})

// homeMove is a move of home a correction tells: the place moved to, and
// who moved, lowercase ("" the speaker).
type homeMove struct{ place, mover string }

// homeMoveIn is the move of home m tells, nil for none.
func homeMoveIn(m string) *homeMove {
	to := movedHomeRe().FindStringSubmatchIndex(m)
	if to == nil {
		return nil
	}
	mv := &homeMove{place: m[to[2]:to[3]]}
	if before := m[:to[0]]; !firstPersonSubject(before) {
		if mv.mover = lastCapitalised(before); mv.mover == "" {
			return nil
		}
	}
	return mv
}

// moves reports whether mv moves the home of the one h says lives in
// another place: "Ruth's moved down to Bristol" corrects "my sister Ruth
// lives in Leeds", not "my friend Ana lives in Cork"; "we moved to
// Bristol" corrects "I live in Leeds". A nil mv moves no one.
func (mv *homeMove) moves(h string) bool {
	if mv == nil {
		return false
	}
	at := livesInRe().FindStringSubmatchIndex(h)
	if at == nil || strings.EqualFold(mv.place, h[at[2]:at[3]]) {
		return false
	}
	dweller := h[:at[0]]
	if mv.mover == "" {
		return firstPersonSubject(dweller)
	}
	return slices.Contains(text.Words(dweller), mv.mover)
}

// lastCapitalised is the last capitalised word of s that is not a
// function word, lowercased: "Ruth's " gives ruth.
func lastCapitalised(s string) string {
	last := ""
	for w, rest := text.NextWord(s); w != ""; w, rest = text.NextWord(rest) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) && len(w) > 1 && !text.IsStopword(strings.ToLower(w)) {
			last = strings.ToLower(w)
		}
	}
	return last
}

// firstPersonSubject reports whether the words before a verb end with the
// speaker or the speaker's household: "I've", "we", "I'm".
func firstPersonSubject(before string) bool {
	ws := strings.Fields(strings.ToLower(before))
	if len(ws) == 0 {
		return false
	}
	last := ws[len(ws)-1]
	if i := strings.IndexAny(last, "'’"); i > 0 {
		last = last[:i] // "we've": we
	}
	return last == "i" || last == "we"
}

// usersOwnWith reports whether s is the user's own claim: it speaks in
// the first person ("my PT is Gemma", "Gemma trains me", "we get the
// Guardian delivered").
func usersOwnWith(s string) bool {
	return slices.ContainsFunc(text.Words(strings.ToLower(s)), func(w string) bool {
		switch w {
		case "i", "me", "my", "we", "us", "our":
			return true
		}
		return false
	})
}

// servesUs reports whether s tells what the one named by stem does or is
// used for: the name followed by a verb of the present ("Dave does our
// windows", "Sue cuts my hair"), named after from, at or with ("we get
// our bread from Hollis Bakery", "my account's with Brightside"), or
// held in a role that serves us (heldInRole).
func servesUs(s, stem string) bool {
	ws := text.Words(strings.ToLower(s))
	for i, w := range ws {
		if claimStem(w) != stem && w != stem {
			continue
		}
		if i+1 < len(ws) && len(ws[i+1]) > 3 && strings.HasSuffix(ws[i+1], "s") { // Words splits off an 's
			return true
		}
		if slices.ContainsFunc(ws[max(0, i-3):i], func(w string) bool { return slices.Contains(servedBy, w) }) ||
			heldInRole(ws, i) {
			return true
		}
	}
	return false
}

var servedBy = []string{"from", "at", "with", "by"}

// RivalKinds are the kinds of the listed names m gives (kinds.ListedAs,
// its last word): where a switch's rival is indexed ("supplier" for
// "switched to Octopus").
func RivalKinds(m string) []string {
	var out []string
	for _, w := range text.Words(strings.ToLower(m)) {
		if as := kinds.ListedAs(w); as != "" {
			if k := as[strings.LastIndexByte(as, ' ')+1:]; !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// comerRe is who no longer comes, in a "can't come" correction (group 1).
var comerRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(\p{Lu}[\pL'’-]+)\s+(?i:can(?:no|['’])?t|can\s+not|won['’]t)\b`)
})

// namesComer reports whether h names the one m says can no longer come.
func namesComer(m, h string) bool {
	at := comerRe().FindStringSubmatch(m)
	return at != nil && slices.Contains(text.Words(strings.ToLower(h)), strings.ToLower(at[1]))
}

// negatedIn reports whether s denies the thing stem names: a denial
// within the four words before it ("no meat or fish", "I don't drink
// wine", "gave up the cigarettes").
func negatedIn(s, stem string) bool {
	ws := text.Words(strings.ToLower(s))
	for i, w := range ws {
		if claimStem(w) != stem && w != stem {
			continue
		}
		if slices.ContainsFunc(ws[max(0, i-4):i], func(w string) bool { return slices.Contains(denialWords, w) }) {
			return true
		}
	}
	return false
}

var denialWords = []string{"no", "not", "never", "t", "don", "dont", "stopped", "quit", "gave", "given", "off", "without", "nor"}

// rivalServes reports whether h tells of a rival serving us of one m
// names (kinds.ListedAs alike, not named in m): "we bank with Barclays"
// for "moved my account to Monzo", "I take bisoprolol" for "switched to
// amlodipine".
func rivalServes(m, h string) bool {
	mine := text.Words(strings.ToLower(m))
	for _, w := range mine {
		as := kinds.ListedAs(w)
		if as == "" {
			continue
		}
		for _, v := range text.Words(strings.ToLower(h)) {
			if v != w && kinds.ListedAs(v) == as && !slices.Contains(mine, v) && (servesUs(h, v) || doesHabit(h, "take")) {
				return true
			}
		}
	}
	return false
}

// heldInRole reports whether ws[i], a name, is said to hold one of the
// speaker's roles: "my piano teacher is Mrs Achterberg", "Dr Lindqvist is
// our GP". Kin and friends hold no role one retires from.
func heldInRole(ws []string, i int) bool {
	var clause []string
	switch {
	case i+2 < len(ws) && ws[i+1] == "is" && isMine(ws[i+2]):
		clause = ws[i+2 : min(len(ws), i+6)]
	case i > 0 && slices.Contains(ws[max(0, i-2):i], "is"):
		from := max(0, i-7)
		at := slices.IndexFunc(ws[from:i], isMine)
		if at < 0 {
			return false
		}
		clause = ws[from+at : i]
	default:
		return false
	}
	return !slices.ContainsFunc(clause, func(w string) bool { return slices.Contains(notRoles, w) })
}

func isMine(w string) bool { return w == "my" || w == "our" }

// notRoles are the people a speaker has who do not serve them.
var notRoles = strings.Fields(`friend friends mate pal neighbour neighbor partner wife husband girlfriend boyfriend
	mum mom mother dad father son daughter brother sister aunt auntie uncle cousin niece nephew gran grandma grandad
	grandson granddaughter nan`)

// putOnPattern is the speaker assigned to something: "they've put me on
// nights", "moved us onto the fixed rota" (a correction shape too).
const putOnPattern = `(?i)\b(?:put|moved|switched|changed|transferred|taken)\s+(?:me|us)\s+(?:on|onto)\b`

var putOntoRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(putOnPattern) })

// onRe is what the speaker says they are on: "I'm on the 8 till 4 shift",
// "we're on the standard rota".
var onRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:i|we)(?:['’]m|['’]re|\s+am|\s+are)\s+(?:now\s+|still\s+|currently\s+)?on\b`)
})
