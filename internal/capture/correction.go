package capture

import (
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Corrections. A sentence can say that an earlier claim no longer holds:
// "Actually, make the plumber Thursday instead", "I don't drink coffee any
// more", "we moved the kids to another swimming club", "the yoga class is
// cancelled". CorrectionIn finds the cue; which claim it corrects is found
// by the night (consolidate), among the older memories about the same
// subject (ClaimStems).

// Correction is what a correcting sentence says of the claim it corrects.
type Correction struct {
	Shape string // the cue, one of the shapes below
	// Ends is true for a negation ("no longer", "not … any more",
	// "cancelled", "gave up"): the claim ends without a successor.
	Ends bool
	// Old is the habit or value named as ended ("eat meat", "Vodafone"),
	// "" when the sentence does not name it.
	Old string
	// Said is the text the corrected claim's subject is read from: the
	// sentence with the cue, and the sentences after it when it names at
	// most one thing ("Actually, scratch that. Make it Thursday.",
	// "Actually, make it Thursday. The plumber can only do mornings.").
	// A sentence before it is another topic: in a chat, "That sounds
	// great, Caroline! Actually, I just took my fam camping …" answers
	// the other speaker first.
	Said string
}

type correctionShape struct {
	shape string
	ends  bool
	re    string // group 1, when there is one, is the old value
	// needs are words, one of which every match of re holds (lowercased):
	// a sentence without any is not run through re, which backtracks over
	// it whole (recall asks this of every memory it offers: 78% of its CPU).
	needs []string
}

// phrase is up to six words, the old value a cue names.
const phrase = `((?:[\pL\pN'’-]+\s+){0,5}?[\pL\pN'’-]+)`

var correctionShapes = []correctionShape{
	{"no longer", true, `(?i)\bno longer\s+` + phrase + `\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|since|as|now|from|after|at all)\b)`, []string{"no longer"}},
	// "No more wine for me", "…, no more late shifts": a clause that opens
	// with it or says for whom; "there's no more milk" ends no claim.
	{"no more", true, `(?i)(?:^|[,;:—–]\s*)(?:so\s+|and\s+)?no more\s+` + phrase + `\s*(?:[,.;:!?]|$|\s(?:for|and|but|so|because|since|as|now|from|after|at all)\b)|` +
		`\bno more\s+` + phrase + `\s+for\s+(?:me|us|him|her|them)\b`, []string{"no more"}},
	{"not any more", true, `(?i)(?:\bnot|n[’']t|\bnever)\s+` + phrase + `\s+any\s?more\b`, []string{"more"}},
	{"gave up", true, `(?i)\b(?:gave up|given up|giving up|had to give up|quit|stopped|have stopped|packed in)\s+((?:[\pL'’-]+ing)(?:\s+[\pL\pN'’-]+){0,3}?|the\s+[\pL\pN'’-]+(?:\s+[\pL\pN'’-]+)?)\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|since|as|now|after|last|this|in)\b)|` +
		// "I gave up golden syrup on my porridge", "quit my job": any thing given up
		`(?i)\b(?:gave up|given up|giving up|had to give up|quit|packed in)\s+(?:on\s+)?((?:[\pL\pN'’-]+\s+){0,5}?[\pL\pN'’-]+)\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|since|as|now|after|last|this|in|at|for)\b)`,
		[]string{"gave up", "given up", "giving up", "give up", "quit", "stopped", "packed in"}},
	// "I've cut sugar out", "we cut out takeaways", "ditched the gym": a
	// thing the user or we gave up, said with a phrasal verb; "the engine
	// cut out", "cut out the coupon" end nothing.
	{"gave up", true, `(?i)\b(?:i|we)(?:['’]ve|\s+have)?\s+(?:now\s+|just\s+|finally\s+|completely\s+|totally\s+)?(?:` +
		`cut\s+((?:[\pL\pN'’-]+\s+){0,2}?[\pL\pN'’-]+)\s+out\b|` +
		`cut\s+out\s+((?:[\pL\pN'’-]+\s+){0,3}?[\pL\pN'’-]+)\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|since|as|now|completely|altogether|after|for)\b)|` +
		`ditched\s+((?:[\pL\pN'’-]+\s+){0,3}?[\pL\pN'’-]+)\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|since|as|now|after|for)\b))`,
		[]string{"cut", "ditched"}},
	// "I've weaned myself off the sleeping pills", "I stopped taking the
	// iron tablets", "the GP took me off the statins", "she's come off the
	// pill" (not "we came off the motorway"): a medicine or habit ended,
	// said by what ends it.
	{"gave up", true, `(?i)\b(?:weaned\s+(?:myself|ourselves|him|her|them)\s+off|(?:stopped|quit|quitting|stopping)\s+(?:taking|using|having)|` +
		`(?:took|taken|taking|takes)\s+(?:me|us|him|her|them)\s+off|(?:['’]ve|have|['’]s|has)\s+come\s+off)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?` + phrase +
		`\s*(?:[,.;:!?]|$|\s(?:completely|altogether|and|but|so|because|since|as|now|after|last|this|in|at|for)\b)`, []string{"weaned", "taking", "using", "having", "off"}},
	// "Vet says stop the Burns", "the GP told me to stop the naproxen",
	// "Stop the milk from next week": an instruction to stop a thing, told
	// the speaker or given by them, opening a sentence or after who said it
	// (not "we had to stop the car", "couldn't stop the leak").
	{"gave up", true, `(?i)(?:^|\b(?:says?|said|told\s+(?:me|us|him|her|them)|wants?\s+(?:me|us|him|her|them)|advised(?:\s+(?:me|us|him|her|them))?|asked\s+(?:me|us))(?:\s+to)?\s+)` +
		`(?:please\s+|just\s+)?stop\s+(?:(?:giving|taking|using|feeding|having)\s+(?:(?:him|her|them|it)\s+)?)?(?:the|my|our|his|her|their)\s+((?:[\pL\pN'’-]+\s+){0,2}?[\pL\pN'’-]+)` +
		`\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|since|as|now|from|after|for|completely|altogether)\b)`, []string{"stop "}},
	// "sold my bike", "we got rid of the telly", "gave away our sofa",
	// "had to rehome the dog": a thing the user had is gone, named by its
	// kind or its make.
	{"sold", true, `(?i)\b(?:sold|got rid of|gotten rid of|getting rid of|gave away|given away|give away|giving away|rehomed|rehome|rehoming)\s+(?:my|our|the)\s+((?:[\pL'’-]+\s+)?[\pL'’-]+)\s*(?:[,.;:!?]|$|\s(?:on|to|for|and|but|so|because|since|as|now|last|this|yesterday|today|at|after|in|off|back)\b)`,
		[]string{"sold", "rid of", "away", "rehom"}},
	// "Dave's retired", "our window cleaner has packed it in", "the Spar has
	// closed down": someone who did a thing for the speaker stops, and the
	// claims of what they do end with it (servesUs).
	{"retired", true, `\b(?:(\p{Lu}[\pL'’-]*(?:\s+\p{Lu}[\pL'’-]*){0,2}?)|(?i:my|our|the)\s+((?:[\pL'’-]+\s+)?[\pL'’-]+))(?:['’]s|\s+has|\s+have)\s+` +
		`(?i:(?:now|just|finally|officially)\s+)?(?i:retired|packed\s+(?:it\s+)?in|packed\s+up|gone\s+bust|closed\s+down|shut\s+down|(?:ceased|stopped)\s+trading)\b`,
		[]string{"retired", "packed", "bust", "closed", "shut", "trading"}},
	// "I left St Aidan's, I'm at the Riverside now", "we've left Barclays":
	// a named employer, club or provider left (not a trip: leftTrip).
	// "handed my notice in at the Fox", "I've handed in my notice to
	// Tesco": the same, said by the notice given.
	{"left", true, `\b(?:I|[Ww]e)(?:['’]ve|\s+have)?\s+(?:just\s+|finally\s+)?left\s+(\p{Lu}[\pL'’]*(?:\s+\p{Lu}[\pL'’]*){0,3})(\s+\pL+)?|` +
		`(?i:\bhanded\s+(?:in\s+)?(?:my|our)\s+notice\s+(?:in\s+)?(?:at|to)\s+(?:the\s+)?)(\p{Lu}[\pL'’]*(?:\s+(?:&\s+)?\p{Lu}[\pL'’]*){0,3})`, []string{"left", "notice"}},
	// "we've cancelled Dagny", "cancelled Netflix", "got rid of Sky": a
	// named provider ends, the claims naming it with it.
	{"cancelled", true, `\b(?:[Cc]ancel+ed|[Cc]ancel+ing|[Gg]ot(?:ten)? rid of|[Dd]itched)\s+(\p{Lu}[\pL'’-]+(?:\s+\p{Lu}[\pL'’-]+){0,2})`, []string{"cancel", "rid of", "ditched"}},
	// "had to cancel the sweep", "we've called off the barbecue": the thing
	// cancelled is the subject, though the claim said more of it ("booked a
	// chimney sweep for the 3rd").
	{"cancelled", true, `(?i)\b(?:cancel+(?:ed|ing)?|call(?:ed|ing)? off|scrapped)\s+(?:the|my|our)\s+((?:[\pL'’-]+\s+)?[\pL'’-]+)\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|since|as|now|for|this|next|today|tomorrow|after)\b)`,
		[]string{"cancel", "call", "scrapped"}},
	{"cancelled", true, `(?i)\b(?:cancel+ed|cancel+ing|called off|calling off|scrapped)\b`, []string{"cancel", "called off", "calling off", "scrapped"}},
	// "Femi can't make Christmas now", "Priya won't be able to come to the
	// barbecue after all": someone named no longer comes to a thing (group
	// 1); the claim that they come ends.
	{"can't come", true, `\b\p{Lu}[\pL'’-]+\s+(?i:can(?:no|['’])?t|can\s+not|won['’]t\s+be\s+able\s+to)\s+(?i:make|come\s+to|come\s+for)\s+(?i:the\s+|our\s+|my\s+)?` +
		`([\pL'’-]+)\s+(?i:now|after\s+all|any\s?more|this\s+year)\b`, []string{"can", "won"}},
	{"instead of", false, `(?i)\b(?:instead of|rather than)\s+` + phrase + `\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|as|now|on|at|in|from)\b)`, []string{"instead of", "rather than"}},
	// "Oskar can't do Tuesdays now so Portuguese is Thursdays", "the coach
	// isn't free on Mondays now, training is Wednesday": a day someone can
	// no longer do (group 1), the new one said after it (newTimeSaid);
	// "I can't do Tuesdays, I've got choir" changes nothing.
	{"can't do", false, `(?i)\b(?:can(?:no|['’])?t|can\s+not|(?:isn['’]t|aren['’]t|is\s+not|are\s+not|['’]s\s+not|['’]re\s+not)\s+(?:free|available))\s+` +
		`(?:(?:do|make|manage|teach|take|run|coach|host|come|play)\s+(?:us\s+|it\s+|me\s+|them\s+)?)?(?:on\s+)?((?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b`,
		[]string{"can", "free", "available"}},
	// "Gemma's off on maternity leave, so I'm with Callum for now", "Dr Shah
	// is away until March, I'm seeing Dr Lowe in the meantime": someone the
	// user sees (group 1) is away and another covers (coverSaid); the
	// user's claims naming the one away give way to the cover.
	{"cover", false, `\b(\p{Lu}[\pL-]+)(?:['’]s|\s+is|\s+has\s+gone|\s+has\s+been|\s+went)?\s+(?i:off|away|out)\s+(?i:on\s+(?:maternity|paternity|parental|sick|long[- ]term\s+sick|compassionate|study)\s+leave|on\s+leave|sick|ill|poorly|on\s+holiday|having\s+(?:her|his|their)\s+\pL+\s+done|until\s+\pL+|for\s+(?:a|two|three|four|six|\d+)\s+(?:weeks?|months?))\b`,
		[]string{"off", "away", "out"}},
	// "Tomasz has gone up to Year 3", "Lily started fifth grade", "she's
	// in the sixth form now": a child's school year moved up; the claim is
	// found by the child and the kind of value (schoolYear).
	{"moved up", false, `(?i)\b(?:(?:moved|gone|went|going|goes|go|been\s+put|put)\s+up\s+(?:in)?to|started|starting|starts|began|begun)\s+` + schoolYear +
		`|(?i)\b(?:is|are|['’]s|['’]re)\s+(?:now\s+)?in\s+` + schoolYear + `\s+now\b`,
		[]string{"up", "start", "began", "begun", "now"}},
	{"moved from", false, `(?i)\b(?:moved|changed|switched|swapped|went|gone|shifted|rescheduled)\b(?:\s+[\pL\pN'’-]+){0,4}?\s+from\s+` + phrase + `\s+to\b`, []string{"from"}},
	// "moved out of Hyde Park Road into a flat share", "we've moved the
	// kids out of Pebbles into the school nursery": the old place left for
	// a new one, said with "out of … into".
	{"moved from", false, `(?i)\b(?:moved|moving|switched|transferred)\b(?:\s+[\pL\pN'’-]+){0,3}?\s+out\s+of\s+` + phrase + `\s+(?:in)?to\b`, []string{"out of"}},
	{"changed my mind", false, `(?i)\bchanged\s+(?:my|our|his|her|their)\s+minds?(?:\s+(?:about|on)\s+` + phrase + `\s*(?:[,.;:!?]|$|\s(?:and|but|so|because|as|now|we|i|let's)\b))?`, []string{"mind"}},
	// "our window cleaner's changed his round, he comes on the first Monday
	// now", "the bin men have changed their day to Tuesday", "the gym's
	// hours changed, it opens at 7am", "swimming has a new time, Sunday at
	// 9": the times of someone's visits or of a thing changed, the new ones
	// said after it with "now" or as a day, time or date (newTimeSaid); the
	// claim is found by its subject's words and the kind of time both state.
	{"changed times", false, `(?i)\b(?:changed|moved|switched|shifted)\s+(?:(?:his|her|their|its|the|our|my)\s+)?(?:[\pL'’-]+\s+){0,2}?(?:rounds?|days?|times?|hours|nights?|evenings?|mornings?|schedule|slots?|rota|timetable|collections?|deliveries)\b|` +
		`\b(?:a|the)\s+(?:new|different)\s+(?:days?|times?|nights?|slots?|timetable)\b|\b(?:days?|times?|hours|nights?|slots?|timetable|schedule|rota)\s+(?:has\s+|have\s+)?(?:changed|moved)\b`,
		[]string{"changed", "moved", "switched", "shifted", "new", "different"}},
	// "we switched gyms", "I've changed banks; …": a provider of that kind
	// replaced, the kind (group 1) its subject, though the old claim may
	// name only the provider ("the van gets serviced at Fairfax Autos").
	{"switched kind", false, `(?i)\b(?:switched|swapped|changed|switching|swapping|changing)\s+((?:[\pL'’-]+\s+)?[\pL'’-]+s)(?:\s*(?:[,.;:!?—–]|$)|\s+(?:now|again|last|this|recently|and|so|because)\b)`,
		[]string{"switch", "swap", "chang"}},
	{"switched to", false, `(?i)\b(?:switched|swapped|switching|swapping|changed|changing|moved|moving|transferred|shifted|relocated)\b(?:\s+(?:over|across|back))?(?:\s+[\pL\pN'’-]+){0,4}?\s+(?:over\s+)?to\b`, []string{"switch", "swap", "chang", "mov", "transferred", "shifted", "relocated"}},
	// "they've put me on nights", "moved us onto the new rota": the
	// speaker assigned another value of what they are on (onRe).
	{"switched to", false, putOnPattern, []string{"me on", "us on"}},
	// "pushed it to the 23rd", "put the meeting back a week": the thing moved
	// may sit between the verb and its particle.
	{"pushed to", false, `(?i)\b(?:postponed|rescheduled|(?:put|brought|moved|pushed|bumped)(?:\s+(?:it|that|this|them|(?:the|my|our|his|her)\s+[\pL'’-]+|[\pL'’-]+['’]s(?:\s+[\pL-]+){1,2}?))?\s+(?:back|forward)|delayed(?:\s+(?:it|that|this|them))?\s+(?:to|until|till)|(?:pushed|bumped)(?:\s+(?:it|that|this|them))?\s+(?:out|to|until|till)|` +
		`(?:pushed|bumped)\s+(?:the|my|our|his|her|their|[\pL'’-]+['’]s)(?:\s+[\pL'’-]+){1,2}?\s+(?:back\s+)?(?:to|until|till)\s+(?:\d|next\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day))\b`,
		[]string{"postponed", "rescheduled", "put", "brought", "moved", "delayed", "pushed", "bumped"}},
	{"went up to", false, `(?i)\b(?:went|gone|goes|going|put\s+(?:[\pL'’]+\s+){0,3}?)\s*(?:up|down)\s+to\s+[$€£]?\d|\b(?:raised|increased|reduced|dropped|rose|risen|fell|fallen|cut|upped|lowered|hiked)\s+(?:[\pL'’]+\s+){0,4}?to\s+[$€£]?\d|` +
		`\bput\s+(?:his|her|their|its|the|our|my)\s+(?:[\pL'’]+\s+){0,2}?(?:up|down)\b|\b(?:price|prices|rate|rates|fee|fees|rent|charge|charges|cost|costs|bill|bills)\s+(?:has\s+|have\s+)?(?:gone|went|goes|going)\s+(?:up|down)\b`,
		[]string{"up", "down", "raised", "increased", "reduced", "dropped", "rose", "risen", "fell", "fallen", "cut", "lowered", "hiked"}},
	// "I've started eating fish again", "we're back on the red meat
	// again": a thing said before as given up or not done is done again;
	// the claim that denied it ends (negatedIn).
	{"again", false, `(?i)\b(?:i|we)(?:['’]ve|\s+have|['’]m|\s+am|['’]re|\s+are)?\s+(?:just\s+|now\s+)?(?:started|starting|begun|back\s+on)\s+` +
		`((?:[\pL'’-]+ing\s+)?(?:the\s+)?[\pL'’-]+(?:\s+[\pL'’-]+)?)\s+again\b`, []string{"again"}},
	// "Harjit asked if we could swap, so I'm doing the third Sunday", "swapped
	// shifts with Bea, I'm on Tuesday nights now": a swap with someone of
	// what the speaker does, the new time said after it (newTimeSaid); not a
	// thing swapped ("swapped the duvet for the winter one").
	{"changed times", false, `(?i)\bswap(?:ped|ping)?(?:\s+(?:shifts|days|nights|weekends|slots|rotas|turns|weeks|places))?(?:\s+with\s+[\pL'’-]+(?:\s+\p{Lu}[\pL'’-]*)?)?(?:\s*[,;:—–]|\s+(?:because|as|since|so|and|but|from|now)\b)`,
		[]string{"swap"}},
	{"back to", false, `(?i)\b(?:gone|going|go|goes|are|is|['’]re|['’]s)\s+back\s+to\b`, []string{"back"}},
	{"is now", false, `\b(?i:is|are|['’]s)\s+(?i:now)(?:\s+(?i:on|at|with|in|every|just|only|called|down|up|to))?\s+(?:[$€£]?\d|\p{Lu}|(?i:the)\s+\d)`, []string{"now"}},
	{"instead", false, `(?i)\binstead\b`, []string{"instead"}},
	// "Dale's going fortnightly from now on": a standing value replaced.
	{"from now on", false, `(?i)\b(?:from now on|from here on in|going forward|with immediate effect)\b`, []string{"from now", "from here", "going forward", "effect"}},
	{"actually", false, `(?i)^(?:(?:oh|ah|sorry|wait|no|um|hmm|ok|okay|right)[,!.]?\s+)*(?:actually|scratch that|change of plans?|correction|on second thoughts?|my mistake|make (?:that|it))\b|` +
		`(?i)^(?:oh\s+|ah\s+)?(?:wait|hang on|hold on)\s*[,!—–]`, // "Oh wait, she can only do Saturday"
		[]string{"actually", "scratch", "change of plan", "correction", "second thought", "mistake", "make", "wait", "hang on", "hold on"}},
}

// coverSaid is another who covers, said after someone is away: "I'm with
// Callum for now", "Lidia is covering", "Jade is standing in", "I'm seeing
// Dr Lowe in the meantime".
var coverSaid = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:covering|covers|standing\s+in|stands\s+in|filling\s+in|fills\s+in|for\s+now|in\s+the\s+meantime|for\s+the\s+time\s+being|till\s+(?:she|he|they)|until\s+(?:she|he|they))\b`)
})

// schoolYear is a year, grade or form of school: "Year 3", "P5", "fifth
// grade", "the sixth form", "secondary".
const schoolYear = `(?:(?:year|yr|grade|form|primary|p)\s?\d{1,2}\b|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d{1,2}(?:st|nd|rd|th))\s+(?:grade|year|form|class)\b|(?:the\s+)?(?:sixth\s+form|reception|secondary|high\s+school|middle\s+school|juniors|big\s+school)\b)`

// correctionRegexps are the shapes' expressions, compiled on first use:
// the binary's start does not pay for them.
var correctionRegexps = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(correctionShapes))
	for i, sh := range correctionShapes {
		out[i] = regexp.MustCompile(sh.re)
	}
	return out
})

// CorrectionIn returns the first correction a sentence of content makes.
// A question corrects nothing, unless it asks for the change
// (changeRequest).
func CorrectionIn(content string) (Correction, bool) {
	sents := Sentences(content)
	for i, s := range sents {
		if c, ok := correctionInSentence(s); ok {
			c.Said = s
			if len(ClaimStems(s)) < 2 {
				c.Said = strings.Join(sents[i:], " ")
			}
			return c, true
		}
	}
	return Correction{}, false
}

// changeRequest is a question that asks for a change, which is the
// change a user means: "can we make that the Friday instead?", "could you
// move it to 3pm?", "actually, can we do Thursday instead?".
var changeRequest = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\W*(?:(?:actually|oh|sorry|so|ok|okay|wait|hmm|erm|um)\W+)*(?:can|could|would|will)\s+(?:we|you|i)\s+` +
		`(?:please\s+|just\s+)?(?:(?:make|change|move|switch|push|put|bring|shift)\s+(?:it|that|this)\b|[^?]*\binstead\b)`)
})

