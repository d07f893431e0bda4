package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Someone else's: whether a text is about someone other than the user.
// It is read two ways, by what the caller holds:
//
//   - who opens it (openerEnd), from its toks and the names the item
//     holds: openedByOther, a person opens it and it says nothing more in
//     the first person; openedBySomeone, a name or a role written as one
//     opens it as the subject of a verb or as an owner.
//   - what it says of the thing asked (asked: a word of the question or a
//     member of a topic it names), from its words as written:
//     othersSubject, someone else is its subject, unless it is done for the
//     user (servesUser); othersPossession, the thing is someone else's or
//     for someone else (othersBeneficiary).

// openedByOther reports whether a text (its toks) is about someone other
// than the user: it opens with a person (openerEnd: "Ellie prefers", "My
// brother Chidi is", "our Jack went", "Mum's licence") of names, the names
// it holds, and says nothing more in the first person.
func openedByOther(t []tok, names []string) bool {
	i := openerEnd(t, names)
	return i > 0 && !inFirstPerson(t[i:])
}

// openerEnd is the index after the person opening a text (its toks;
// names: the names it holds), or 0 when no person opens it: a name of
// names, a role written as one, or one after "my" or "our" (familyEnd).
func openerEnd(t []tok, names []string) int {
	switch {
	case len(t) == 0:
		return 0
	case t[0].low == "my" || t[0].low == "our":
		return familyEnd(t, names)
	case namedOrRole(t[0], names):
		return 1
	}
	return 0
}

// familyEnd is the index after the person t's opening "my" or "our" is
// followed by, or 0: a role chain and the name after it ("my brother
// Chidi"), or one of the family by name ("our Jack went to see…"), not a
// thing capture reads as a name ("our Tesla" is a car, "my WFH days" mine).
func familyEnd(t []tok, names []string) int {
	if k, next := roleChain(t, 1); k != "" {
		if next < len(t) && t[next].upper && !t[next].brk && slices.Contains(names, t[next].low) {
			next++
		}
		return next
	}
	if len(t) > 1 && t[1].upper && !t[1].caps && slices.Contains(names, t[1].low) && !kinds.Listed(t[1].low) && !kinds.Place(t[1].low) {
		return 2
	}
	return 0
}

// namedOrRole reports whether w is a name of names or a role written as
// one ("Mum", not "mum").
func namedOrRole(w tok, names []string) bool {
	return w.upper && roleOf(w.low) != "" || slices.Contains(names, w.low)
}

// openedBySomeone reports whether a text (its toks) is someone else's
// doing and not the user's: it opens with a name of names or a role
// written as one, as its subject ("Kemi's on a brown inhaler", "Dad takes
// statins"), and says nothing in the first person. "Brilliant, three
// weeks smoke-free" opens with no subject.
func openedBySomeone(t []tok, names []string) bool {
	if len(t) < 2 || !t[0].upper || !namedOrRole(t[0], names) {
		return false
	}
	return (t[0].poss || slices.Contains(subjectVerbs, t[1].low)) && !inFirstPerson(t[1:])
}

// subjectVerbs follow a person opening a text as its subject.
var subjectVerbs = words("is was has had takes took uses used gets got needs needed")

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
		return !asked(strings.ToLower(w)) && !kinds.Listed(strings.ToLower(w)) // "EDF sent…": a brand, no one
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

// servedReach is how many words after "me" the asked thing may come ("gives
// me a lift", "drives me to the station in the morning").
const servedReach = 5

// servesUser reports whether s, though someone else opens it, does the
// thing asked about for the user: "Fergus gives me a lift to the plant",
// "Gran drives me to the station". The user is the verb's object, and a
// word of the question (or a member of its topic) follows within reach in
// that clause: the lift is the user's commute, not Fergus's.
func servesUser(s string, asked func(w string) bool) bool {
	for clause := range strings.FieldsFuncSeq(s, func(r rune) bool { return strings.ContainsRune(".;!?", r) }) {
		ws := text.Words(strings.ToLower(clause))
		for i, w := range ws {
			if w != "me" || i == 0 {
				continue
			}
			for _, x := range ws[i+1 : min(len(ws), i+1+servedReach)] {
				if asked(x) {
					return true
				}
			}
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
