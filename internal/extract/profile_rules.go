package extract

import (
	"strings"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// The rules of the profile builder: each is a shape of first-person
// sentence that states a durable claim, and what the claim is. Names are
// capitalised words (the (?i:...) groups keep the rest case-blind), so
// "my boss approved it" names no manager.
const (
	pName = `([A-Z][\p{L}-]*(?:['’][A-Z][\p{L}-]+)?(?: [A-Z][\p{L}-]+(?:['’][A-Z][\p{L}-]+)?)?)`
	// pOrg's words after its first never are "I", "I'll", "I'm": "since I
	// work at Arup I'll get the train" names Arup.
	pOrg   = `([A-Z][\p{L}\p{N}&.'’-]*(?: (?:of |and |& )?(?:[A-HJ-Z][\p{L}\p{N}&.'’-]*|I[\p{L}\p{N}&.-][\p{L}\p{N}&.'’-]*))*)`
	pMy    = `(?i:my|our)`
	pIAm   = `(?i:i'm|i’m|i am|im)`
	pThing = `([\p{L}][\p{L}\p{N}' -]{1,40}?)`
	pEnd   = `(?:[,;:.!]|\s+(?i:and|but|so|since|because|which|who|now|too|as well|for|today|yesterday|tonight|this|last|at|in|on|from|with)\b|` + pSubject + `|$)`
	// pSubject opens the clause after a claim: "since I'm allergic to
	// peanuts I always check the labels".
	pSubject = `\s+(?:I|[Ww]e)(?:['’](?:ll|m|ve|d|re))?\b`
	// pItem is an item of a list of things, up to three words.
	pItem = `[\p{L}][\p{L}\p{N}'’-]*(?:\s+[\p{L}][\p{L}\p{N}'’-]*){0,2}?`
	// pListEnd ends a list of things: "penicillin and latex" is two.
	pListEnd = `(?:[,;:.!(]|\s+(?i:but|so|since|because|which|who|now|too|as well|for|ever|as a|when|after all|any more|anymore)\b|` + pClause + `|` + pSubject + `|$)`
	// pClause is where a list of things runs on into a clause of its
	// subject's ("peanuts and carries an EpiPen", "cats and have to take
	// pills", "penicillin and always carry a card", "bouldering and love
	// it"): "and", then an auxiliary or an adverb that only follows a
	// subject, or a word and its object or "to", which no thing's name has.
	pClause = `\s+(?i:and|or|&)\s+(?i:(?:has|have|had|is|are|was|were|can|can't|can’t|cannot|could|must|will|would|should|get|gets|got|need|needs|always|never|usually|often|sometimes)\b|[\p{L}'’-]+ (?:a|an|the|to|my|our|your|his|her|their|its|it|them|him|me|one)\b)`
)

var (
	allergyRe       = lazy(`\b(?i:(?:i'm|i’m|i am|im|i've been|i’ve been|i have been)(?: (?:still|also|now|always|so))* (no longer |not |never )?(?:(?:very|really|severely|badly|quite|mildly|deathly) )?allergic to) ` + pThing + pListEnd)
	allergyNounRe   = lazy(`\b(?i:(?:i have|i've got|i’ve got) an?|my) (?i:([a-z]+(?: [a-z]+)?) allergy)\b`)
	othersAllergyRe = lazy(`\b` + pName + ` (?i:is (?:also |very |severely |badly |quite |mildly )?allergic to) ` + pThing + pListEnd)
	intolerantRe    = lazy(`\b` + pIAm + ` (?i:(lactose|gluten|dairy|wheat|fructose|histamine|caffeine)[ -]intolerant)\b`)
	intolerantToRe  = lazy(`\b` + pIAm + ` (?i:(?:also |very |quite )?intolerant to) ` + pThing + pListEnd)
	medicationRe    = lazy(`\b(?i:(i (?:have |'ve |’ve )?(?:stopped taking|stopped|come off|came off) |(?:i'm|i’m|i am) no longer (?:taking|on) )|(?:i'm|i’m|i am) (?:now |still )?(?:taking|on) |i (?:still )?take |i (?:just |have |'ve |’ve )?started (?:taking )?|i was prescribed |prescribed me |put me on )([\p{L}][\p{L}-]+)`)
	conditionAdjRe  = lazy(`\b` + pIAm + ` (?i:(?:also |still |now |a |an |borderline )*((?:type [12] |pre-?)?(?:` + conditionAdjectiveWords + `)))\b`)
	conditionRe     = lazy(`\b(?i:i have|i've got|i’ve got|i've been diagnosed with|i’ve been diagnosed with|i was diagnosed with|i got diagnosed with|i suffer from|i live with) (?i:an? )?((?:[\p{L}\p{N}'-]+ ){0,2}[\p{L}'-]+)`)
	dietRe          = lazy(`\b(?:` + pIAm + `|(?i:i|we)(?:'ve|’ve| have)? (?i:went|gone|become|became|turned|switched to|going)) (?i:(?:a |now |still |strictly |fully |mostly |also )*(vegetarian|vegan|pescatarian|pescetarian|plant-based|keto|halal|kosher|gluten-free|dairy-free))\b`)
	// "I've started eating fish again, so pescatarian now": a diet said
	// after a first-person clause, as what that makes the speaker.
	dietNowRe     = lazy(`(?i)^(?:i|i'm|i’m|i've|i’ve|we|we're|we’re|we've|we’ve)\b[^.!?]*?[,;]\s*(?:so|and)\s+(?:(?:i'm|i’m|we're|we’re)\s+)?(?:a\s+)?(?:now\s+)?(vegetarian|vegan|pescatarian|pescetarian|plant-based|keto)(?:\s+now)?\b`)
	dietEndRe     = lazy(`\b` + pIAm + ` (?i:no longer (?:a )?(vegetarian|vegan|pescatarian|pescetarian|plant-based|keto))\b`)
	noEatRe       = lazy(`\b(?i:i don't eat|i don’t eat|i do not eat|i never eat|i no longer eat) (?i:(meat|pork|beef|fish|seafood|dairy|eggs|red meat|chicken))\b`)
	titleAtRe     = lazy(`\b` + pIAm + ` (?i:(?:now )?(?:an?|the)) ([\p{L}-]+(?: [\p{L}-]+){0,3}) (?i:at|for|with) ` + pOrg)
	worksAtRe     = lazy(`\b(?i:i (?:now |still |currently )?work (?:at|for)|i(?:'ve| have)? (?:just )?joined|i (?:just )?started (?:(?:a|my) (?:new )?job )?at|i'm now at|i’m now at) ` + pOrg)
	leftForRe     = lazy(`\b(?i:i (?:just )?left) ` + pOrg + ` (?i:for|to join|and (?:have |'ve )?joined|and started at|and moved to) ` + pOrg)
	worksAsRe     = lazy(`\b(?i:i (?:now )?work as an?|i(?:'ve| have)? (?:just )?(?:been|got|was) (?:promoted|made up|bumped up) to|i(?:'ve| have)? (?:just )?stepped up (?:to|as)(?: an?| the)?|my (?:job title|title|role|job) is (?:now )?(?:an? )?) ([\p{L}-]+(?: [\p{L}-]+){0,3}?)` + pEnd)
	managerRe     = lazy(`\b(?:` + pMy + ` (?i:boss|manager|line manager|supervisor|team lead)(?: is| now is|,)?|(?i:i report to)) ` + pName)
	colleagueRe   = lazy(`\b` + pMy + ` (?i:colleague|coworker|co-worker|teammate|workmate)(?: is|,)? ` + pName)
	kinRe         = lazy(`\b` + pMy + ` (?i:(wife|husband|partner|girlfriend|boyfriend|fiancée|fiancee|fiancé|fiance|son|daughter|stepson|stepdaughter|mum|mom|mother|dad|father|brother|sister|twin|friend|best friend|cousin|aunt|uncle|grandma|grandmother|grandad|grandpa|grandfather|niece|nephew|neighbour|neighbor|flatmate|roommate|mother-in-law|father-in-law|brother-in-law|sister-in-law|godson|goddaughter))(?: is|,)? ` + pName)
	marriedRe     = lazy(`\b` + pIAm + ` (?i:married to) ` + pName)
	schoolRunRe   = lazy(`\b(?i:dropped|drop|dropping|picked|pick|picking|collected|collect|took|take|taking) ` + pName + ` (?i:(?:up |off )?(?:at|to|from|off at|up from) (?:the )?(nursery|school|daycare|day care|preschool|pre-school|kindergarten|playgroup|creche|crèche))\b`)
	petAfterRe    = lazy(`\b` + pMy + ` (?i:(?:little |old |new )?([a-z]+)),? ` + pName)
	petBeforeRe   = lazy(`\b` + pName + `,? ` + pMy + ` (?i:(?:little |old |new )?([a-z]+))\b`)
	nameRe        = lazy(`\b(?i:my name is|my name's|call me|i'm called|i am called) ` + pName)
	birthdayRe    = lazy(`\b(?i:my birthday is(?: on)?|i was born on) ([\p{L}\p{N} ]{3,20}?)` + pEnd)
	phoneLineRe   = lazy(`(?i:\b(?:my (?:new |mobile |cell |phone )*(?:number|phone|mobile|cell)(?: number)?(?: is| has changed to| changed to)(?: now)?|new (?:phone |mobile )?number(?: is)?)[: ]+)(\+?\d[\d ()-]{5,}\d)`)
	emailLineRe   = lazy(`(?i:\bmy (?:new |work |personal )?e-?mail(?: address)? is(?: now)?:? )(\S+@\S+\.[A-Za-z]+)`)
	addressLineRe = lazy(`(?i:\b(?:my (?:new |home )?address is(?: now)?|i live at|we live at|(?:i|we) (?:just |have |'ve )?moved (?:in)?to))[: ]+(\d+[\p{L}\p{N} ,'-]{3,60}?)(?:[.;!]|$)`)
	cityLineRe    = lazy(`\b(?i:i live in|we live in|i'm based in|i am based in|i’m based in|(?:i|we)(?:'ve| have)?(?: just)? moved (?:from [A-Z][\p{L}\p{N}&.'’-]*(?: [A-Z][\p{L}\p{N}&.'’-]*)* )?to|(?:i|we)(?:'ve| have) relocated to) ` + pOrg)
	tzLineRe      = lazy(`\b(?i:my time ?zone is(?: now)?|i'm on|i am on|i’m on) ([A-Z]{2,5}(?:[+-]\d{1,2})?|[A-Z][a-z]+/[A-Z][A-Za-z_]+)(?: time)?\b`)
	rentLineRe    = lazy(`\b(?i:(?:my|our) rent is(?: now)?|(?:i|we) (?:now )?pay) ([$€£]?\d[\d,.]*(?: ?[kK])?(?: (?i:a|per) (?i:month|week))?)`)
	// carLineRe: "I drive a Golf", "I ride a matt black Ducati Monster", "we've got a 2019 Vauxhall
	// Zafira", "my car's a little blue Fiat 500"; the make after up to four words saying which one.
	carLineRe = lazy(`\b(?i:(i|we) (?:drive|ride) an?|my car is an?|my car['’]s an?|(?:i|we)(?:['’]ve| have)? got an?|(?:picked up|collected|bought|got) (?:the|my|a) new)` +
		`((?: (?:[a-z][a-z-]*|\d{4})){0,4}?) ([A-Z][\p{L}\p{N}-]*(?: [A-Z0-9][\p{L}\p{N}-]*){0,2})`)
	ruleRe        = lazy(`^(?i:(?:(?:from now on|going forward|in future|in the future),? )?(?:please )?(never|always|don't ever|do not ever|don’t ever)) (.{3,120})$`)
	routineRe     = lazy(`^(?i:i) (?:(?i:usually|normally|always|still|mostly|generally|often) )?([a-z]+) (.{2,80}?\b(?i:every (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend|morning|evening|night|week|month)|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays))\b.{0,40})$`)
	preferenceRe2 = lazy(`^(?i:i) (?:(?i:really|absolutely|just|totally) )?(?i:(love|adore|hate|detest|can't stand|can’t stand|cannot stand)) ([\p{L}][\p{L}\p{N}' -]{1,50})$`)
	// notProfileRe marks a sentence that states no standing truth: a
	// hypothetical, a wish, a plan, the past.
	notProfileRe = lazy(`(?i)\b(?:if (?:i|we|i'm|i’m)|would|could|might|maybe|perhaps|wish|hope|hoping|wonder|thinking (?:about|of)|considering|planning|plan to|going to|gonna|want to|wanna|used to|pretend|imagine|joke|kidding)\b`)
	clauseEndRe  = lazy(`(?:,|;| -| —)\s+(?i:so|but|and|because|since|which|though|keep|please|as|then)\b|;`)
	listSepRe    = lazy(`,\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+`)
	// thingListRe is a list of things a text opens with.
	thingListRe = lazy(`^` + pThing + pListEnd)
	// listTailRe is the rest of a list its first item's comma cut short:
	// ", latex and shellfish", ", eggs, or sesame" (items of up to three
	// words, the last joined by "and" or "or", then the list's end).
	listTailRe = lazy(`^((?:,\s*` + pItem + `)*,?\s+(?i:and|or)\s+` + pItem + `)` + pListEnd)
	// presentRe turns from the past to now: "..., but now", "; these days".
	presentRe = lazy(`(?i)(?:[,;]\s*|\s)(?:but|and|so)?\s*(?:now|these days|nowadays)\b,?`)
	// deniedRe ends a clause that denies what follows.
	deniedRe = lazy(`(?i)\b(?:not|no longer|never|don't|doesn't|didn't|isn't|wasn't|won't|don’t|doesn’t|didn’t)\s+(?:[^\s,;:.!]+\s+){0,2}$`)
)

// sentenceClaims is every claim sentence s of m states, said by who.
func sentenceClaims(s string, m *store.Memory, who string) []profileClaim {
	s = strings.TrimSpace(fillerRe.ReplaceAllString(s, ""))
	s = strings.TrimRight(s, ".!…;: ")
	if len(s) < 6 || strings.Contains(s, "?") {
		return nil
	}
	sw := wordsFor(who)
	// A standing rule is given to the assistant: in a chat between people
	// (a named speaker), "never give up" is advice to the other.
	if c, ok := ruleClaim(s, sw); ok && who == "user" {
		return []profileClaim{c}
	} else if ok {
		return nil
	}
	if notProfileRe.MatchString(s) {
		if s = presentClause(s); s == "" {
			return nil
		}
	}
	var out []profileClaim
	for _, rule := range profileRules {
		out = append(out, rule(s, sw)...)
	}
	return out
}

// presentClause is what s says holds now after a past or a wish it first
// states ("I used to drive in, but now I take the tram"), "" when it says
// nothing of now or that too is no standing truth.
func presentClause(s string) string {
	loc := presentRe.FindStringIndex(s)
	if loc == nil || notProfileRe.MatchString(s[loc[1]:]) {
		return ""
	}
	return strings.TrimSpace(s[loc[1]:])
}

// profileRules are the rules tried on every sentence, each on its own.
var profileRules = []func(s string, sw subjectWords) []profileClaim{
	healthClaims, dietClaims, workClaims, peopleClaims, petClaims, identityClaims, homeClaims, carClaims,
	routineClaims, preferenceClaims, providerClaims, commuteClaims, listClaims, petGoneClaims, languageClaims,
	hobbyClaims,
}

// denied reports whether the match at i in s is denied by what leads up to it.
func denied(s string, i int) bool { return deniedRe.MatchString(s[:i]) }

// value trims a captured value.
func value(v string) string {
	v = strings.TrimSpace(strings.TrimRight(v, " ,;:.!"))
	for _, a := range []string{"the ", "a ", "an ", "my ", "our "} {
		v = strings.TrimPrefix(v, a)
	}
	return v
}

func healthClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	for _, g := range allergyRe.FindAllStringSubmatchIndex(s, -1) {
		neg := g[2] >= 0 // "not allergic to penicillin after all" retires that allergy alone
		if denied(s, g[0]) {
			continue
		}
		for _, v := range splitList(s[g[4]:listEnd(s, g[5])]) {
			if neg && (notThings[v] || anything[v]) {
				continue // "not allergic to anything" names no allergy
			}
			out = append(out, profileClaim{key: "allergy", value: v, ended: neg,
				text: sw.name + " is allergic to " + v + "."})
		}
	}
	for _, g := range othersAllergyRe.FindAllStringSubmatchIndex(s, -1) {
		n := nameAt(s, g[2], g[3])
		if denied(s, g[0]) || !isPersonName(n) {
			continue
		}
		for _, v := range splitList(s[g[4]:listEnd(s, g[5])]) {
			out = append(out, profileClaim{subject: n, key: "allergy", value: v, text: n + " is allergic to " + v + "."})
		}
	}
	if g := allergyNounRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		v := strings.TrimPrefix(strings.TrimPrefix(value(s[g[2]:g[3]]), "severe "), "mild ")
		out = append(out, profileClaim{key: "allergy", value: v, text: sw.name + " is allergic to " + v + "."})
	}
	if g := intolerantRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		v := strings.ToLower(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "intolerance", value: v, text: sw.name + " is " + v + " intolerant."})
	}
	if g := intolerantToRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		v := value(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "intolerance", value: v, text: sw.name + " is intolerant to " + v + "."})
	}
	if c, ok := medicationClaim(s, sw); ok {
		out = append(out, c)
	}
	if c, ok := conditionClaim(s, sw); ok {
		out = append(out, c)
	} else if c, ok := conditionAdjClaim(s, sw); ok {
		out = append(out, c)
	}
	return out
}