func correctionInSentence(s string) (Correction, bool) {
	if strings.HasSuffix(strings.TrimSpace(s), "?") && !changeRequest().MatchString(s) {
		return Correction{}, false
	}
	lower := strings.ToLower(s)
	for i, sh := range correctionShapes {
		if !slices.ContainsFunc(sh.needs, func(w string) bool { return strings.Contains(lower, w) }) {
			continue
		}
		loc := correctionRegexps()[i].FindStringSubmatchIndex(s)
		if loc == nil {
			continue
		}
		m := submatches(s, loc)
		if hedged(clauseOf(s, loc[0], loc[1])) {
			continue // "maybe I'll go back to acting someday": a possibility, not what holds now
		}
		c := Correction{Shape: sh.shape, Ends: sh.ends}
		for _, g := range m[1:] { // a shape of two forms has a group in each
			if g != "" {
				c.Old = strings.TrimSpace(g)
				break
			}
		}
		if (sh.shape == "no longer" || sh.shape == "not any more") && c.OldStem() == "" {
			if subj := negatedSubject(s[:loc[0]]); subj != "" {
				c.Old = subj // "the boys are no longer with us": the boys
			}
		}
		if sh.shape == "instead of" && strings.HasSuffix(strings.ToLower(firstOf(c.Old)), "ing") {
			return Correction{}, false // "instead of giving up, I …" is what was done, not a value
		}
		if sh.shape == "left" && leftTrip(m[2]) {
			continue // "we left Oslo at dawn", "left Tamsin a note": no claim ended
		}
		if sh.shape == "cover" && !coverSaid().MatchString(s[loc[1]:]) {
			continue // "Tom is off sick again": no one covers
		}
		if sh.shape == "can't do" && whenKindsOf(s[loc[1]:]) == 0 {
			continue // "I can't do Tuesdays, I've got choir": no other time said
		}
		if sh.shape == "changed times" && !newTimeSaid(s[loc[1]:]) {
			continue // "the clocks changed their time last night", "changed the time on the oven": no new time of a claim
		}
		if sh.shape == "switched kind" && (!switchedKind(c.Old) || byOther(s[:loc[0]])) {
			continue // "changed the sheets", "changed trains", "you're changing lives": no provider of the speaker's replaced
		}
		if sh.shape == "retired" && text.IsStopword(strings.ToLower(c.Old)) {
			continue // "He's retired", "It's packed in": no one named
		}
		if sh.shape == "sold" && byOther(s[:loc[0]]) {
			continue // "she sold the idea to the board": not the speaker's thing gone
		}
		if sh.shape == "gave up" && (notGivenUp(firstOf(c.Old)) || strings.Contains(strings.ToLower(m[0]), "quit on")) {
			continue // "I'm not giving up and trying new things", "never quit on your dreams"
		}
		return c, true
	}
	return Correction{}, false
}

