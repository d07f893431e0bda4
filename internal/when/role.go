package when

import (
	"strings"
	"time"
)

const day = 24 * time.Hour

// Role is what a date phrase does in its question.
type Role uint8

const (
	// Asked is the time the question asks about ("what did I do last
	// Saturday?", "who did I meet on Monday?", "what happened on March 2"):
	// what answers happened then, so the date filters.
	Asked Role = iota
	// Bounds is a bound on what may answer ("as of March", "before June",
	// "since Monday", "by the end of May"): Since and Until.
	Bounds
	// Plan is the time of a planned action ("can I book the vet for
	// Thursday?", "what do I need for the dinner party on Friday?",
	// "should I bring anything this Saturday?"): what answers was said
	// before, often weeks before, so the date filters nothing. From and To
	// are the planned day, looked for ahead of the question.
	Plan
)

func (r Role) String() string {
	switch r {
	case Bounds:
		return "bounds"
	case Plan:
		return "plan"
	}
	return "asked"
}

// tense is what the verbs of a question say about its time.
type tense uint8

const (
	untensed tense = iota
	present        // "what is on Friday", "what do I have on Monday"
	past           // "what did I do", "who called", "where was I"
	future         // "should I", "can I", "will it", "what to bring", "remind me"
)

// roleOf decides what the phrase r, words k0 to k1 of the question, does:
// a bound stays one; a past date with its year is asked about; the
// phrase's own words decide next ("last Friday" is
// past, "next week" and "tomorrow" ahead); a day a thing is for ("book the
// vet for Thursday", "what did I plan for Friday?": the plan was stored
// before the day it is for) and a date after the question's day are plans;
// then the question's verbs: a modal, future or imperative makes a plan, a
// past verb the time asked about, and the present a plan when the phrase
// names a day or a week ("what is on Friday?") or a month or season still
// ahead once read ahead ("what are we doing in August?" asked in May; "what
// happens in March?" asked in March stays a filter). Untensed, it is
// asked. ahead reads the phrase ahead of today.
func (p *parser) roleOf(r Range, ahead func() Range, k0, k1 int) Role {
	switch {
	case r.Bounded():
		return Bounds
	case r.Latest, p.pastYear(r, k0, k1):
		return Asked
	}
	switch p.phraseTense(k0, k1) {
	case past:
		return Asked
	case future:
		return Plan
	}
	short := r.To.Sub(r.From) <= 7*day
	if short && p.forTheDay(k0) || r.From.After(p.today) {
		return Plan
	}
	switch p.questionTense(k0, k1) {
	case future:
		return Plan
	case present:
		if short || ahead().From.After(p.today) {
			return Plan
		}
	}
	return Asked
}

// pastYear reports whether the phrase names its year and is over by
// today ("what is Nate creating on 9 November, 2022?"): whatever was
// planned then, what answers was said then.
func (p *parser) pastYear(r Range, k0, k1 int) bool {
	if r.From.After(p.today) {
		return false
	}
	for k := k0; k < k1; k++ {
		if isYear(p.at(k)) {
			return true
		}
	}
	return false
}

// phraseTense is what the phrase's own words say: "last Tuesday", "in the
// last 3 days", "two weeks ago", "yesterday" are past; "next week", "this
// coming Friday", "tomorrow" ahead. "The last week of August" is neither.
func (p *parser) phraseTense(k0, k1 int) tense {
	k := k0
	for k < k1 && leadingWord(p.at(k)) {
		k++
	}
	if isLast(p.at(k)) && !(p.at(k+2) == "of" && isUnit(p.at(k+1))) {
		return past
	}
	for j := k0; j < k1; j++ {
		switch p.at(j) {
		case "ago", "yesterday", "earlier":
			return past
		case "next", "tomorrow", "coming", "upcoming":
			return future
		}
	}
	return untensed
}

// leadingWord is a word a date phrase may start with before its own.
func leadingWord(w string) bool {
	switch w {
	case "in", "on", "over", "during", "the", "from", "of", "at":
		return true
	}
	return false
}

// forTheDay reports whether "for" comes right before the phrase ("book the
// vet for Thursday", "the cake for the 14th").
func (p *parser) forTheDay(k0 int) bool {
	k := k0 - 1
	for k >= 0 && (p.at(k) == "the" || p.at(k) == "on") {
		k--
	}
	return p.at(k) == "for"
}