// conditionAdjClaim: a condition named by its adjective ("I'm coeliac",
// "since I'm type 1 diabetic"), as the condition's noun.
func conditionAdjClaim(s string, sw subjectWords) (profileClaim, bool) {
	g := conditionAdjRe.FindStringSubmatchIndex(s)
	if g == nil || denied(s, g[0]) {
		return profileClaim{}, false
	}
	adj := strings.ToLower(s[g[2]:g[3]])
	words := strings.Fields(adj)
	last := words[len(words)-1]
	noun, pre := conditionAdjectives[strings.TrimPrefix(strings.TrimPrefix(last, "pre-"), "pre")], ""
	if strings.HasPrefix(last, "pre") {
		pre = "pre"
	}
	v := strings.Join(append(words[:len(words)-1], pre+noun), " ")
	return profileClaim{key: "condition", value: v, text: sw.name + " has " + v + "."}, true
}

// conditionAdjectives are the conditions a person is said to be by an
// adjective, and the condition's name.
var conditionAdjectives = map[string]string{
	"coeliac": "coeliac disease", "celiac": "celiac disease", "diabetic": "diabetes", "asthmatic": "asthma",
	"epileptic": "epilepsy", "anaemic": "anaemia", "anemic": "anemia", "arthritic": "arthritis",
	"autistic": "autism", "dyslexic": "dyslexia", "dyspraxic": "dyspraxia", "haemophiliac": "haemophilia",
	"hemophiliac": "hemophilia", "insomniac": "insomnia", "hypertensive": "hypertension", "hypothyroid": "hypothyroidism",
}