// negatedSubject is the subject of a negation whose old value names only
// where it was ("Biscuit is no longer with us", "our lodger isn't here any
// more"), read from before, the words before its cue: up to three words of
// the clause before its verb, not a pronoun. "" when there is none.
func negatedSubject(before string) string {
	clause := before[strings.LastIndexAny(before, ",;:—–(")+1:]
	ws := strings.Fields(clause)
	for len(ws) > 0 && beVerb(ws[len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	if n := len(ws); n > 0 {
		if w, ok := strings.CutSuffix(ws[n-1], "'s"); ok {
			ws[n-1] = w // "Biscuit's no longer with us"
		} else if w, ok := strings.CutSuffix(ws[n-1], "’s"); ok {
			ws[n-1] = w
		}
	}
	if len(ws) == 0 || len(ws) > 3 || len(ClaimStems(strings.Join(ws, " "))) == 0 {
		return "" // "I'm no longer here", "it's no longer with us"
	}
	return strings.Join(ws, " ")
}

// beVerb reports whether w, as written, is a form of "be" before a
// negation: "are", "is", "isn't" (its "n't" is the cue's).
func beVerb(w string) bool {
	switch strings.ToLower(w) {
	case "is", "are", "was", "were", "isn", "aren", "wasn", "weren":
		return true
	}
	return false
}

// submatches are the texts of a FindStringSubmatchIndex's groups.
func submatches(s string, loc []int) []string {
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return m
}

// clauseOf is the clause of s holding s[from:to]: from the punctuation
// before it to the punctuation after it.
func clauseOf(s string, from, to int) string {
	start := strings.LastIndexAny(s[:from], ",;:—–(") + 1
	end := strings.IndexAny(s[to:], ",;:—–)")
	if end < 0 {
		return s[start:]
	}
	return s[start : to+end]
}

// hedged reports whether a clause says what may be rather than what is:
// "maybe I'll go back to acting someday", "we might switch banks".
func hedged(clause string) bool {
	return slices.ContainsFunc(text.Words(strings.ToLower(clause)), func(w string) bool {
		switch w {
		case "maybe", "perhaps", "might", "someday", "sometime":
			return true
		}
		return false
	}) || strings.Contains(strings.ToLower(clause), "one day")
}

// byOther reports whether the words before a switch's verb make someone
// other than the speaker its doer: "you're changing lives", "they changed
// colours".
func byOther(before string) bool {
	ws := text.Words(strings.ToLower(before)) // "you're" is "you", "re"
	if n := len(ws); n > 1 && (ws[n-1] == "re" || ws[n-1] == "ve") {
		ws = ws[:n-1]
	}
	if len(ws) == 0 {
		return false
	}
	switch ws[len(ws)-1] {
	case "you", "they", "he", "she", "it":
		return true
	}
	return false
}

// leftTrip reports whether next, the word after "left X", makes the
// leaving a journey or a thing left for someone: "left Oslo at dawn",
// "left London on Friday", "left Tamsin a voicemail".
func leftTrip(next string) bool {
	switch strings.ToLower(strings.TrimSpace(next)) {
	case "a", "an", "the", "some", "my", "his", "her", "with", "to", "alone", "home", "there", "here", "at", "on", "this", "yesterday", "today", "early", "late", "after", "before", "around", "by", "in", "behind", "about":
		return true
	}
	return false
}

// switchedKind reports whether old, the plural after "switched" or
// "changed", names a kind of provider or place one has one of ("gyms",
// "dentists", "swimming clubs"): not a determiner's thing ("the sheets")
// nor what one changes routinely or a plan.
func switchedKind(old string) bool {
	words := text.Words(old)
	if len(words) == 0 || isDeterminerWord(words[0]) {
		return false
	}
	switch words[len(words)-1] {
	case "clothes", "sides", "hands", "places", "seats", "gears", "lanes", "trains", "buses", "planes", "trams", "flights",
		"sheets", "nappies", "diapers", "batteries", "bulbs", "subjects", "plans", "tack", "channels", "tabs", "ends",
		"positions", "roles", "shifts", "colours", "colors", "things", "lots", "loads", "tyres", "tires", "filters":
		return false
	}
	return true
}

func isDeterminerWord(w string) bool {
	switch w {
	case "the", "my", "our", "his", "her", "their", "its", "a", "an", "this", "that", "these", "those", "some", "all", "to", "from", "up", "over":
		return true
	}
	return false
}

// notGivenUp reports whether w, the first word after "gave up" or "quit",
// opens no thing given up: "giving up though", "quit - the path forward".
func notGivenUp(w string) bool {
	switch strings.ToLower(w) {
	case "and", "but", "though", "now", "so", "yet", "too", "-", "–", "because", "on", "or", "when", "if", "is", "was":
		return true
	}
	return false
}

// correctionCues are the words of the cues and of what surrounds them: they
// say that something changed, never what.
var correctionCues = []string{"actually", "scratch", "plan", "correction", "mistake", "instead", "longer", "anymore", "any", "more", "switched", "switch",
	"switching", "swapped", "swap", "moved", "move", "moving", "changed", "change", "changing", "cancelled",
	"canceled", "cancel", "called", "pushed", "postponed", "rescheduled", "brought", "forward", "back", "delayed",
	"bumped", "gave", "given", "giving", "quit", "stopped", "mind", "rather", "went", "gone", "goes", "up", "down",
	"now", "new", "same", "from", "today", "anyway", "still", "got", "updated", "noted",
	"put", "raised", "increased", "reduced", "dropped", "rose", "fell", "cut", "upped", "lowered", "hiked", "off", "don't", "doesn't", "didn't",
	"isn't", "aren't", "i'm", "we're", "it's", "that's", "i've", "we've", "just", "really", "never", "next", "last"}

// unitWords say what a value is counted in, not what it is about: "88
// pounds a month" for the electricity and "12 pounds a month" for the phone
// share a kind of value (SharedValueKinds), not a subject.
var unitWords = []string{"pound", "pounds", "dollar", "dollars", "euro", "euros", "quid", "bucks", "pence", "cents",
	"month", "months", "monthly", "week", "weeks", "weekly", "year", "years", "yearly", "annual", "day", "days",
	"daily", "hour", "hours", "minute", "minutes", "am", "pm"}

// UnitsIn are the unit words of s: they find the claims stating a value of
// the same kind, which ClaimStems leaves out.
func UnitsIn(s string) []string {
	var out []string
	for _, w := range text.Words(s) {
		if slices.Contains(unitWords, w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// ClaimStems are the stems of s's words that can name what a claim is
// about or its value: not stop words, fillers ("yeah", "like", "tried":
// two chat turns share them whatever their subjects), numbers, units or
// correction cues.
func ClaimStems(s string) []string {
	var out []string
	for _, w := range text.Words(s) {
		if !text.IsTerm(w) || isChatFiller(w) || slices.Contains(correctionCues, w) || slices.Contains(unitWords, w) || hasDigit(w) {
			continue
		}
		if st := claimStem(w); !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out
}

// SearchStems are ClaimStems(s) and the other everyday words for each
// (kinds.Variants: phone, mobile): the words to search for the claims s
// may correct, which may say the thing in another word.
func SearchStems(s string) []string {
	stems := ClaimStems(s)
	for _, st := range stems {
		for _, v := range kinds.Variants(st) {
			if !slices.Contains(stems, v) {
				stems = append(stems, v)
			}
		}
	}
	return stems
}

// isChatFiller reports whether w is a filler that is not a time: "yeah",
// "like", "tried", but not "weekend".
func isChatFiller(w string) bool {
	return lexicon[w]&filler != 0 && !slices.Contains(timeFillers, w)
}

// claimStem is a light suffix stripper: "fridays" and "friday", "meetings"
// and "meeting", "Fern's" and "Fern" are one stem; and an everyday variant
// is its thing's one name (kinds.Variant): "mobile" is phone, "telly"
// television, so a correction in the one word retires a claim in the other.
func claimStem(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	if v := kinds.Variant(w); v != w {
		return v
	}
	switch {
	case len(w) <= 3:
		return w
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// valueKind is one kind of value a claim may have; when marks those that
// say when (a weekday, a clock time, a span of hours, a date), provider the
// one saying who provides a service.
type valueKind struct {
	re       *regexp.Regexp
	when     bool
	provider bool // who provides a service
}

// Value kinds a claim's value may have: two claims about one subject with a
// value of the same kind ("on Tuesday", "Thursday instead") are one claim.
var valueKinds = sync.OnceValue(func() []valueKind {
	return []valueKind{
		{regexp.MustCompile(`(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b`), true, false},
		// a clock time, "9.30" too (after a space: "£2.40" is a price), noon
		{regexp.MustCompile(`\b\d{1,2}(?::\d{2})?\s*(?i:am|pm)\b|\b(?i:noon|midday|midnight)\b|\b\d{1,2}:\d{2}\b|(?:^|[\s(])(?:[1-9]|1[0-2])\.(?:[0-5]0|15|45)(?:[\s,;!?)]|\.?$|\.\s)`), true, false},
		{regexp.MustCompile(`(?i)\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?\s*(?:till|until|to|-|–)\s*\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?\b`), true, false},
		{regexp.MustCompile(`(?i)\b(?:a|per|each)\s+(?:month|week|year|night)\b|\b(?:monthly|weekly|yearly|annually)\b`), false, false},
		// how often: "every four weeks", "fortnightly", "every other Friday"
		{regexp.MustCompile(`(?i)\bevery\s+(?:other|second|third|\d+|two|three|four|five|six|eight|few)\s+(?:\pL+\s+)?(?:days?|weeks?|months?|fortnight|mon|tues|wednes|thurs|fri|satur|sun)(?:days?)?\b|\bevery\s+fortnight\b|\bfortnightly\b|\bbiweekly\b`), true, false},
		// who provides a service: "my mobile is with EE", "my phone's on Vodafone", "moved my phone contract over to Giffgaff"
		{regexp.MustCompile(`(?i)\b(?:contract|plan|account|deal|tariff|supplier|provider|network|energy|broadband|insurance|mortgage|bank|phone|mobile|sim|gas|electricity|internet|wifi)\b[^.;]{0,20}\b(?:with\s+\S|on\s+(?-i:\p{Lu}))|\b(?:switched|moved|changed|swapped|transferred)\b[^.;]{0,30}\bto\s+\S`), false, true},
		{regexp.MustCompile(`(?i)\b(?:live|lives|living|lived|moved|move|flat|house|home|address|apartment|street|rent|renting)\b`), false, false},
		{regexp.MustCompile(`[$€£]\s?\d|\b\d[\d.,]*\s*(?i:pounds|dollars|euros|quid|bucks|p|pence|cents)\b`), false, false},
		{regexp.MustCompile(`\b\d[\d.,]*\s?(?:%|(?i:per\s?cent)\b)`), false, false},
		// a dose or a measure: "50mg", "2 puffs", "10 miles"
		{regexp.MustCompile(`(?i)\b\d[\d.,]*\s?(?:mg|mcg|g|kg|ml|l|iu|units?|puffs?|tablets?|pills?|drops?|km|miles?|lbs?|litres?|liters?)\b`), false, false},
		{regexp.MustCompile(`(?i)\b(?:red|blue|green|yellow|black|white|grey|gray|pink|purple|orange|brown|navy|teal|beige|cream|silver|gold|mustard|turquoise|burgundy)\b`), false, false},
		{calendarDayRe(), true, false},
		{regexp.MustCompile(`(?i)\b` + schoolYear), false, false},
		// a month said as when: "the first week of August", "in March", "till June"
		{regexp.MustCompile(`(?i)\b(?:in|for|of|until|till|by|from|since|next|last|this|early|late|mid|end\s+of|start\s+of)[\s-]+(?:january|february|march|april|may|june|july|august|september|october|november|december)\b`), true, false},
	}
})

// newTimeSaid reports whether rest, the words after a change of times,
// says the new one: with "now", or as a day, a time or a date.
func newTimeSaid(rest string) bool {
	return slices.Contains(text.Words(strings.ToLower(rest)), "now") || whenKindsOf(rest) != 0
}

// sharesWhen reports whether a and b both state when something is, as a
// weekday, a time or a date.
func sharesWhen(a, b string) bool { return whenKindsOf(a).in(b) != 0 }

// sharesProvider reports whether a and b both state who provides a
// service: "moved my phone contract over to Giffgaff", "my mobile is with EE".
func sharesProvider(a, b string) bool { return providerKinds().in(a).in(b) != 0 }

// providerKinds is the kind of value saying who provides a service.
var providerKinds = sync.OnceValue(func() kindSet { return kindsWhere(func(k valueKind) bool { return k.provider }) })

// SharedValueKinds counts the kinds of value both a and b state.
func SharedValueKinds(a, b string) int { return valueKindsOf(a).sharedWith(b) }

// kindSet is a set of value kinds, bit i for valueKinds()[i]: a
// correction's are read once, then matched in each claim it may retire
// only for the kinds it states.
type kindSet uint32

// valueKindsOf is the value kinds s states; whenKindsOf those saying when.
func valueKindsOf(s string) kindSet { return allKinds.in(s) }
func whenKindsOf(s string) kindSet  { return whenKinds().in(s) }

const allKinds = ^kindSet(0)

// in is the kinds of ks that s states.
func (ks kindSet) in(s string) kindSet {
	var out kindSet
	for i, k := range valueKinds() {
		if ks&(1<<i) != 0 && k.re.MatchString(s) {
			out |= 1 << i
		}
	}
	return out
}

// sharedWith counts the kinds of ks that s states too.
func (ks kindSet) sharedWith(s string) int { return bits.OnesCount32(uint32(ks.in(s))) }

// whenKinds is the kinds of value saying when.
var whenKinds = sync.OnceValue(func() kindSet { return kindsWhere(func(k valueKind) bool { return k.when }) })

// kindsWhere is the set of the value kinds for which keep holds.
func kindsWhere(keep func(valueKind) bool) kindSet {
	var ks kindSet
	for i, k := range valueKinds() {
		if keep(k) {
			ks |= 1 << i
		}
	}
	return ks
}

// OldStem is the stem a memory must hold to be the claim c names as ended
// ("eat meat": meat; "work Fridays": friday), "" when c names none.
func (c Correction) OldStem() string { return lastStem(text.Words(c.Old)) }

// headStem is the stem of what c names as ended before its first
// preposition ("cycle to work": cycle), "" when that is OldStem or none:
// the habit, where the place it went to was said in other words ("I cycle
// to the office").
func (c Correction) headStem() string {
	words := text.Words(c.Old)
	for i, w := range words {
		if slices.Contains(prepositions, w) {
			if st := lastStem(words[:i]); st != c.OldStem() {
				return st
			}
			break
		}
	}
	return ""
}

var prepositions = []string{"to", "at", "in", "on", "with", "from", "for", "into", "by"}

func lastStem(words []string) string {
	for i := len(words) - 1; i >= 0; i-- {
		if st := ClaimStems(words[i]); len(st) > 0 {
			return st[0]
		}
	}
	return ""
}

func hasDigit(w string) bool { return strings.ContainsAny(w, "0123456789") }

func firstOf(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}
