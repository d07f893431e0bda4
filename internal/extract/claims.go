package extract

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Claims: the (entity, attribute, value) a durable sentence states, keyed so
// that successive values of the same thing collide and the newer supersedes
// the older. "Our rent is 1,450 a month" and "the landlord raised the rent
// to 1,520 a month" are both rent/amount; "my phone number is 555-0142" and
// "I changed carriers, my phone number is now 555-0199" are both
// user/phone number; "the Q3 budget is $2.1M, not $2.4M" is Q3 budget/amount
// = $2.1M (a negated value is never the claim).

const (
	// amountText is a quantity: "$2.4M", "1,450 a month", "€30k", "12.5 million".
	amountText = `[$€£]?\d[\d,]*(?:\.\d+)?(?: ?(?:[kKmMbB]n?|million|billion|thousand)\b)?(?: ?(?:%|percent|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|kg|km|miles?|GB|MB|TB|people|users))?(?: (?:a|per|each|every) (?:month|year|week|day|hour|night))?`
	// possText is a thing's possessor or article.
	possText = `(?:((?i:the|our|my|your|his|her|their)) )?`
	// thingText is the thing a claim is about: "rent", "Q3 budget".
	thingText = `([\p{L}\p{N}][\p{L}\p{N}'’-]*(?: [\p{L}\p{N}'’-]+){0,3}?)`
	copula    = `(?:is|are|was|were|has been|have been|got|will be|costs?|came to|comes to|totals?|totall?ed)`
	changed   = `(?:approved|confirmed|set|agreed|fixed|capped|budgeted|raised|increased|lowered|reduced|cut|changed|updated|bumped|revised|corrected|moved|pushed|postponed|delayed|rescheduled|brought forward)`
)

var (
	// labelRe is a label before the claim: "Correction from finance: ".
	labelRe = lazy(`^(?i:correction|corrected|update|updated|change|changed|note|fyi|heads up|reminder)(?: from [\p{L}\p{N}' -]{1,30})?[:,-] +`)
	// reportedRe is reported speech: "Earlier you said (that) ".
	reportedRe = lazy(`^(?:(?i:earlier|before|previously|last time|as|so|and),? )*(?i:you) (?:said|told me|mentioned|wrote|noted)(?: (?:earlier|before|that))* `)
	// amountClaimRe: "the Q3 budget is $2.1M", "Q3 budget approved at
	// $2.4M", "our rent is now 1,450 a month".
	amountClaimRe = lazy(`^` + possText + thingText + ` (?:` + copula +
		`(?: now| still| about| around| roughly| only)*(?: ` + changed + `)?|` + changed + `)(?: now)?(?: at| to| for)?,? (` + amountText + `)(?:[^\p{L}\p{N}-]|$)`)
	// changeRe: "the landlord raised the rent to 1,520 a month".
	changeRe = lazy(`\b(?:raised|increased|lowered|reduced|cut|changed|moved|updated|bumped|pushed|put|set|revised|corrected|postponed|delayed|rescheduled)(?: up| down| back| forward)? ` +
		possText + thingText + `(?: up| down| back| forward)?(?: from .{1,40}?)? to (.{1,80})$`)
	// passiveRe: "the launch was moved to May 19", "my rent went up to 900".
	passiveRe = lazy(`^` + possText + thingText + ` (?:(?:is|are|was|were|has been|have been|got|is being)(?: now)? ` + changed +
		`|went (?:up|down)|has gone (?:up|down)|slipped|moved|changed|rose|fell|dropped)(?: back| forward| up| down)?(?: again)?(?: from .{1,40}?)? to (.{1,80})$`)
	// appositionRe: "send it to my home address, 12 Birch Lane, Harwick".
	appositionRe = lazy(`\b(my|our) ([a-z][a-z -]{1,30}?)(?:,| is| -|:) ((?:\+|\d|[A-Z]).{1,80})$`)
	// negationRe ends a clause that denies: what follows it is never a claimed value.
	negationRe = lazy(`(?i)\b(?:not|no longer|never|rather than|instead of|isn't|aren't|wasn't|weren't|isn’t|wasn’t)\b[^,;:]*$`)
	// phoneRe is a phone number.
	phoneRe = lazy(`^\+?\(?\d[\d ()-]{4,}\d`)
	// denialRe is a clause right after a claimed value that denies another:
	// ", not $2.4M", " rather than May 12".
	denialRe      = lazy(`^(?i:[,;]? *(?:but |and )?(?:not|rather than|instead of|no longer)\b[^,;:]*)`)
	amountStartRe = lazy(`^` + amountText)
	payStartRe    = lazy(`^` + paySum)
	amountWholeRe = lazy(`^` + amountText + `(?:[^\p{L}\p{N}]|$)`)
	// clauseRe splits a sentence into clauses.
	clauseRe = lazy(`(?:[:;]|, (?:and |but |so )?| - | — ) *`)
)