// conditionAdjectiveWords is conditionAdjectives' adjectives, for a regexp.
const conditionAdjectiveWords = `coeliac|celiac|diabetic|asthmatic|epileptic|anaemic|anemic|arthritic|autistic|dyslexic|dyspraxic|haemophiliac|hemophiliac|insomniac|hypertensive|hypothyroid`

// anything are the words of no allergy in particular.
var anything = map[string]bool{"anything": true, "nothing": true, "any": true, "anything else": true, "them": true, "that": true}

// medicationClaim: a drug, by its WordNet kind, the speaker takes or stopped taking.
func medicationClaim(s string, sw subjectWords) (profileClaim, bool) {
	g := medicationRe.FindStringSubmatchIndex(s)
	if g == nil || denied(s, g[0]) {
		return profileClaim{}, false
	}
	drug := strings.ToLower(s[g[4]:g[5]])
	if !isKind(drug, "drug", "medicine", "medication", "medicament", "antibiotic", "nsaid", "antidepressant", "hormone") {
		return profileClaim{}, false
	}
	if g[2] >= 0 {
		return profileClaim{key: "medication", value: drug, ended: true, text: sw.name + " no longer takes " + drug + "."}, true
	}
	return profileClaim{key: "medication", value: drug, text: sw.name + " takes " + drug + "."}, true
}

