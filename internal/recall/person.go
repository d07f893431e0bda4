package recall

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
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

// peopleNamed are the people q names, lowercased: its proper names in a
// person's position. A name after an article or a possessive ("the Harland
// offer", "our LTV", "my MacBook") or a preposition of place ("a hotel in
// Harrogate", "a flight to Tromsø") names a thing or a place, and so does
// a weekday, a month, an acronym ("MOT") or a brand's inner capital
// ("MacBook"), and so does a word WordNet knows first as a city or country
// ("the flights for Marrakech"): such a word is one to search, never a
// person to filter by.
func peopleNamed(q string) []string {
	var out []string
	last, lastPerson := "", false
	owned := ownedThing.MatchString(q)
	eachNameAs(q, func(name, prev, raw string) {
		// "Amira's barbecue" is a person's, whatever comes before it.
		word := strings.TrimSuffix(strings.TrimSuffix(raw, "'s"), "’s")
		place := (placeBefore(prev) || prev == "for" && owned || kinds.Place(name)) && word == raw // "flights for Marrakech": a city is nobody
		dated := calendarWord(name) && !when.OwnerNotMonth(raw)                                    // "Jan's husband" is a person's
		person := !thingBefore(prev) && !place && !dated && !titleWord(name) && !brandShaped(word)
		if prev != "" && prev == last && !lastPerson && !titleWord(last) {
			person = false // "the Brooks Ghost trainers": a name goes on as it began
		}
		if person {
			out = append(out, name)
		}
		last, lastPerson = name, person
	})
	return dedupe(out)
}

// ownedThing is a question about the user's own thing ("is my passport
// valid for Marrakech?"): a name after "for" there is what the thing is
// for, a place or an occasion; whose it is "my" has said.
var ownedThing = regexp.MustCompile(`(?i)\b(?:my|our) [\p{L}-]+`)

func thingBefore(w string) bool {
	switch w {
	case "the", "a", "an", "this", "that", "my", "our", "your", "his", "her", "their", "its":
		return true
	}
	return false
}

// placeBefore reports whether w, the word before a name, is a preposition
// that puts a place or a thing after it.
func placeBefore(w string) bool {
	switch w {
	case "in", "at", "near", "to", "from", "into", "around", "outside", "inside", "across", "through", "via",
		"towards", "toward", "of", "than", "like", "by", "on", "off", "past", "beyond", "between":
		return true
	}
	return false
}