// personal possessors: "my salary is $90k" is the speaker's attribute,
// which the shapes of KeyFacts find.
var personal = map[string]bool{"my": true, "your": true, "his": true, "her": true, "their": true}

// pronouns and words that are never the thing a claim is about.
var notThings = map[string]bool{"i": true, "we": true, "you": true, "he": true, "she": true, "it": true, "they": true,
	"this": true, "that": true, "since": true, "when": true, "because": true, "if": true,
	"as": true, "so": true, "and": true, "but": true, "or": true, "then": true, "just": true, "also": true, "from": true, "to": true, "up": true, "down": true, "back": true, "there": true, "here": true, "what": true, "which": true, "who": true, "one": true}

// AttributeKey is an attribute's canonical name: its claim key (claim.Key)
// when the key holds one value, so "mobile", "cell" and "new number" are
// all the phone and a newer one supersedes the older. A key that holds
// several values (child, allergy) keeps the attribute's own words, so a
// second child does not supersede the first.
func AttributeKey(s string) string {
	if k, single := claim.Key(s); single {
		return k
	}
	return claim.NormalAttribute(s)
}

// cleanClaim drops what comes before a claim: fillers, labels ("Correction
// from finance:") and reported speech ("Earlier you said").
func cleanClaim(s string) (string, bool) {
	reported := false
	for range 4 { // "Update: noted, earlier you said ..." peels in a few rounds
		t := s
		if strings.ContainsAny(t[:min(len(t), 60)], ":,-") {
			t = strings.TrimSpace(fillerRe.ReplaceAllString(t, ""))
			t = labelRe.ReplaceAllString(t, "")
		}
		if containsLower(t[:min(len(t), 60)], "you ") {
			if r := reportedRe.ReplaceAllString(t, ""); r != t {
				t, reported = r, true
			}
		}
		if t == s {
			break
		}
		s = t
	}
	return s, reported
}

// claimFacts finds the claims of sentence s of m that the shapes of
// KeyFacts do not: amounts, changes of value, corrections, appositions and
// corrections. s is already cleaned.
func claimFacts(s string, m *store.Memory, f llm.KeyFact) []llm.KeyFact {
	set := func(entity, etype, attr, value, typ string) []llm.KeyFact {
		value = claimValue(value)
		if entity == "" || value == "" || negated(s, value) {
			return nil
		}
		f.Entity, f.EntityType, f.Attribute, f.Value, f.FactType = entity, etype, attr, value, typ
		return []llm.KeyFact{f}
	}
	// Cheap tests first: most sentences state none of these, and the
	// regular expressions are what a day's consolidation spends its time on.
	if out := changeFacts(s, m, f); out != nil {
		return out
	}
	if containsLower(s, "my ") || containsLower(s, "our ") {
		if g := appositionRe.FindStringSubmatch(s); g != nil {
			if attr := AttributeKey(g[2]); isIdentifier(attr) {
				if e, t, a, ok := claimKey(strings.ToLower(g[1]), g[2], g[3], m); ok && a == attr {
					return set(e, t, a, g[3], Attribute)
				}
			}
		}
	}
	if strings.Contains(s, " to ") {
		for _, re := range []*lazyRegexp{changeRe, passiveRe} {
			if g := re.FindStringSubmatch(s); g != nil {
				value := valueOf(g[3], m)
				if e, t, a, ok := claimKey(strings.ToLower(g[1]), g[2], value, m); ok {
					return set(e, t, a, value, factTypeOf(a))
				}
			}
		}
	}
	if strings.ContainsAny(s, "0123456789") {
		if g := amountClaimRe.FindStringSubmatchIndex(s); g != nil && !personal[strings.ToLower(group(s, g, 1))] {
			value := group(s, g, 3)
			if startsWithTime(s[g[6]:], m) { // "the standup is at 10:30": a time, not the amount 10
				value = s[g[6]:]
			} else if d := dateAt(s[g[6]:], m); d != "" {
				value = d // "the next one is 29 October": a date, not the amount 29
			}
			if e, t, a, ok := claimKey(strings.ToLower(group(s, g, 1)), group(s, g, 2), value, m); ok {
				return set(e, t, a, value, factTypeOf(a))
			}
		}
	}
	return nil
}