// conditionClaim: an illness the speaker has, by its WordNet kind; said
// as a diagnosis or as suffering from it, whatever it is. A passing
// ailment ("a cold") is not a condition.
func conditionClaim(s string, sw subjectWords) (profileClaim, bool) {
	g := conditionRe.FindStringSubmatchIndex(s)
	if g == nil || denied(s, g[0]) {
		return profileClaim{}, false
	}
	lead := strings.ToLower(s[g[0]:g[2]])
	words := strings.Fields(strings.ToLower(s[g[2]:g[3]]))
	for i, w := range words {
		if conditionStop[w] {
			words = words[:i]
			break
		}
	}
	anyKind := strings.Contains(lead, "diagnos") || strings.Contains(lead, "suffer") || strings.Contains(lead, "live with")
	for n := len(words); n > 0; n-- {
		last := words[n-1]
		if passing[last] {
			return profileClaim{}, false
		}
		if isKind(last, "disease", "disorder", "illness", "malady", "sickness", "syndrome") || anyKind && n == len(words) {
			v := strings.Join(words[:n], " ")
			return profileClaim{key: "condition", value: v, text: sw.name + " has " + v + "."}, true
		}
	}
	return profileClaim{}, false
}

// conditionStop ends the name of a condition: "migraines since 2019".
var conditionStop = map[string]bool{"since": true, "for": true, "and": true, "in": true, "last": true, "from": true,
	"when": true, "after": true, "but": true, "at": true, "this": true, "so": true, "which": true, "as": true}

