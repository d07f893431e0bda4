package extract

import (
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// The shapes of sentence that state something durable. A capitalised
// subject counts only when capture found it as a name in the memory (or it
// is the speaker), so "This is a great idea" is not a fact about "This".
const (
	nameRE = `[A-Z][\p{L}\p{N}'’-]*(?: [A-Z][\p{L}\p{N}'’-]*){0,2}`
	subjRE = `(I|[Ww]e|` + nameRE + `)`
	nounRE = `(?i:(?:the|our|my|this|his|her|their|your) )?(\p{L}[\p{L} -]{1,30}?)`
	// theRE finds "the dentist appointment is on 14 March" inside a longer sentence.
	theRE = `\b(?i:the|our|my|his|her|their) (\p{L}[\p{L} -]{1,30}?)`
)

var (
	possessiveRe = lazy(`^(` + nameRE + `)(?:'s|’s) ([a-z][a-z -]{0,30}?) (?:is|are|was|has become|will be)(?: now| still)? (.{1,80})$`)
	mineRe       = lazy(`^((?i:my|our|your)) ([a-z][a-z'’ -]{0,30}?) (?:is|are|was|has become|will be)(?: now| still)? (.{1,80})$`)
	relationRe   = lazy(`^` + subjRE + ` (?:now |just |recently |still )?(work at|works at|work for|works for|joined|live in|lives in|moved to|am based in|is based in|are based in|am married to|is married to|report to|reports to) (.{2,60})$`)
	preferenceRe = lazy(`^` + subjRE + ` (?:really |also |absolutely |still |just |totally )?(love|loves|like|likes|adore|adores|enjoy|enjoys|prefer|prefers|hate|hates|dislike|dislikes|can't stand|can’t stand) (.{2,80})$`)
	listClauseRe = lazy(pClause)
	allergicRe   = lazy(`^` + subjRE + `(?: am| is| are|'m|’m)(?: also| still| very| really| severely| badly| quite| mildly| deathly)* allergic to (.{2,80})$`)
	habitRe      = lazy(`^` + subjRE + ` (always|never) (.{2,80})$`)
	isRe         = lazy(`^(` + nameRE + `) (?:is|was) (?:now |still )?((the|our|my|their|his|her|a|an) .{2,60})$`)
	amountRe     = lazy(`^` + nounRE + ` (?:is|was|costs|cost|will cost|came to|comes to|totals|totalled|totaled)(?: about| around| roughly| now)? (.+)$`)
	dateVerbs    = ` (?:is|was|will be|is scheduled|is due|is moved|has been moved|was moved|got moved)(?: for| on| to| until| by)?(?: on| for)? (.+)$`
	dateRe       = lazy(`^` + nounRE + dateVerbs)
	innerDateRe  = lazy(theRE + dateVerbs)
	decisionRe   = lazy(`(?i)\b(decided to|decided on|decided that|agreed to|agreed on|agreed that|settled on|going with|go with|chose to|the plan is|will switch to|switched to)\b`)
	leadSubjRe   = lazy(`^` + subjRE + `\b`)
	fillerRe     = lazy(`^(?i:(?:so|well|also|btw|actually|anyway|oh|ok|okay|yeah|yes|no|hey|update|note|noted|fyi|reminder)[,:!]? +)+`)
)

// eventWords make a dated sentence an event worth keeping.
var eventWords = []string{"meeting", "appointment", "deadline", "launch", "birthday", "flight", "trip",
	"wedding", "interview", "party", "concert", "exam", "release", "demo", "review", "vacation", "holiday"}

// KeyFacts returns the durable claims a sentence of m states: at most one
// by the shapes of a fact. The whole sentence is tried first, then each of
// its clauses ("I changed carriers, my phone number is now 555-0199"); the
// fact's content is the whole sentence. A sentence no shape matches states
// the one-valued claims the profile rules read in it (ruleFacts).
func KeyFacts(s string, m *store.Memory) []llm.KeyFact {
	s = strings.TrimSpace(fillerRe.ReplaceAllString(s, ""))
	s = strings.TrimRight(s, ".!?…;: ")
	if len(s) < 8 || strings.HasSuffix(s, "?") || strings.Contains(s, "?") {
		return nil // questions state nothing
	}
	conf := 0.6
	if m.Importance >= 0.7 {
		conf = 0.7
	}
	f := llm.KeyFact{Content: s, Confidence: conf, MemoryIDs: []int64{m.ID}}
	c, _ := cleanClaim(s)
	try := []string{c}
	if parts := clauses(c); len(parts) > 1 {
		try = append(try, parts...)
	}
	for i, p := range try {
		p, _ = cleanClaim(p)
		out := claimFacts(p, m, f)
		if out == nil {
			out = shapeFacts(p, m, f, i > 0)
		}
		if out != nil && vagueEntity(out[0].Entity) {
			return nil // "it was last week": what was?
		}
		for j := range out {
			out[j].Value = keyValue(out[j].Attribute, out[j].Value)
			out[j].Content = withoutDenial(s, out[j].Value)
			if out[j].FactType == Event {
				out[j].Value = absoluteDate(out[j].Value, m.Timestamp)
			}
		}
		if out != nil {
			return out
		}
	}
	out := ruleFacts(s, m, nil)
	for i := range out {
		out[i].Confidence, out[i].MemoryIDs = conf, []int64{m.ID}
	}
	return out
}

// shapeFacts matches s against the shapes of a durable sentence. A clause
// of a longer sentence is only matched against the shapes of an attribute
// ("my phone number is now ..."): the others, out of context, read too
// much into a clause ("I like it").
func shapeFacts(s string, m *store.Memory, f llm.KeyFact, clause bool) []llm.KeyFact {
	set := func(entity, etype, attr, value, typ string) []llm.KeyFact {
		f.Entity, f.EntityType, f.Attribute, f.Value, f.FactType = entity, etype, attr, claimValue(value), typ
		if f.Entity == "" || negated(s, f.Value) || strings.HasPrefix(strings.ToLower(f.Value), "not ") || !plausibleAttr(attr) {
			return nil
		}
		return []llm.KeyFact{f}
	}
	if g := possessiveRe.FindStringSubmatch(s); g != nil {
		if allergic(g[3]) {
			return nil // "Alice's son is allergic to nuts": the son's health, not what he is
		}
		if e, t, ok := subject(g[1], m); ok {
			return set(e, t, AttributeKey(g[2]), g[3], attributeType(g[2], g[3], m))
		}
	}
	if g := mineRe.FindStringSubmatch(s); g != nil {
		if allergic(g[3]) {
			return nil // "my son is allergic to bee stings"
		}
		e, t, ok := subject(g[1], m)
		if strings.EqualFold(g[1], "our") && speakersKey(g[2]) {
			e, t = Speaker(m) // "our vet" is the speaker's, as the profile has it
		}
		if strings.EqualFold(g[1], "your") { // the user's, when the agent says it
			e, t = "user", "person"
			_, st := Speaker(m)
			ok = st == "agent"
		}
		if ok {
			return set(e, t, AttributeKey(g[2]), g[3], attributeType(g[2], g[3], m))
		}
		return nil
	}
	if clause {
		return nil
	}
	if g := relationRe.FindStringSubmatch(s); g != nil {
		if e, t, ok := subject(g[1], m); ok && !(g[2] == "joined" && strings.Contains(g[3], " for ")) { // "joined Maya for lunch"
			return set(e, t, relationAttr(g[2], g[3]), g[3], Relation)
		}
	}
	if g := allergicRe.FindStringSubmatch(s); g != nil {
		if e, t, ok := subject(g[1], m); ok {
			var out []llm.KeyFact
			for _, allergen := range allergens(g[2]) {
				if vagueObject(allergen) {
					return nil // "I'm allergic to it"
				}
				out = append(out, set(e, t, "allergy", allergen, Attribute)...) // a key of many values, one fact each, as the profile files it
			}
			return out
		}
	}
	if g := preferenceRe.FindStringSubmatch(s); g != nil {
		if e, t, ok := subject(g[1], m); ok {
			value := claimValue(g[3])
			if vagueObject(value) {
				return nil // "I love it", "I'd love to", "I love how you tell it"
			}
			return set(e, t, preferenceAttr+strings.ToLower(value), preferenceValue(g[2]), Preference)
		}
	}
	if g := habitRe.FindStringSubmatch(s); g != nil {
		if e, t, ok := subject(g[1], m); ok {
			return set(e, t, "", g[2]+" "+g[3], Preference)
		}
	}
	if g := isRe.FindStringSubmatch(s); g != nil {
		if e, t, ok := subject(g[1], m); ok {
			attr := "job_title"
			if g[3] == "a" || g[3] == "an" {
				attr = "" // one of several kinds, not the one role
			}
			return set(e, t, attr, strings.TrimPrefix(strings.TrimPrefix(g[2], g[3]), " "), Attribute)
		}
	}
	if money := entityIn(s, m, capture.TypeMoney); money != "" {
		if g := amountRe.FindStringSubmatch(s); g != nil && strings.Contains(g[2], money) {
			return set(strings.ToLower(g[1]), "thing", "amount", money, Attribute)
		}
	}
	if e, date, ok := namedEvent(s, m); ok {
		return set(e, "event", "date", date, Event)
	}
	if date := entityIn(s, m, capture.TypeDate); date != "" {
		for _, re := range []*lazyRegexp{dateRe, innerDateRe} {
			if g := re.FindStringSubmatch(s); g != nil && strings.Contains(g[2], date) {
				return set(strings.ToLower(g[1]), "event", "date", date, Event)
			}
		}
		low := strings.ToLower(s)
		for _, w := range eventWords {
			if strings.Contains(low, w) {
				return set(w, "event", "", date, Event)
			}
		}
	}
	if decisionRe.MatchString(s) {
		e, t := Speaker(m)
		if g := leadSubjRe.FindStringSubmatch(s); g != nil {
			if se, st, ok := subject(g[1], m); ok {
				e, t = se, st
			}
		}
		f.Confidence = max(f.Confidence, 0.7)
		return set(e, t, "", "", Decision)
	}
	return nil
}

// subject resolves a sentence's subject: I and my are the speaker, we and
// our the speaker's group, a capitalised name only one capture found.
func subject(s string, m *store.Memory) (entity, etype string, ok bool) {
	switch strings.ToLower(s) {
	case "i", "my":
		e, t := Speaker(m)
		return e, t, true
	case "we", "our":
		return "we", "group", true
	}
	for _, e := range m.Entities {
		if strings.EqualFold(e.Text, s) && Linking(e.Type) {
			return e.Text, e.Type, true
		}
	}
	if e, t := Speaker(m); strings.EqualFold(e, s) {
		return e, t, true
	}
	return "", "", false
}

// Speaker names who said m: its role when the role is a person's name (as
// in chat logs), else "user" or the agent's role.
func Speaker(m *store.Memory) (entity, etype string) {
	switch r := strings.ToLower(m.Role); r {
	case "", "user", "human":
		return "user", "person"
	case "assistant", "agent", "ai", "system", "tool", "bot":
		return r, "agent"
	default:
		return titleCase(m.Role), "person"
	}
}

func entityIn(s string, m *store.Memory, typ string) string {
	for _, e := range m.Entities {
		if e.Type == typ && strings.Contains(s, e.Text) {
			return e.Text
		}
	}
	return ""
}

func attributeType(attr, value string, m *store.Memory) string {
	switch {
	case strings.Contains(attr, "favorite") || strings.Contains(attr, "favourite"):
		return Preference
	case entityIn(value, m, capture.TypeDate) != "" || strings.Contains(attr, "birthday") || strings.Contains(attr, "deadline"):
		return Event
	}
	return Attribute
}

// relationAttr is the claim key a relation verb states; where one lives is
// the address or the city, by the value.
func relationAttr(verb, value string) string {
	switch {
	case strings.HasPrefix(verb, "work"), verb == "joined":
		return "employer"
	case strings.HasPrefix(verb, "live"), verb == "moved to", strings.HasSuffix(verb, "based in"):
		return placeKey(value)
	case strings.HasSuffix(verb, "married to"):
		return "partner"
	default:
		return "manager"
	}
}

// listPart is s up to where its list of things runs on into a clause
// (pClause): "peanuts and carries an EpiPen" is "peanuts".
func listPart(s string) string {
	if loc := listClauseRe.FindStringIndex(s); loc != nil {
		return s[:loc[0]]
	}
	return s
}

// allergens are the things of the list s opens with, as the profile
// reads them ("penicillin, latex and shellfish, so I carry a card": three).
func allergens(s string) []string {
	if g := thingListRe.FindStringSubmatchIndex(s); g != nil {
		if items := splitList(s[g[2]:listEnd(s, g[3])]); len(items) > 0 {
			return items
		}
	}
	return []string{strings.ToLower(claimValue(listPart(s)))}
}

// allergic reports whether what an attribute is said to be is an allergy
// of its holder ("severely allergic to bee stings"), which no attribute of
// the possessor holds.
func allergic(value string) bool { return containsLower(value, "allergic to") }

// preferenceAttr begins the attribute of a preference, which names its
// object ("preference: tea"): a second one is another fact, not a newer
// value of the first.
const preferenceAttr = "preference: "

// preferenceValue is the stance a preference verb takes, so "Alice hates
// tea" replaces "Alice likes tea" (same attribute, new value).
func preferenceValue(verb string) string {
	switch {
	case strings.HasPrefix(verb, "prefer"):
		return "prefers"
	case strings.HasPrefix(verb, "hate"), strings.HasPrefix(verb, "dislike"), strings.Contains(verb, "stand"):
		return "dislikes"
	}
	return "likes"
}

// relativeDate is a date phrase that means nothing once its day has passed
// and only ever points back ("yesterday", "last Friday", "two weeks ago")
// or to the next day. "On Friday" and "this Friday" are left alone: an event
// is as often ahead as behind.
var relativeDate = lazy(`^(?i:yesterday|today|tonight|tomorrow|last night|the day before yesterday|` +
	`(?:last|past|previous) (?:week|weekend|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|` +
	`(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|\d{1,3}) (?:days?|weeks?|months?|years?) ago)$`)

// absoluteDate turns a relative date into the date it meant when the memory
// was said, so the fact still means it later: "yesterday" said on 8 May 2023
// is "7 May 2023"; a week is its first and last day, a month "May 2023", a
// year "2022". Anything else is kept as said.
func absoluteDate(v string, said time.Time) string {
	v = strings.TrimSpace(v)
	if said.IsZero() || !relativeDate.MatchString(v) {
		return v
	}
	r := when.Parse(v, said, nil)
	if r.From.IsZero() || !strings.EqualFold(r.Phrase, v) {
		return v
	}
	const day = "2 January 2006"
	last := r.To.AddDate(0, 0, -1)
	switch {
	case !last.After(r.From):
		return r.From.Format(day)
	case r.From.Day() == 1 && r.To.Day() == 1 && r.To.Equal(r.From.AddDate(0, 1, 0)):
		return r.From.Format("January 2006")
	case r.From.YearDay() == 1 && r.To.Equal(r.From.AddDate(1, 0, 0)):
		return r.From.Format("2006")
	}
	return r.From.Format(day) + " to " + last.Format(day)
}

// vagueEntity is a pronoun standing for what a fact would be about.
func vagueEntity(e string) bool {
	switch strings.ToLower(e) {
	case "it", "this", "that", "they", "these", "those", "he", "she", "there":
		return true
	}
	return false
}

// vagueObject reports whether a preference's object names nothing on its
// own: a pronoun ("it", "them"), a bare "to", or a clause about something
// said before ("how you use it", "that you chose pottery", "what you did").
func vagueObject(v string) bool {
	first, rest, _ := strings.Cut(strings.ToLower(strings.TrimSpace(v)), " ")
	switch first {
	case "", "it", "them", "this", "that", "these", "those", "to", "how", "what", "when", "where", "why",
		"who", "you", "him", "her", "hearing", "seeing":
		return first != "to" || rest == "" || rest == "it" || rest == "that"
	}
	return false
}

// claimValue keeps the claim itself: a value ends before a reason or an aside.
func claimValue(v string) string {
	for _, sep := range []string{", ", " because ", " but ", " so ", " which ", " since ", " - ", " — "} {
		if i := strings.Index(v, sep); i > 0 {
			v = v[:i]
		}
	}
	v = strings.TrimRight(strings.TrimSpace(v), ".!?…;:,")
	for _, tail := range []string{" now", " still", " too", " as well"} {
		v = strings.TrimSuffix(v, tail)
	}
	for _, p := range []string{"on ", "at ", "in "} {
		v = strings.TrimPrefix(v, p)
	}
	return v
}