// group is submatch i of s, as a FindStringSubmatchIndex result loc gives
// it; "" when it did not take part.
func group(s string, loc []int, i int) string {
	if loc[2*i] < 0 {
		return ""
	}
	return s[loc[2*i]:loc[2*i+1]]
}

// startsWithTime reports whether v begins (after "at") with a clock time
// capture found in m: "10:30 on Fridays", "at 10 am".
func startsWithTime(v string, m *store.Memory) bool {
	v = strings.TrimPrefix(strings.TrimSpace(v), "at ")
	for _, e := range m.Entities {
		if e.Type == capture.TypeTime && strings.HasPrefix(v, e.Text) {
			return true
		}
	}
	return false
}

// isIdentifier reports whether attr is a value that identifies how to
// reach someone: the attributes an apposition ("my address, 12 Birch Lane")
// states.
func isIdentifier(attr string) bool {
	return attr == "address" || attr == "phone" || attr == "email"
}

// valueOf is the claimed value in the text after "to": an amount or a
// date when it starts with one, else the text up to an aside (a clock
// time and when it recurs: "10:30 on Fridays").
func valueOf(v string, m *store.Memory) string {
	if startsWithTime(v, m) {
		return v
	}
	if a := amountStartRe.FindString(v); a != "" && !phoneRe.MatchString(v) {
		return a
	}
	if d := dateAt(v, m); d != "" {
		return d
	}
	return v
}

// dateAt is the date capture found in m that v begins with (after "on"),
// "" when it begins with none.
func dateAt(v string, m *store.Memory) string {
	for _, e := range m.Entities {
		if e.Type == capture.TypeDate && strings.HasPrefix(strings.TrimPrefix(v, "on "), e.Text) {
			return e.Text
		}
	}
	return ""
}

// claimKey is the entity and attribute a claim about thing (with its
// possessor poss: "my", "our", "the" or "") and value is keyed under. The
// speaker's own things are the speaker's attributes (user/phone number);
// "your" said by an agent is the user's; a shared thing ("our rent", "the
// rent") is an entity whose attribute is the kind of value it has
// (rent/amount, kestrel launch/date). A thing of his, her or their is not
// resolved: no claim.
func claimKey(poss, thing, value string, m *store.Memory) (entity, etype, attr string, ok bool) {
	thing = strings.TrimSpace(thing)
	words := strings.Fields(strings.ToLower(thing))
	if len(words) == 0 || notThings[words[0]] {
		return "", "", "", false
	}
	kind := valueKind(value, m)
	switch poss {
	case "my":
		e, t := Speaker(m)
		return e, t, AttributeKey(thing), true
	case "your":
		if _, t := Speaker(m); t != "agent" {
			return "", "", "", false
		}
		return "user", "person", AttributeKey(thing), true
	case "his", "her", "their":
		return "", "", "", false
	case "our":
		if kind == "" && speakersKey(thing) {
			e, t := Speaker(m)
			return e, t, AttributeKey(thing), true
		}
		if kind == "" {
			return "we", "group", AttributeKey(thing), true
		}
	}
	if kind == "" {
		return "", "", "", false
	}
	thing = strings.ToLower(thing)
	if kind == "amount" && isRent(thing) {
		return "user", "person", "rent", true
	}
	if kind == "date" {
		if name, ev, found := eventName(thing, m); found {
			return strings.ToLower(name) + " " + ev, "event", "date", true
		}
		return thing, "event", "date", true
	}
	if kind == "time" {
		return thing, "event", "time", true
	}
	return thing, "thing", kind, true
}