// passing are ailments that come and go: never a profile's condition.
var passing = map[string]bool{"cold": true, "flu": true, "fever": true, "cough": true, "headache": true,
	"hangover": true, "bug": true, "cold sore": true, "sore": true, "infection": true, "rash": true, "temperature": true}

func dietClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	g := dietRe.FindStringSubmatchIndex(s)
	if g == nil {
		g = dietNowRe.FindStringSubmatchIndex(s)
	}
	if g != nil && !denied(s, g[0]) {
		v := strings.ToLower(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "diet", value: v, text: sw.name + " is " + v + "."})
	}
	if g := dietEndRe.FindStringSubmatchIndex(s); g != nil {
		v := strings.ToLower(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "diet", value: v, ended: true, text: sw.name + " is no longer " + v + "."})
	}
	if g := noEatRe.FindStringSubmatchIndex(s); g != nil && len(out) == 0 { // diet holds one value: "vegetarian" says more
		v := strings.ToLower(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "diet", value: "no " + v, text: sw.name + " does not eat " + v + "."})
	}
	return out
}

func workClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	employer := func(org string) {
		out = append(out, profileClaim{key: "employer", value: org, text: sw.name + " works at " + org + "."})
	}
	if g := leftForRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		old := s[g[2]:g[3]]
		out = append(out, profileClaim{key: "employer", value: old, ended: true, text: sw.name + " worked at " + old + "."})
		employer(s[g[4]:g[5]])
	} else if g := titleAtRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isOccupation(s[g[2]:g[3]]) {
		title, org := strings.ToLower(s[g[2]:g[3]]), s[g[4]:g[5]]
		out = append(out, profileClaim{key: "job_title", value: title, text: sw.name + " is " + article(title) + " " + title + "."})
		employer(org)
	} else if g := worksAtRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isOrg(s[g[2]:g[3]]) && !joinedFor(s, g) {
		employer(s[g[2]:g[3]])
	}
	if g := worksAsRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isOccupation(s[g[2]:g[3]]) {
		title := strings.ToLower(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "job_title", value: title, text: sw.name + " works as " + article(title) + " " + title + "."})
	}
	if g := managerRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isPersonName(s[g[2]:g[3]]) {
		n := s[g[2]:g[3]]
		out = append(out, profileClaim{key: "manager", value: n, text: n + " is " + possLower(sw) + " manager."})
	}
	if g := colleagueRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isPersonName(s[g[2]:g[3]]) {
		n := s[g[2]:g[3]]
		out = append(out, profileClaim{key: "colleague", value: n, text: n + " is " + possLower(sw) + " colleague."})
	}
	return out
}

// joinedFor reports whether the employer match g is someone joined for
// something: "I joined Maya for lunch".
func joinedFor(s string, g []int) bool {
	return strings.Contains(strings.ToLower(s[g[0]:g[2]]), "joined") && strings.HasPrefix(strings.ToLower(s[g[3]:]), " for ")
}

// kinKeys are the family words whose person is a claim of the speaker's
// (partner, child, parent, sibling); the rest make the person's relation.
var kinKeys = map[string]string{
	"wife": "partner", "husband": "partner", "partner": "partner", "girlfriend": "partner", "boyfriend": "partner",
	"fiancée": "partner", "fiancee": "partner", "fiancé": "partner", "fiance": "partner",
	"son": "child", "daughter": "child", "stepson": "child", "stepdaughter": "child",
	"mum": "parent", "mom": "parent", "mother": "parent", "dad": "parent", "father": "parent",
	"brother": "sibling", "sister": "sibling", "twin": "sibling",
}

func peopleClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	for _, g := range kinRe.FindAllStringSubmatchIndex(s, -1) {
		word, n := strings.ToLower(s[g[2]:g[3]]), s[g[4]:g[5]]
		if denied(s, g[0]) || !isPersonName(n) {
			continue
		}
		text := n + " is " + possLower(sw) + " " + word + "."
		if key, ok := kinKeys[word]; ok {
			out = append(out, profileClaim{key: key, value: n, text: text})
		} else {
			out = append(out, profileClaim{subject: n, key: "relation", value: word, text: text})
		}
	}
	if g := marriedRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isPersonName(s[g[2]:g[3]]) {
		n := s[g[2]:g[3]]
		out = append(out, profileClaim{key: "partner", value: n, text: sw.name + " is married to " + n + "."})
	}
	if g := schoolRunRe.FindStringSubmatchIndex(s); g != nil && isPersonName(s[g[2]:g[3]]) {
		n, place := nameAt(s, g[2], g[3]), strings.ToLower(s[g[4]:g[5]])
		out = append(out, profileClaim{key: "child", value: n, text: n + " is " + possLower(sw) + " child; " + n + " goes to " + place + "."})
	}
	return out
}

// petWords name pets WordNet files under other senses ("labrador" is a
// region there), each with its animal.
var petWords = map[string]string{
	"labrador": "dog", "lab": "dog", "labradoodle": "dog", "cockapoo": "dog", "cavapoo": "dog", "puppy": "dog",
	"pup": "dog", "springer": "dog", "collie": "dog", "staffie": "dog", "frenchie": "dog", "kitten": "cat",
	"kitty": "cat", "bunny": "rabbit", "budgie": "bird", "parrot": "bird", "tortoise": "tortoise",
}

// petAnimal is the animal word w names, by petWords or its WordNet kinds.
func petAnimal(w string) (string, bool) {
	if a, ok := petWords[w]; ok {
		return a, true
	}
	for _, a := range []string{"dog", "cat", "rabbit", "hamster", "guinea pig", "horse", "pony", "ferret", "gerbil", "rat", "mouse",
		"chicken", "hen", "duck", "goose", "goat", "sheep", "alpaca", "pig", "fish", "goldfish", "snake", "lizard", "gecko",
		"canary", "axolotl", "chinchilla", "degu", "donkey"} {
		if w == a {
			return a, true
		}
	}
	switch {
	case isKind(w, "dog"):
		return "dog", true
	case isKind(w, "feline", "cat"):
		return "cat", true
	}
	return "", false
}

func petClaims(s string, sw subjectWords) []profileClaim {
	for _, re := range []*lazyRegexp{petAfterRe, petBeforeRe} {
		for _, g := range re.FindAllStringSubmatchIndex(s, -1) {
			word, n := s[g[2]:g[3]], s[g[4]:g[5]]
			if re == petBeforeRe {
				word, n = n, nameAt(s, g[2], g[3])
			}
			word = strings.ToLower(word)
			animal, ok := petAnimal(word)
			if !ok || !isPersonName(n) || denied(s, g[0]) {
				continue
			}
			return []profileClaim{{key: "pet", value: n, text: petText(n, word, animal, sw)}}
		}
	}
	return nil
}

func identityClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	if g := nameRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isPersonName(s[g[2]:g[3]]) {
		n := s[g[2]:g[3]]
		out = append(out, profileClaim{key: "name", value: n, text: sw.poss + " name is " + n + "."})
	}
	if g := birthdayRe.FindStringSubmatchIndex(s); g != nil && hasDigits(s[g[2]:g[3]]) {
		d := value(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "birthday", value: d, text: sw.poss + " birthday is " + d + "."})
	}
	if g := phoneLineRe.FindStringSubmatchIndex(s); g != nil {
		v := strings.TrimSpace(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "phone", value: v, text: sw.poss + " phone number is " + v + "."})
	}
	if g := emailLineRe.FindStringSubmatchIndex(s); g != nil {
		v := strings.TrimRight(s[g[2]:g[3]], ".,;")
		out = append(out, profileClaim{key: "email", value: v, text: sw.poss + " email address is " + v + "."})
	}
	return out
}

func homeClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	if g := addressLineRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		v := value(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "address", value: v, text: sw.name + " lives at " + v + "."})
	} else if g := cityLineRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) && isOrg(s[g[2]:g[3]]) && !withForRe.MatchString(s) {
		v := s[g[2]:g[3]]
		out = append(out, profileClaim{key: "city", value: v, text: sw.name + " lives in " + v + "."})
	}
	if g := tzLineRe.FindStringSubmatchIndex(s); g != nil && isTimezone(s[g[2]:g[3]]) {
		v := s[g[2]:g[3]]
		out = append(out, profileClaim{key: "timezone", value: v, text: sw.poss + " time zone is " + v + "."})
	}
	if g := rentLineRe.FindStringSubmatchIndex(s); g != nil && strings.Contains(strings.ToLower(s), "rent") {
		v := strings.TrimSpace(s[g[2]:g[3]])
		out = append(out, profileClaim{key: "rent", value: v, text: sw.poss + " rent is " + v + "."})
	}
	return out
}

