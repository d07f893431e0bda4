package recall

import (
	"slices"
	"strings"
	"unicode"

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
	return r.topicMember(w)
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
var wishPhrases = append(slices.Clone(planPhrases), hearsayPhrases...)

// planPhrases say that something is still to do: planned, thought of, or
// a job not begun.
var planPhrases = []string{"should go", "we should", "sometime", "some time", "maybe", "thinking about", "thinking of",
	"want to", "wants to", "hoping to", "plan to", "planning to", "next time",
	// a job still to do: "need to sand the back door next weekend"
	"need to", "needs to", "have to", "has to", "got to", "tomorrow", "next week", "next weekend", "next month",
	// not begun: "I haven't started it yet"
	"haven't started", "have not started", "not started", "yet to start"}

// hearsayPhrases say that something is told or advised by someone else:
// "Joel keeps telling me to read Wolf Hall" is no book I read.
var hearsayPhrases = []string{"says it's", "says it is", "recommended", "apparently",
	"telling me to", "tells me to", "told me to", "recommends", "swears by", "says i should", "said i should",
	"says we should", "said we should", "suggested i", "suggested we", "suggests i", "suggests we"}

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

// opensWithWant reports whether s opens with the user's want (desired):
// "Thinking of a swallow on my wrist", "I'm keen to try bouldering"; not
// "Lunch with Bea; she's thinking of going freelance", another's.
func opensWithWant(s string) bool {
	low := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "’", "'"))
	for _, subj := range []string{"i'm ", "i am ", "we're ", "we are ", "i ", "we ", "i'd ", "we'd ", "i've been ", "we've been "} {
		if rest, ok := strings.CutPrefix(low, subj); ok {
			low = strings.TrimPrefix(rest, "really ")
			break
		}
	}
	return slices.ContainsFunc(desirePhrases, func(p string) bool { return strings.HasPrefix(low, p) })
}

func wished(s string) bool {
	return undone(s) || holdsPhrase(strings.ToLower(strings.ReplaceAll(s, "’", "'")), hearsayPhrases)
}

// undone reports whether s only wishes, plans or thinks of doing
// something, or says it is still to do: no hearsay, which may tell of a
// thing done ("got the boiler serviced, the engineer says it's fine").
func undone(s string) bool {
	low := strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	return dreamt(s) || holdsPhrase(withoutStarts(low), planPhrases) || goingToDo(low) || nextUp(low)
}

// nextUp reports whether low says a thing comes next, ending a clause
// with it: "my book club is reading Demon Copperhead next, …", "Portugal
// next!": still to come, not done.
func nextUp(low string) bool {
	for i := strings.Index(low, " next"); i >= 0; {
		rest := low[i+len(" next"):]
		if rest == "" || strings.ContainsRune(",.;!?", rune(rest[0])) {
			return true
		}
		j := strings.Index(rest, " next")
		if j < 0 {
			break
		}
		i += len(" next") + j
	}
	return false
}

// startsFrom is when a standing change takes effect: "they've put me on
// nights from next week" is a new value, not a job still to do.
var startsFrom = []string{"from ", "starting ", "as of ", "as from "}

// withoutStarts is low without the times a change starts from.
func withoutStarts(low string) string {
	if !strings.Contains(low, "next ") && !strings.Contains(low, "tomorrow") {
		return low
	}
	for _, from := range startsFrom {
		for _, when := range []string{"tomorrow", "next week", "next month"} {
			low = strings.ReplaceAll(low, from+when, "")
		}
	}
	return low
}

// dreamt reports whether s only wishes for something (dreamPhrases, or
// "would be brilliant to", "it'd be nice to").
func dreamt(s string) bool {
	low := strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	return holdsPhrase(low, dreamPhrases) || wouldBeTo(low)
}

// holdsPhrase reports whether low holds one of ps from a word's start; a
// phrase opening with a contraction ("'d love to") follows its pronoun.
func holdsPhrase(low string, ps []string) bool {
	for _, p := range ps {
		if i := strings.Index(low, p); i >= 0 && (i == 0 || p[0] == '\'' || !isLetter(low[i-1])) {
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