// speakersKey reports whether thing names a key of the vocabulary: "our
// vet", "our kids" are the speaker's, as the profile files them, so both
// layers hold one claim.
func speakersKey(thing string) bool {
	k, _ := claim.Key(thing)
	return claim.IsKey(k)
}

// valueKind says what kind of value v is: "amount", "date", "time",
// "phone number", or "" for anything else.
func valueKind(v string, m *store.Memory) string {
	v = strings.TrimSpace(v)
	switch {
	case phoneRe.MatchString(v) && strings.ContainsAny(v, "- ") && !strings.ContainsAny(v[:min(len(v), 3)], "$€£"):
		return "phone number"
	case startsWithTime(v, m): // before amounts: the 10 of 10:30 or 10 am is no quantity
		return "time"
	case dateAt(v, m) != "": // the 29 of "29 October" is no quantity either
		return "date"
	case amountWholeRe.MatchString(v):
		return "amount"
	}
	return ""
}

func factTypeOf(attr string) string {
	if attr == "date" {
		return Event
	}
	if strings.HasPrefix(attr, "favourite ") {
		return Preference
	}
	return Attribute
}

// eventName finds in s an event word and the name nearest to it: the
// "Kestrel" and "launch" of "Product launch for the Kestrel app".
func eventName(s string, m *store.Memory) (name, event string, ok bool) {
	low := strings.ToLower(s)
	evAt := -1
	for _, w := range eventWords {
		if i := wordIndex(low, w); i >= 0 && (evAt < 0 || i < evAt) {
			evAt, event = i, w
		}
	}
	if evAt < 0 {
		return "", "", false
	}
	best := -1
	for _, e := range m.Entities {
		if e.Type != capture.TypeName {
			continue
		}
		i := wordIndex(low, strings.ToLower(e.Text))
		if i < 0 {
			continue
		}
		d := i - evAt
		if d < 0 {
			d = -d
		}
		if best < 0 || d < best {
			best, name = d, e.Text
		}
	}
	return name, event, best >= 0
}

// namedEvent is the date of a named event: "Product launch for the Kestrel
// app is planned for May 12" and "The Kestrel launch slipped a week: it is
// now on May 19" are both kestrel launch/date. The date is the last one in
// s that is not denied or left behind ("not May 12", "from May 12").
func namedEvent(s string, m *store.Memory) (entity, date string, ok bool) {
	name, ev, found := eventName(s, m)
	if !found {
		return "", "", false
	}
	for _, e := range m.Entities {
		if e.Type != capture.TypeDate {
			continue
		}
		i := strings.Index(s, e.Text)
		if i < 0 || negated(s[:i+len(e.Text)], e.Text) || strings.HasSuffix(strings.ToLower(s[:i]), "from ") {
			continue
		}
		if date == "" || i > strings.Index(s, date) {
			date = e.Text
		}
	}
	if date == "" {
		return "", "", false
	}
	return strings.ToLower(name) + " " + ev, date, true
}

// wordIndex is the byte index of word w in s as a whole word, or -1.
func wordIndex(s, w string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(w)
		before := i == 0 || !isWordByte(s[i-1])
		after := end == len(s) || !isWordByte(s[end])
		if before && after {
			return i
		}
		off = i + 1
	}
}

// containsLower is strings.Contains(strings.ToLower(s), w) for w in
// lower-case ASCII, without the lower-cased copy: each of s's runes is
// lower-cased as it is compared.
func containsLower(s, w string) bool {
	for i := range s {
		if hasLowerPrefix(s[i:], w) {
			return true
		}
	}
	return false
}