func carClaims(s string, sw subjectWords) []profileClaim {
	g := carLineRe.FindStringSubmatchIndex(s)
	if g == nil || denied(s, g[0]) || !isOrg(s[g[6]:g[7]]) {
		return nil
	}
	v, low, said := s[g[6]:g[7]], strings.ToLower(s), strings.ToLower(s[g[0]:])
	vehicle := kinds.Holds(v, "vehicle")
	if !vehicle && g[5] > g[4] {
		return nil // "I drive a lot for Deliveroo": words before a name that is no vehicle
	}
	if !vehicle && !strings.HasPrefix(said, "i drive") && !strings.HasPrefix(said, "my car") &&
		!strings.Contains(low, "car") && !strings.Contains(low, "dealer") && !strings.Contains(low, "garage") {
		return nil // "bought a new Dyson" is no car
	}
	if !vehicle && (strings.Contains(said, " ride") || strings.Contains(said, " got")) {
		return nil // "I ride a horse called Biscuit", "we've got a new Dyson": what is ridden or had must be a vehicle
	}
	verb := " drives "
	if kinds.Holds(v, "motorcycle") || kinds.Holds(v, "bicycle") {
		verb = " rides "
	}
	return []profileClaim{{key: "car", value: v, text: sw.name + verb + article(v) + " " + v + "."}}
}

// ruleClaim is a standing instruction: "Never book me on flights before 9",
// "Always copy Priya on invoices".
func ruleClaim(s string, sw subjectWords) (profileClaim, bool) {
	g := ruleRe.FindStringSubmatch(s)
	if g == nil {
		return profileClaim{}, false
	}
	verb := strings.ToLower(g[1])
	if verb != "always" {
		verb = "never"
	}
	if next := strings.ToLower(strings.Trim(strings.Fields(g[2])[0], ",.!")); notImperative[next] || pastVerbs[next] ||
		strings.HasSuffix(next, "ed") || strings.HasSuffix(next, "ing") {
		return profileClaim{}, false // "Always fun to see you", "Never mind", "Never had the time"
	}
	rule := verb + " " + thirdPersonObject(g[2], sw)
	return profileClaim{key: "rule", value: rule, text: possCap(sw) + " standing rule: " + rule + "."}, true
}

// notImperative are the words after "never" or "always" that make no
// instruction of it.
var notImperative = map[string]bool{"mind": true, "fun": true, "good": true, "nice": true, "great": true, "happy": true,
	"a": true, "an": true, "the": true, "so": true, "too": true, "been": true, "was": true, "is": true, "knew": true,
	"thought": true, "again": true, "ever": true, "more": true, "better": true, "lovely": true, "here": true,
	"there": true, "up": true, "say": true, "easy": true, "late": true, "alone": true}

// notPreferred start what someone loves in the moment, not as a taste:
// "I love your garden", "I love the way it turned out", "I love having you here".
var notPreferred = map[string]bool{"the": true, "your": true, "his": true, "her": true, "their": true, "them": true,
	"him": true, "these": true, "those": true, "how": true, "way": true, "not": true, "having": true, "seeing": true,
	"hearing": true, "being": true, "getting": true, "all": true, "every": true, "everything": true, "everyone": true,
	"our": true, "my": true, "u": true, "ya": true}

// pastVerbs are verbs of the past: "I had swimming every Monday" was a routine.
var pastVerbs = map[string]bool{"had": true, "went": true, "did": true, "was": true, "were": true, "took": true,
	"made": true, "got": true, "saw": true, "ran": true, "swam": true, "taught": true, "came": true, "used": true,
	"thought": true, "knew": true, "felt": true, "said": true, "told": true, "heard": true, "met": true}

func routineClaims(s string, sw subjectWords) []profileClaim {
	g := routineRe.FindStringSubmatch(firstClause(s))
	if g == nil || pastVerbs[strings.ToLower(g[1])] || strings.HasSuffix(strings.ToLower(g[1]), "ed") {
		return nil
	}
	what := thirdPersonVerb(strings.ToLower(g[1])) + " " + thirdPersonObject(g[2], sw)
	return []profileClaim{{key: "routine", value: strings.ToLower(g[1]) + " " + g[2], text: sw.name + " " + what + "."}}
}

func preferenceClaims(s string, sw subjectWords) []profileClaim {
	g := preferenceRe2.FindStringSubmatch(firstClause(s))
	if g == nil {
		return nil
	}
	obj := strings.TrimSpace(g[2])
	for _, tail := range []string{" so much", " a lot", " too", " as well"} {
		obj = strings.TrimSuffix(obj, tail)
	}
	if first := strings.ToLower(strings.Fields(obj + " x")[0]); notThings[first] || notPreferred[first] || len(strings.Fields(obj)) > 6 {
		return nil
	}
	verb := strings.ToLower(g[1])
	stance := "loves"
	switch {
	case verb == "adore":
		stance = "adores"
	case verb == "hate" || verb == "detest" || strings.Contains(verb, "stand"):
		stance = "dislikes"
	}
	obj = thirdPersonObject(obj, sw)
	return []profileClaim{{key: "preference", value: stance + " " + obj, text: sw.name + " " + stance + " " + obj + "."}}
}

// thirdPersonObject rewrites the speaker's first-person words in a clause
// about them: "book me" is "book the user", "my" is "the user's".
func thirdPersonObject(s string, sw subjectWords) string {
	words := strings.Fields(s)
	for i, w := range words {
		switch strings.ToLower(strings.Trim(w, ",.")) {
		case "me", "myself":
			words[i] = strings.Replace(w, w[:len(strings.Trim(w, ",."))], sw.obj, 1)
		case "my":
			words[i] = "their"
		case "i":
			words[i] = sw.obj
		}
	}
	return strings.Join(words, " ")
}