// brandShaped reports whether raw, a capitalised word as written, is an
// acronym ("MOT", "LTV") or has a capital inside it ("MacBook").
func brandShaped(raw string) bool {
	for i, r := range []rune(raw) {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// titleWord reports whether w, lowercase, is a title before a name ("Dr.
// Okafor"): it names nobody by itself.
func titleWord(w string) bool {
	switch w {
	case "dr", "mr", "mrs", "ms", "miss", "mx", "prof", "sir", "dame", "lady", "lord", "rev", "doctor", "professor":
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

// aboutOthers reports whether an item whose text is s and whose names are
// names is about someone else: it speaks of a person (a name the question
// does not use, or a role: "my brother Tomas") and of none the question's
// subject takes in (r.subject: its people, with the names they go by).
func (r *ranker) aboutOthers(s string, names []string) bool {
	if len(r.subject) == 0 {
		return false
	}
	other := false
	for _, k := range itemKeys(r.toksOf(s), names) {
		if slices.Contains(r.subject, k) {
			return false
		}
		if !slices.Contains(r.names, k) {
			other = true
		}
	}
	return other
}

// saidBy is whose words a text is: the user's ("my" is then the user's),
// or someone's the text alone does not tell.
type saidBy int

const (
	saidByAnyone saidBy = iota
	saidByUser
)

// saidByOf is whose words c's text is: a memory the user said, a fact
// about the user.
func saidByOf(c *cand) saidBy {
	if c.hit.Kind == "memory" && strings.EqualFold(c.hit.Role, "user") || c.fact != nil && strings.EqualFold(c.fact.Entity, "user") {
		return saidByUser
	}
	return saidByAnyone
}

// ownersOther reports whether what s says of the question's words belongs
// to someone other than its subject: "My partner Sunil's insurance" asked
// "my car insurance", "my car insurance" asked the partner's, and the
// user's "my ring size" asked Jules's.
func (r *ranker) ownersOther(s string, by saidBy) bool {
	if !r.self && len(r.subject) == 0 {
		return false
	}
	mine, others := false, false
	for _, o := range owners(r.toksOf(s), r.attrStems(), r.stem) {
		switch {
		case o == selfKey && (r.self || r.asksUsersAttr()) || slices.Contains(r.subject, o):
			mine = true
		case o == selfKey && !r.strictSubject() && by != saidByUser:
			// "my" in a question about a name may be that person's own
			// words: whose, the speaker tells, not the text.
		case o != "@other" || r.self:
			others = true
		}
	}
	return others && !mine
}

// asksUsersAttr reports whether the question calls what it asks of the
// user's, or of the user with someone: "when is my review with my boss?",
// "when is the review with Henrike?" are my review, though they ask of her.
func (r *ranker) asksUsersAttr() bool {
	if r.usersAttr == 0 {
		r.usersAttr = -1
		t := r.toksOf(r.intent.Rest)
		if slices.Contains(owners(t, r.attrStems(), r.stem), selfKey) || withPerson(t, r.names) {
			r.usersAttr = 1
		}
	}
	return r.usersAttr > 0
}

// withPerson reports whether t holds "with" before a person: one of names
// or a role ("with Henrike", "with my boss"), not their thing.
func withPerson(t []tok, names []string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i].low != "with" {
			continue
		}
		j := i + 1
		if j+1 < len(t) && (isDeterminer(t[j].low) || t[j].low == "our") {
			j++
		}
		if !t[j].poss && (slices.Contains(names, t[j].low) || roleOfTok(t[j]) != "") { // not "wrong with my son's bike"
			return true
		}
	}
	return false
}

// attrStems are the stems of the question's words that are not its
// people: what it asks of them.
func (r *ranker) attrStems() []string {
	if r.attrs == nil {
		r.attrs = []string{}
		for _, w := range r.attrWords() {
			r.attrs = append(r.attrs, r.stem(w))
		}
	}
	return r.attrs
}

// namesSubject reports whether the question's word w names whom it asks
// about: a person of its subject, or a role of a chain in it ("wife" and
// "brother" in "my wife's brother").
func (r *ranker) namesSubject(w string) bool {
	return slices.Contains(r.names, w) || r.namesPerson(w)
}

// namesPerson is namesSubject but for the proper names that may name a
// thing ("my Garmin").
func (r *ranker) namesPerson(w string) bool {
	k := personKey(w)
	if slices.Contains(r.subject, k) {
		return true
	}
	role, ok := strings.CutPrefix(k, "@")
	return ok && slices.ContainsFunc(r.subject, func(s string) bool {
		chain, isRole := strings.CutPrefix(s, "@")
		return isRole && slices.Contains(strings.Split(chain, ">"), role)
	})
}

// strictSubject reports whether an item about someone else is left out
// even when nothing else answers: the question asks of a role the user
// holds someone in ("my sister", "my boss"), or of the user's own.
func (r *ranker) strictSubject() bool {
	return slices.ContainsFunc(r.asked, func(k string) bool { return strings.HasPrefix(k, "@") })
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
	out = append(out, entityNames(c)...)
	for _, old := range c.standsFor { // the successor of what named them: "actually, make it Friday"
		out = append(out, namesIn(old, known)...)
	}
	out = append(out, placedName(c.hit.Text)...)
	out = append(out, knownIn(c.hit.Text, known)...)
	if len(c.things) > 0 {
		out = slices.DeleteFunc(out, func(n string) bool { return slices.Contains(c.things, strings.ToLower(n)) })
	}
	return unplaced(out, c.hit.Text) // "cleaned at Harbourside": where, not whom (placed.go)
}

// entityNames are the entities capture found in c that may name people:
// those like a name, but a thing opening the text (thingOpener) and a
// provider a thing is with (heldWith). Read once a candidate: knownNames
// asks it of every candidate, twice a recall, and candNames of a few again.
// The caller must not change them.
func entityNames(c *cand) []string {
	if c.entNames == nil {
		c.entNames = readEntityNames(c)
	}
	return c.entNames
}

// readEntityNames is entityNames, read; never nil.
func readEntityNames(c *cand) []string {
	out := []string{}
	opener := ""
	for _, e := range c.entities.Texts() {
		if !nameLike(e) {
			continue
		}
		if opener == "" {
			opener = thingOpener(c.hit.Text) + " " // once a candidate, and never a name
		}
		if e+" " != opener && !heldWith(c.hit.Text, e) {
			out = append(out, e)
		}
	}
	return out
}

// thingOpener is the word opening s when it is a thing said with "'s"
// for "is" or "has" ("Broadband's with Plusnet", "Choir's switched to
// Mondays"), which capture reads as a name: an everyday word (everydayWord), no first name
// nor role, before a word no possessive is followed by. "" otherwise.
func thingOpener(s string) string {
	fs := strings.Fields(s)
	if len(fs) < 2 {
		return ""
	}
	base, poss := cutPossessive(fs[0])
	low, next := strings.ToLower(base), strings.ToLower(bare(fs[1]))
	if !poss || !startsUpper(base) || !everydayWord(low) || len(otherForms(low)) > 0 || roleOf(low) != "" {
		return ""
	}
	if text.IsStopword(next) && next != "own" || strings.HasSuffix(next, "ed") || slices.Contains(contractedParticiples, next) {
		return base
	}
	return ""
}

// heldWith reports whether s names n only as who a thing of the user's is
// with: "Broadband's with Plusnet", "our energy is with Octopus", "the
// car insurance is with Aviva". A provider is no person.
func heldWith(s, n string) bool {
	fs := strings.Fields(s)
	held := 0
	for i := 2; i < len(fs); i++ {
		if bare(fs[i]) != n || strings.ToLower(fs[i-1]) != "with" {
			continue
		}
		thing, verb := fs[i-2], strings.ToLower(fs[i-2])
		if v, poss := cutPossessive(thing); poss {
			thing, verb = v, "is" // "Broadband's with": is
		} else if i >= 3 {
			thing = fs[i-3]
		}
		t := strings.ToLower(bare(thing))
		if (verb == "is" || verb == "are") && everydayWord(t) && roleOf(t) == "" && len(otherForms(t)) == 0 {
			held++
		}
	}
	return held > 0 && held == strings.Count(s, n)
}

// contractedParticiples follow "'s" for "has" and no possessive: "the
// boiler's gone again", "rent's been paid".
var contractedParticiples = words("gone been got done broken run sent taken given")

// placedName is the word opening s that the words after it place as a
// person ("Hamish next door asked…", which capture reads as no name).
func placedName(s string) []string {
	if fs := strings.Fields(s); startsUpper(s) && placedAsPerson(fs, 0) {
		return []string{bare(fs[0])}
	}
	return nil
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
	for _, k := range r.subject {
		if !strings.HasPrefix(k, "@") {
			known[k] = true
		}
	}
	for _, c := range r.cands {
		for _, e := range entityNames(c) {
			for _, w := range text.Words(e) {
				known[w] = !text.IsStopword(w)
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
	names := slices.DeleteFunc(candNames(c, known), r.topicMember)
	return r.aboutOthers(c.hit.Text, names) || r.alone && openedByOther(r.toksOf(c.hit.Text), lowerAll(names)) ||
		r.usersAskedOfRole(c.hit.Text, names)
}

// topicMember reports whether name is a member of a topic the question
// names: "My Crohn's is flaring up" asked of my health is no person's.
func (r *ranker) topicMember(name string) bool {
	st := stem(strings.ToLower(name))
	for _, ms := range r.members {
		if slices.ContainsFunc(ms, func(m string) bool { return stem(m) == st }) {
			return true
		}
	}
	return false
}

// kindOnlyBesideNamed reports whether c, asked of someone by name, names
// no one and holds none of the question's words but by their kinds: "I'm
// still on Tuesday afternoons" or "put the bins out on Wednesday night",
// asked which shift Leo is on, say nothing of him.
func (r *ranker) kindOnlyBesideNamed(c *cand, known map[string]bool) bool {
	return len(r.people) > 0 && !r.self && c.hit.Kind == "memory" && speakerName(c) == "" &&
		c.ex.Relevance == 0 && c.ex.Expansion == 0 && len(c.standsFor) == 0 && len(candNames(c, known)) == 0
}

// inheritsSubject reports whether c replaced a memory about a person the
// question asks of (a name or a role chain, r.subject): a correction's
// successor speaks of what its claim did, though it names it otherwise.
func (r *ranker) inheritsSubject(c *cand, known map[string]bool) bool {
	for _, old := range c.standsFor {
		if slices.ContainsFunc(itemKeys(r.toksOf(old), namesIn(old, known)), func(k string) bool { return slices.Contains(r.subject, k) }) {
			return true
		}
	}
	return false
}

// inheritsOwn reports whether c, asked of the user's own, replaced a
// memory that is the user's: "Oskar can't do Tuesdays now so Portuguese
// is Thursdays" after "Oskar teaches me Portuguese on Tuesdays" is when my
// lesson is, though Oskar opens it.
func (r *ranker) inheritsOwn(c *cand) bool {
	return r.own && slices.ContainsFunc(c.standsFor, func(old string) bool { return inFirstPerson(r.toksOf(old)) && !r.notOwn(old) })
}

// usersAskedOfRole reports whether s, naming names, is the user's own
// (selfMarked) while the question asks of a role.
func (r *ranker) usersAskedOfRole(s string, names []string) bool {
	return r.strictSubject() && len(names) == 0 && selfMarked(r.toksOf(s))
}

// selfMarked reports whether a text (its toks) says outright it is the
// user's own ("I bought myself a large helmet", "my own", "for me") and
// names no one else by a pronoun: asked of my son, it is not about him.
func selfMarked(t []tok) bool {
	marked := false
	for i, w := range t {
		switch {
		case w.low == "myself" || w.low == "own" && i > 0 && t[i-1].low == "my" || w.low == "me" && i > 0 && t[i-1].low == "for":
			marked = true
		case slices.Contains(thirdPerson, w.low) || roleOfTok(w) != "":
			return false
		}
	}
	return marked
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
// someone else or theirs, the one filter of whose an item is: those, when
// the subject is strict (strictSubject) or any candidate kept that is not
// reaches the floor; nil when the question asks of nobody or nothing else
// would answer. What belongs to another (ownersOther) is left out always
// when the question asks of the user's own or of a role; asked of a name,
// it is about someone else. Asked of the user's own (asksOfOwn), a wish, a
// plan or hearsay is left out when anything else answers, and someone
// else's thing of the kind asked (othersThing) always. Asked of the user
// alone ("which inhaler am I meant to take?"), an item opened by someone
// else and not the user's ("Kemi's on a brown preventer inhaler") is never
// the answer (notAnswer): offered beside one, it makes recall find nothing.
func (r *ranker) othersOut(kept, reaches func(c *cand) bool) (out, notAnswer func(c *cand) bool) {
	if len(r.subject) == 0 && !r.self {
		return nil, func(*cand) bool { return false }
	}
	w := &whose{r: r, known: r.knownNames(), reaches: reaches, of: map[*cand]whoseIs{}}
	answered := r.strictSubject()
	for _, c := range r.cands {
		if answered {
			break
		}
		answered = kept(c) && reaches(c) && w.is(c) == answers
	}
	out = func(c *cand) bool {
		is := w.is(c)
		return is == owned || answered && is == aboutOther || c.ex.Neighbour > 0 && !reaches(c) && r.besideOut(c, w.owned)
	}
	return out, func(c *cand) bool {
		return r.alone && w.is(c) == aboutOther && speakerName(c) == "" && openedBySomeone(r.toksOf(c.hit.Text), lowerAll(candNames(c, w.known)))
	}
}

// whose sorts candidates as othersOut reads them, each when first asked:
// the floor asks of the few it may offer, not of every candidate.
type whose struct {
	r       *ranker
	known   map[string]bool
	reaches func(c *cand) bool
	of      map[*cand]whoseIs
}

// whoseIs is how othersOut sees a candidate.
type whoseIs int

const (
	neither    whoseIs = iota
	owned              // another's: left out always
	aboutOther         // about someone else: left out when something else answers
	answers            // none of those: it answers, if it is kept and reaches the floor
)

// is is how othersOut sees c: the first of its cases that holds.
func (w *whose) is(c *cand) whoseIs {
	if is, ok := w.of[c]; ok {
		return is
	}
	r, is := w.r, answers
	switch {
	case r.inheritsOwn(c):
		// the successor of the user's own claim
	case r.own && r.othersThing(statement(c)) && r.othersAlone(c, w.known):
		is = owned
	case c.hit.Kind == "consolidation" || r.lexical() && c.ex.Neighbour == 0 && !w.reaches(c):
		// a day record is read by its sentences; the floor drops the rest
		if is = neither; r.own && r.notOwn(c.hit.Text) {
			is = aboutOther
		}
	case r.inheritsSubject(c, w.known):
		// the successor of a claim about the question's subject:
		// "Bluebell have pushed Mum's visit to 9.30" after "Mum's carer from
		// Bluebell comes at 8am", asked of my mother's carer
	case speakerName(c) == "" && r.ownersOther(c.hit.Text, saidByOf(c)) && (r.self || r.strictSubject()):
		is = owned
	case r.doesRolesWork(c):
		// "dropped my receipts at Priya's so she can do my
		// self-assessment", asked who my accountant is
	case r.aboutOthersCand(c, w.known) || speakerName(c) == "" && r.ownersOther(c.hit.Text, saidByOf(c)):
		is = aboutOther
	case r.kindOnlyBesideNamed(c, w.known):
		is = aboutOther
	case r.own && c.hit.Kind != "fact" && r.notOwn(c.hit.Text):
		is = aboutOther
	case r.own && c.fact != nil && r.notOwn(statement(c)):
		// a fact is read by what it states: "trip: Ferdie says he saw the falls" is hearsay
		is = aboutOther
	case r.ofNamedNonSpeaker() && !r.wishes && desired(statement(c)):
		// asked of Tomiwa, her wish to try contemporary is no class she goes to
		is = aboutOther
	}
	w.of[c] = is
	return is
}

// doesRolesWork reports whether c, asked of one role of the user's that
// no name is bound to ("who's my accountant?"), is the user's own and
// holds a member of the role's topic, the work it is known by: whoever it
// names does that work for the user.
func (r *ranker) doesRolesWork(c *cand) bool {
	if len(r.subject) != 1 {
		return false
	}
	role, ok := strings.CutPrefix(r.subject[0], "@")
	if !ok || strings.Contains(role, ">") || len(r.members[role]) == 0 {
		return false
	}
	return slices.ContainsFunc(r.toksOf(c.hit.Text), func(w tok) bool { return ownsPhrase(w.low) }) && r.heldByMember(r.stems(c.hit.Text), role)
}

// owned reports whether c is another's (whose.is).
func (w *whose) owned(c *cand) bool { return w.is(c) == owned }

// othersAlone reports whether c, someone else's thing (othersThing), is
// theirs alone: it opens with them and says nothing more in the first
// person ("Mum is on warfarin, so she avoids cranberry juice"; not "my
// wife Sofia lands at six, I'll pick her up"), and the question does not
// ask who. Asked as "we", a name opening it may be one of us ("Tom thinks
// the offer is fair" asked what we think of it): only a role is another.
// What the first clause says of the asked thing is theirs whatever follows
// ("Tobias takes metformin for his diabetes, so we'll eat early").
func (r *ranker) othersAlone(c *cand, known map[string]bool) bool {
	t, names := r.toksOf(statement(c)), lowerAll(candNames(c, known))
	alone := openedByOther(t, names) || r.othersClause(firstClause(t), names)
	return !asksWho(r.q.Text) && alone && (r.alone || !opensWithName(t, names))
}

// othersClause reports whether a clause opens with someone else and says
// nothing in the first person, and holds an asked word
// (by word, topic or kind) that names no one:
// what it says of the asked thing, not of the person asked about ("my
// wife Sofia's flight lands at six" asked whether I am married).
func (r *ranker) othersClause(t []tok, names []string) bool {
	return openedByOther(t, names) && slices.ContainsFunc(t, func(w tok) bool {
		asked := r.asksWord(w.low) || slices.ContainsFunc(strings.Fields(kinds.Of(w.low)), r.asksWord) // "metformin": medication
		return asked && roleOfTok(w) == "" && !slices.Contains(names, w.low) && !personNouns[w.low]
	})
}

// firstClause is t up to its first clause break.
func firstClause(t []tok) []tok {
	for i := 1; i < len(t); i++ {
		if t[i].brk {
			return t[:i]
		}
	}
	return t
}

// statement is what c says: a fact's statement without its entity label
// ("we: Our neighbour's spaniel…", "Kofi: Kofi is allergic…"), so that it
// opens as the memory it came from does.
func statement(c *cand) string {
	if c.fact != nil {
		return strings.TrimPrefix(c.hit.Text, c.fact.Entity+": ")
	}
	return c.hit.Text
}

// opensWithName reports whether a text (its toks) opens with a name of
// names that is no role word ("Tom thinks", not "Mum is").
func opensWithName(t []tok, names []string) bool {
	return len(t) > 0 && roleOf(t[0].low) == "" && slices.Contains(names, t[0].low)
}

// asksWho reports whether q asks for a person: "who do I know in
// Lanzarote?" is answered by my parents.
func asksWho(q string) bool {
	return slices.ContainsFunc(text.Words(strings.ToLower(q)), func(w string) bool { return w == "who" || w == "whom" || w == "whose" })
}

// daySentences is the text a day record is offered with (known: as for
// namesIn): the sentences
// that hold a word of the question (all, for a question that is only a
// date, or when none does and the date named the record), but those about
// someone else; "" when none is left, and the record is not offered. A
// record whose only sentences holding a word were left out is not offered
// by the rest: asked which rides I did in April, the day of Gwen's ride
// is not answered by its bakery.
func (r *ranker) daySentences(summary string, known map[string]bool) string {
	all := capture.Sentences(summary)
	sents := r.ownSentences(all, known)
	if r.own {
		sents = r.usersOwn(sents)
	}
	if r.ofNamedNonSpeaker() && !r.wishes {
		sents = slices.DeleteFunc(sents, desired) // as whose.is reads a memory
	}
	var hold []string
	for _, s := range sents {
		if coverage(r.words, s) > 0 {
			hold = append(hold, s)
		}
	}
	if len(hold) == 0 && r.intent.AsksTime() && !slices.ContainsFunc(all, func(s string) bool { return coverage(r.words, s) > 0 }) {
		hold = sents
	}
	return strings.Join(hold, " ")
}

// ownSentences are sents but those about someone else. A sentence that
// names nobody and speaks of "he" or "she" is about whom the sentence
// before it names ("Tom sent his figures. He wants 90k.").
func (r *ranker) ownSentences(sents []string, known map[string]bool) []string {
	if len(r.subject) == 0 && !r.self {
		return sents
	}
	var out []string
	var before []string
	for _, s := range sents {
		names := append(namesIn(s, known), placedName(s)...)
		if len(names) == 0 && hasPronoun(s) {
			names = before
		}
		before = names
		if !r.aboutOthers(s, names) && !r.ownersOther(s, saidByAnyone) && !(r.alone && openedByOther(r.toksOf(s), lowerAll(names))) &&
			!r.usersAskedOfRole(s, names) {
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

// besideOut reports whether c, offered as the turn beside a match, is beside
// one left out as another's: "Want me to remind Sunil?" after Sunil's
// insurance.
func (r *ranker) besideOut(c *cand, out func(*cand) bool) bool {
	span := int64(r.t.NeighbourSpan)
	for _, o := range r.cands {
		if o.hit.Kind == "memory" && o.hit.SessionID == c.hit.SessionID && abs64(o.hit.ID-c.hit.ID) <= span && out(o) {
			return true
		}
	}
	return false
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// lineAboutOthers reports whether the profile line l is about someone
// other than whom the question asks: "Tomas is the user's brother." asked
// of my sister.
func (r *ranker) lineAboutOthers(l store.ProfileLine) bool {
	if len(r.subject) == 0 && !r.self {
		return false
	}
	names := capture.Names(l.Text)
	if l.Subject != "" && l.Subject != "user" {
		names = append(names, l.Subject)
	}
	return r.aboutOthers(l.Text, names) || r.ownersOther(l.Text, saidByAnyone) || r.userLineAskedOfOther(l, names) ||
		r.otherLineAskedOfUser(l, names)
}

// otherLineAskedOfUser reports whether l is about someone else alone
// ("Perpetua is allergic to almonds.", no word of the user) while the
// question asks of the user alone ("am I allergic to anything?"), not who.
func (r *ranker) otherLineAskedOfUser(l store.ProfileLine, names []string) bool {
	return r.alone && !asksWho(r.q.Text) && !strings.Contains(l.Text, "the user") && !strings.HasPrefix(l.Text, "The user") &&
		openedByOther(toks(l.Text), lowerAll(names))
}

// othersPinAskedOfUser is otherLineAskedOfUser for a pinned memory: "Kofi
// is allergic to shellfish" is no part of the user's profile when the
// question asks of the user alone ("am I allergic to anything?").
func (r *ranker) othersPinAskedOfUser(s string) bool {
	return r.alone && !asksWho(r.q.Text) && openedByOther(r.toksOf(s), lowerAll(capture.Names(s)))
}

// userLineAskedOfOther reports whether l is about the user alone ("The user
// is allergic to cats.") while the question asks of someone else by name
// or role ("is my partner allergic to anything?").
func (r *ranker) userLineAskedOfOther(l store.ProfileLine, names []string) bool {
	if len(r.subject) == 0 || len(names) > 0 || l.Subject != "" && l.Subject != "user" {
		return false
	}
	return strings.HasPrefix(l.Text, "The user ") && !slices.ContainsFunc(r.subject, func(k string) bool { return k == selfKey })
}