func hasLowerPrefix(s, w string) bool {
	for j := 0; j < len(w); {
		if s == "" {
			return false
		}
		r, n := utf8.DecodeRuneInString(s)
		if unicode.ToLower(r) != rune(w[j]) {
			return false
		}
		s, j = s[n:], j+1
	}
	return true
}

func isWordByte(b byte) bool {
	return b < 0x80 && (unicode.IsLetter(rune(b)) || unicode.IsDigit(rune(b)))
}

// negated reports whether value, in s, is denied: "not $2.4M", "no longer
// at 12 Birch Lane", "rather than May 12".
func negated(s, value string) bool {
	i := strings.Index(s, value)
	if i < 0 {
		return false
	}
	return negationRe.MatchString(s[:i])
}

// clauses splits s at colons, semicolons and commas that join clauses.
func clauses(s string) []string {
	parts := clauseRe.Split(s, -1)
	return slices.DeleteFunc(parts, func(p string) bool { return len(strings.TrimSpace(p)) < 8 })
}

// withoutDenial is s with the clause that denies another value right after
// value taken out: a fact's content states what is, and a denied (stale)
// value in it would be offered as if it were current. "Correction from
// finance: the Q3 budget is $2.1M, not $2.4M" is stored as "Correction from
// finance: the Q3 budget is $2.1M".
func withoutDenial(s, value string) string {
	i := strings.Index(s, value)
	if value == "" || i < 0 {
		return s
	}
	head, tail := s[:i+len(value)], s[i+len(value):]
	return head + denialRe.ReplaceAllString(tail, "")
}

// plausibleAttr rejects an attribute that is a run of words rather than
// the name of one ("son's ok and that"): at most six words, no
// conjunction or relative pronoun among them.
func plausibleAttr(attr string) bool {
	if strings.HasPrefix(attr, preferenceAttr) {
		return true // the thing preferred, which may be long
	}
	w := strings.Fields(attr)
	if len(w) > 6 {
		return false
	}
	for _, x := range w {
		switch x {
		case "and", "or", "but", "that", "which", "who", "when", "because", "if", "so":
			return false
		}
	}
	return true
}

// Changes: the ways people say one of their own attributes has a new
// value without "my X is Y" ("new number: 0687 220 915", "we moved to 31
// Harbour Row", "I left Fernhill for Corvid Health", "we now pay 1,265 a
// month for the flat", "I'm on WET now", "sold the Golf and bought a Kia
// Niro"). Each is keyed by its claim key, so it supersedes the value said
// before in other words.

// changeShape is one such way: the attribute is key, or the claim key of
// group 1 when key is ""; the value is the last group. ok, when set, must
// accept the sentence and the value.
type changeShape struct {
	re  *lazyRegexp
	key string
	ok  func(s, value string) bool
}

// carMakes are the makes a bought or sold thing must name (or the sentence
// must say "car") to be the user's car.
const carMakes = `Audi|BMW|BYD|Citroen|Citroën|Cupra|Dacia|Fiat|Ford|Honda|Hyundai|Jaguar|Jeep|Kia|Land Rover|Lexus|Mazda|Mercedes|Mini|MINI|Mitsubishi|Nissan|Opel|Peugeot|Polestar|Porsche|Renault|Seat|SEAT|Skoda|Škoda|Subaru|Suzuki|Tesla|Toyota|Vauxhall|Volkswagen|VW|Volvo|Golf|Polo|Octavia|Fiesta|Corolla|Prius|Civic|Leaf|Niro|Model 3|Model Y|Clio|Yaris|Qashqai`