// thirdPersonVerb is verb as said of someone else: "have" is "has".
func thirdPersonVerb(v string) string {
	switch v {
	case "have":
		return "has"
	case "am":
		return "is"
	case "do", "go":
		return v + "es"
	}
	switch {
	case strings.HasSuffix(v, "s"), strings.HasSuffix(v, "sh"), strings.HasSuffix(v, "ch"), strings.HasSuffix(v, "x"):
		return v + "es"
	case strings.HasSuffix(v, "y") && len(v) > 2 && !strings.ContainsAny(v[len(v)-2:len(v)-1], "aeiou"):
		return v[:len(v)-1] + "ies"
	}
	return v + "s"
}

func possLower(sw subjectWords) string {
	if sw.obj == "the user" {
		return "the user's"
	}
	return sw.poss
}

func possCap(sw subjectWords) string { return sw.poss }

// firstClause is s up to a clause that adds a reason or a request:
// "I hate coriander, keep it off the orders" is "I hate coriander".
func firstClause(s string) string {
	if loc := clauseEndRe.FindStringIndex(s); loc != nil {
		return s[:loc[0]]
	}
	return s
}

// listEnd is where the list of things ending at end in s ends: past
// ", latex and shellfish" when the comma at end goes on with more items,
// not when it opens a clause (", so I carry a card and an EpiPen").
func listEnd(s string, end int) int {
	g := listTailRe.FindStringSubmatchIndex(s[end:])
	if g == nil || !strings.HasPrefix(s[end:], ",") {
		return end
	}
	for _, w := range text.Words(strings.ToLower(s[end : end+g[3]])) {
		if w != "and" && w != "or" && text.IsStopword(w) {
			return end // "penicillin, so I carry a card and an EpiPen": a clause, not items
		}
	}
	return end + g[3]
}

// splitList splits "penicillin and latex" into its items.
func splitList(s string) []string {
	var out []string
	for _, p := range listSepRe.Split(s, -1) {
		if v := value(p); v != "" && len(strings.Fields(v)) <= 4 {
			out = append(out, strings.ToLower(v))
		}
	}
	return out
}

// isKind reports whether word w is, by the WordNet kinds, one of kinds.
func isKind(w string, ks ...string) bool {
	of := " " + kinds.Of(w) + " "
	for _, k := range ks {
		if strings.Contains(of, " "+k+" ") {
			return true
		}
	}
	return false
}

// isOccupation reports whether title names a person's work: its last word
// is a kind of person, or shaped like an agent noun.
func isOccupation(title string) bool {
	w := strings.Fields(strings.ToLower(title))
	if len(w) == 0 {
		return false
	}
	last := w[len(w)-1]
	if isKind(last, "animate", "person", "worker", "expert", "professional", "specialist", "administrator", "creator", "businessperson") {
		return true
	}
	for _, suf := range []string{"er", "or", "ist", "ian", "ant", "ent", "eer", "ive", "ect"} {
		if strings.HasSuffix(last, suf) && len(last) > 4 {
			return true
		}
	}
	return false
}

// notNames are capitalised words that start sentences or name days and
// months, never a person, employer or pet.
var notNames = map[string]bool{"I": true, "The": true, "A": true, "My": true, "Our": true, "We": true, "He": true,
	"She": true, "They": true, "It": true, "This": true, "That": true, "Then": true, "Today": true, "Tomorrow": true,
	"Yesterday": true, "Monday": true, "Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true,
	"Saturday": true, "Sunday": true, "January": true, "February": true, "March": true, "April": true, "May": true,
	"June": true, "July": true, "August": true, "September": true, "October": true, "November": true, "December": true,
	"Home": true, "Work": true, "Mum": true, "Mom": true, "Dad": true}

func isPersonName(n string) bool { return isOrg(n) }

// nameAt is the name captured at s[i:j], without a capitalised first word
// that only starts the sentence ("Walked Rex").
func nameAt(s string, i, j int) string {
	n := s[i:j]
	if first, rest, two := strings.Cut(n, " "); i == 0 && two && !isKind(strings.ToLower(first), "animate", "person") {
		return rest
	}
	return n
}

// isOrg reports whether v reads as a proper name: capitalised, not a
// sentence word, a day or a month.
func isOrg(v string) bool {
	f := strings.Fields(v)
	return len(f) > 0 && isProperName(v) && !notNames[f[0]]
}

func isTimezone(v string) bool {
	if strings.Contains(v, "/") {
		return true
	}
	switch strings.TrimRight(v, "+-0123456789") {
	case "UTC", "GMT", "BST", "CET", "CEST", "EET", "EEST", "WET", "WEST", "EST", "EDT", "CST", "CDT", "MST", "MDT",
		"PST", "PDT", "IST", "JST", "KST", "AEST", "AEDT", "NZST", "NZDT", "SGT", "HKT":
		return true
	}
	return false
}

// article is "an" before a vowel sound's letter, else "a".
func article(w string) string {
	if w != "" && strings.ContainsAny(strings.ToLower(w[:1]), "aeiou") {
		return "an"
	}
	return "a"
}