// questionTense reads the verbs outside the phrase: a modal, future or
// imperative wins over a past verb ("what did I say I should bring?" is
// about a plan), and a past verb over the present.
func (p *parser) questionTense(k0, k1 int) tense {
	best := untensed
	if imperative[p.at(0)] {
		return future
	}
	for j := range p.ts {
		if j >= k0 && j < k1 {
			continue
		}
		best = max(best, p.tenseAt(j))
		if best == future {
			break
		}
	}
	return best
}

// tenseAt is the tense word j gives the question, untensed for most words.
func (p *parser) tenseAt(j int) tense {
	w, prev, next := p.at(j), p.at(j-1), p.at(j+1)
	switch {
	case modals[w] && next == "you":
		return untensed // "can you tell me what I did": a request, not a plan
	case futureWords[w], modals[w],
		w == "won" && next == "t",
		next == "to" && toFuture[w],
		fineWords[w] && (prev == "it" || prev == "be" || prev == "all" || prev == "s"):
		return future
	case w == "got" && (j == 0 || prev == "ve" || prev == "have" || prev == "has" || prev == "s"):
		return present // "(I've) got a flight in June": what I have, not what I did
	case pastWords[w], pastForm(w) && !passive(prev):
		return past
	case presentWords[w], w == "s" && contracts[prev]:
		return present
	}
	return untensed
}

// pastForm is a regular past tense ("called", "booked", "visited"); the
// words that only end like one are left out.
func pastForm(w string) bool {
	if len(w) < 5 || !strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "eed") {
		return false
	}
	switch w {
	case "hundred", "sacred", "naked", "wicked", "married", "tired", "bored", "excited", "interested",
		"scared", "worried", "allowed", "supposed", "related", "based", "retired", "shared",
		// a plan's participles say nothing of when: "when is the plumber scheduled?"
		"scheduled", "planned", "booked", "expected", "arranged", "organised", "organized":
		return false
	}
	return true
}

// passive is a word before a participle that makes it no past: "what is
// planned", "is the vet booked", "have I been invited".
func passive(prev string) bool {
	switch prev {
	case "is", "are", "am", "be", "been", "being", "s", "get", "gets":
		return true
	}
	return false
}

var (
	futureWords = setOf("should", "shall", "ll", "must", "ought", "gonna", "wanna", "planning", "intend",
		"intending", "upcoming", "shouldn", "need", "needs")
	// modals say a plan unless they ask the listener ("can you tell me").
	modals = setOf("will", "would", "could", "can", "may", "might")
	// toFuture are the words that say a plan before "to": "going to",
	// "need to", "have to", "want to", "supposed to", "what to bring".
	toFuture = setOf("going", "need", "needs", "have", "has", "want", "wants", "supposed", "plan", "plans",
		"planned", "what", "how", "where", "when", "whether", "able", "like", "love", "hoping", "hope", "meant")
	// imperative are the verbs a request about a plan opens with ("Book
	// the vet for Thursday"); "remind me" is not one ("remind me who I met
	// on Monday"), "what to bring" says the plan.
	imperative = setOf("book", "schedule", "plan", "arrange", "reserve", "order", "pack", "bring", "prepare",
		"set", "add", "put", "cancel", "reschedule", "confirm", "buy", "organise", "organize")
	// fineWords after "is it", "will it be", "all": "is it ok to".
	fineWords = setOf("ok", "okay", "alright", "fine", "right", "safe", "wise", "possible", "free")
	pastWords = setOf("did", "didn", "was", "wasn", "were", "weren", "had", "hadn", "been", "happened", "went",
		"met", "saw", "said", "told", "got", "came", "ate", "bought", "made", "took", "gave", "spent", "left",
		"found", "thought", "heard", "paid", "sent", "wrote", "ran", "drove", "flew", "brought", "wore", "won",
		"lost", "began", "felt", "kept", "sat", "slept", "spoke", "taught", "caught", "fell", "forgot", "chose",
		"drank", "knew", "rode", "sang", "swam", "threw", "became", "grew", "built", "meant", "stood", "sold")
	presentWords = setOf("do", "does", "is", "are", "am", "have", "has", "happening", "doing",
		"isn", "aren", "don", "doesn", "haven")
	// contracts are the words whose "'s" is "is": "what's on Friday".
	contracts = setOf("what", "who", "where", "when", "how", "it", "that", "there", "here", "he", "she")
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// AsksPast reports whether q's verbs ask of what happened ("what tattoo
// did I get?"), not of a plan nor of what is.
func AsksPast(q string) bool {
	return newParser(q, time.Time{}, nil).questionTense(-1, -1) == past
}