var (
	carMakeRe = lazy(`\b(?:` + carMakes + `)\b`)
	// timezoneRe is a timezone's abbreviation or "<Name> time".
	timezoneRe    = lazy(`^(?:UTC|GMT|BST|IST|CET|CEST|WET|WEST|EET|EEST|MSK|EST|EDT|CST|CDT|MST|MDT|PST|PDT|AKST|HST|AEST|AEDT|ACST|AWST|NZST|NZDT|JST|KST|SGT|HKT|ICT|PHT|WIB|SAST|WAT|EAT|BRT|ART|UTC[+-]\d{1,2}|GMT[+-]\d{1,2}|[A-Z][a-z]+ (?:[Ss]tandard )?[Tt]ime)$`)
	leadArticleRe = lazy(`^(?i:a|an|the) `)
	// othersRentRe is a rent that is someone else's: "my sister's rent", "their rent".
	othersRentRe = lazy(`(?i:'s|’s|\bhis|\bher|\btheir|\byour)(?: [a-z]+){0,2} rent\b`)
	// timeTailRe is when a value took effect, said after it: "Corvid
	// Health today", "senior analyst this afternoon".
	timeTailRe = lazy(`(?i)(?:,? (?:from|since|as of|starting|on|last|this|next) (?:today|tonight|yesterday|now|monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|afternoon|evening|week|weekend|month|year)|,? (?:today|tonight|yesterday|now|again))+$`)
	// emailText is an email address.
	emailText = `[\w.+-]+@[\w-]+(?:\.[\w-]+)+`
	// rentSum is a sum of money, with its currency or big enough to be one:
	// "1,290 euros", "£950", "1450"; not "the 5th".
	rentSum = `((?:[$€£] ?\d[\d,.]*|\d[\d,.]*\d ?(?i:euros?|pounds?|dollars?|eur|gbp|usd|quid)|\d{1,3}(?:,\d{3})+|\d{3,})(?: ?[kK])?(?: (?:a|per) (?:month|week))?)`
	// paySum is a sum earned in a period, or big enough to be a salary: "58,500 a year", "£14.20 an hour", "61k".
	paySum  = `((?:[$€£] ?\d[\d,.]*|\d[\d,.]*\d ?(?i:euros?|pounds?|dollars?|quid)|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)? ?[kK])(?: (?i:a|an|per) (?i:year|month|week|hour))?|\d[\d,.]* (?i:a|an|per) (?i:year|month|week|hour))`
	startRe = `^(?i:(?:i|we)(?:'ve| have| just| finally| recently| now| officially)* )?(?i:(?:just|finally|recently|now|officially) )*`
)

var changeShapes = []changeShape{
	// "new number: 0687 220 915", "my new address is ...", "updated email - ..."
	// "New email address from today: sam@kowalski.dev": when it takes effect may come first.
	{re: lazy(`^(?i:(?:my|our|the) )?(?i:new|updated|current|latest) ([a-z][a-z -]{1,30}?)(?: (?i:from|as of|starting|since|effective) (?i:today|tonight|now|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|this week))?(?: is| are|:| -| =)(?: now)? (.{2,80})$`)},
	// "my email address has changed, it's now ...", "our address has changed - it is now ..."
	{re: lazy(`^(?i:my|our) ([a-z][a-z -]{1,30}?) (?i:has changed|have changed|changed|has been changed)(?:,| -| —| to|:)* (?:(?i:it's|it is|it'll be|they're|they are) )?(?i:now )?(.{2,80})$`)},
	{re: lazy(`\b(?i:reach|call|text|ring|contact|get hold of) me (?i:on|at) (\+?\(?\d[\d ()-]{4,}\d)`), key: "phone"},
	// "send invoices to my email, sam@x.com", "email me at sam@x.com"
	{re: lazy(`\b(?:(?i:my) (?i:e-?mail|email address|work email|personal email)(?: (?i:address))?[,:]?|(?i:e-?mail|reach|contact|write to) me (?i:at|on)) (` + emailText + `)`), key: "email"},
	// "I'm on WET now", "switched to Pacific time": before a move, which the same sentence may state.
	{re: lazy(`\b(?i:i'm|i am|we're|we are|switched to|changed to)(?: now)? (?:on )?([A-Z][A-Za-z]+(?: [Ss]tandard)?(?: [Tt]ime)?|UTC[+-]\d{1,2})\b`), key: "timezone",
		ok: func(_, v string) bool { return timezoneRe.MatchString(v) }},
	{re: lazy(startRe + `(?i:moved|relocated|have moved)(?i: house| home| flat)? to ((?:\d|\p{Lu}).{1,80})$`), key: "place"},
	{re: lazy(`\b(?i:left|quit) (\p{Lu}.{1,40}?) (?i:for|to join) (\p{Lu}.{1,60})$`), key: "employer"},
	{re: lazy(startRe + `(?i:started (?:at|with)|start (?:at|with)|joined|am joining|i'm joining) (?:the )?(\p{Lu}.{1,60})$`), key: "employer",
		ok: func(_, v string) bool { return !strings.Contains(v, " for ") }},
	{re: lazy(`\b(?i:promoted to|promotion to|made up to|bumped up to|stepped up to|stepped up as|new role as|new job as|started as|now working as|took a job as|hired as)(?: an?| the)? (.{2,60})$`), key: "job_title"},
	{re: lazy(`\b(?i:now pay|now paying|pay|paying)(?: now)? (` + amountText + `),? (?i:for the (?:flat|apartment|house|place|room)|in rent|for rent|rent)\b`), key: "rent"},
	// "Paid the rent, 1,150 euros as usual", "landlord put the rent up, it's
	// 1,290 euros a month now": the last sum said after the rent is the rent.
	{re: lazy(`\b(?i:rent)\b(?:.*[^\d,.$€£])?[ ,]*` + rentSum + `[^\d]*$`), key: "rent",
		ok: func(s, _ string) bool { return !othersRentRe.MatchString(s) }},
	{re: lazy(`\b(?i:sold|got rid of|traded in|scrapped|part-exchanged) (?:the|my|our) (.{2,40}?)(?: on \w+| last \w+| yesterday)?,? (?i:and |then )?(?i:bought|got|picked up|replaced it with|for) (?:a|an|the)(?: new| used| second-hand)? (\p{Lu}.{1,40})$`), key: "car",
		ok: func(s, v string) bool {
			return carMakeRe.MatchString(s) || strings.Contains(strings.ToLower(s), " car")
		}},
	{re: lazy(`\b(?i:bought|picked up|leased|collected) (?:a|an|the|my|our)(?: new| used| second-hand| secondhand)? ((?:` + carMakes + `)\b.{0,40})$`), key: "car"},
	// "I now make 58,500 a year", "I earn £14.20 an hour", "got a pay rise to 61k": the salary by its verb.
	{re: lazy(`(?:^|[\s,;:(])(?:(?i:i)(?: now| currently| still)* (?i:make|earn|take home|bring in|get paid)|(?i:i)(?:'m|’m| am)(?: now| currently| still)* (?i:paid))(?: now)? ` + paySum), key: "salary"},
	{re: lazy(`(?:^|[\s,;:(])(?i:i)(?:'m|’m| am)(?: now| currently| still)* (?i:on) (\d[\d,.]*(?: ?[kK])? (?i:a|per) (?i:year|annum))`), key: "salary"},
	{re: lazy(`\b(?i:(?:pay )?(?:raise|rise|increase)) to ` + paySum), key: "salary"},
	{re: lazy(`^(?i:i'm|i am)(?: now)? (?i:dating|seeing|engaged to|married to|going out with) (\p{Lu}\p{L}+)`), key: "partner"},
}

// changeFacts is the change of one of the speaker's attributes s states,
// if any. What an agent says of itself is not the user's.
func changeFacts(s string, m *store.Memory, f llm.KeyFact) []llm.KeyFact {
	e, t := Speaker(m)
	if t == "agent" {
		return nil
	}
	for _, sh := range changeShapes {
		g := sh.re.FindStringSubmatch(s)
		if g == nil {
			continue
		}
		value := claimValue(g[len(g)-1])
		key := sh.key
		switch key {
		case "":
			if k, _ := claim.Key(g[1]); claim.Single(k) {
				key = k
			}
		case "place":
			value, _, _ = strings.Cut(value, " and ")
			key = placeKey(value)
		}
		if key == "" || value == "" || negated(s, value) || (sh.ok != nil && !sh.ok(s, value)) {
			continue
		}
		f.Entity, f.EntityType, f.Attribute, f.Value, f.FactType = e, t, key, value, Attribute
		return []llm.KeyFact{f}
	}
	return nil
}

// placeKey is the key of a place someone lives at: an address when it has
// a number ("31 Harbour Row"), else the city.
func placeKey(value string) string {
	if strings.ContainsAny(value, "0123456789") {
		return "address"
	}
	return "city"
}

// keyValue is the value of a claim under key as a fact keeps it: a phone
// number without the words around it, and for the speaker's canonical
// attributes without when it took effect ("from today") or what they do
// there ("Fernhill Logistics as a planner").
func keyValue(key, v string) string {
	if key == "phone" {
		if p := phoneRe.FindString(strings.TrimSpace(v)); p != "" {
			return strings.TrimSpace(p)
		}
		return v
	}
	if !claim.IsKey(key) {
		return v
	}
	if key == "salary" { // the sum, not what follows it ("11.40 to begin with")
		if p := cmp.Or(payStartRe.FindString(strings.TrimSpace(v)), amountStartRe.FindString(strings.TrimSpace(v))); p != "" {
			return p
		}
	}
	v = strings.TrimSpace(timeTailRe.ReplaceAllString(v, ""))
	for _, aside := range valueAsides[key] {
		v, _, _ = strings.Cut(v, aside)
	}
	if key == "car" || key == "employer" || key == "job_title" || key == "partner" {
		v = leadArticleRe.ReplaceAllString(v, "")
	}
	return v
}

// valueAsides end the value of a key: what the user does at an employer
// ("as a planner", "in the data team"), where a car came from, for how
// long one lives in a city.
var valueAsides = map[string][]string{
	"employer": {" as ", " in the "},
	"car":      {" from "},
	"city":     {" for "},
}

// isRent reports whether thing is the rent ("rent", "rent for the flat",
// "monthly rent"): the user's, whoever's home it is.
func isRent(thing string) bool {
	head, _, _ := strings.Cut(strings.ToLower(thing), " for ")
	head, _, _ = strings.Cut(head, " on ")
	k, _ := claim.Key(head)
	return k == "rent"
}

// StatedValues are the claims of one-valued attributes (claim.Key) that a
// memory's text states, keyed as the night's consolidation will key them
// (its facts, and the profile lines it writes of the speaker): recall
// retires with them the values a memory of today has replaced, before the
// night supersedes them.
func StatedValues(content, role string) []llm.KeyFact {
	var out []llm.KeyFact
	m := &store.Memory{Content: content, Role: role}
	for _, s := range capture.Sentences(content) {
		keys := map[string]bool{}
		for _, f := range KeyFacts(s, m) {
			if claim.Single(f.Attribute) {
				out = append(out, f)
				keys[f.Attribute] = true
			}
		}
		out = append(out, ruleFacts(s, m, keys)...) // "I'm a junior designer at Pixelworks": a title line
	}
	return out
}

// ruleFacts are the one-valued claims of the speaker that the profile
// rules read in sentence s of m, one fact each in the line's words, but
// for the keys in except: so "we switched dentists to Dr Hale" or "I take the tram to
// work", which no shape of a fact states, is a fact as well as a line, and
// the fact's history moves with the line's. An agent's words make none.
func ruleFacts(s string, m *store.Memory, except map[string]bool) []llm.KeyFact {
	who, typ := Speaker(m)
	if typ != "person" {
		return nil
	}
	var out []llm.KeyFact
	seen := map[string]bool{}
	for _, c := range sentenceClaims(s, m, who) {
		if k, single := claim.Key(c.key); single && c.subject == "" && !c.ended && !except[k] && !seen[k] {
			out = append(out, llm.KeyFact{Entity: who, EntityType: typ, Attribute: k, Value: c.value, FactType: Attribute, Content: c.text})
			seen[k] = true
		}
	}
	return out
}
