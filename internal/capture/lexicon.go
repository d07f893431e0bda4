package capture

import (
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// Word lists the extractor consults, all lowercase with ' as the apostrophe.
// They are folded into one map from word to classes, so that a token costs
// one lookup however many lists it is checked against.

// class is a set of word lists a word is on.
type class uint32

const (
	stopword class = 1 << iota // text.IsStopword
	monthName
	monthAbbreviation
	weekday // also plural: "Mondays"
	relativeUnit
	yearPreposition
	currencyCode
	currencyWord
	scaleWord
	abbreviation
	connector
	filler
	commonNoun
	nameVerb
	personVerb
	openerVerb
	smallTalkWord
	vague
	emphasis
	obligation
	decision
	preference
)

// lexicon is built once at start-up and only read after.
var lexicon = func() map[string]class {
	m := make(map[string]class, 1024)
	for _, l := range []struct {
		c     class
		words []string
	}{
		{monthName, monthNames}, {monthAbbreviation, monthAbbreviations},
		{weekday, weekdays}, {relativeUnit, relativeUnits},
		{yearPreposition, yearPrepositions}, {currencyCode, currencyCodes},
		{currencyWord, currencyWords}, {scaleWord, scaleWords},
		{abbreviation, abbreviations}, {connector, connectors},
		{filler, fillers}, {commonNoun, commonNouns}, {commonNoun, claim.Sports}, {commonNoun, claim.Pastimes}, {nameVerb, nameVerbs}, {personVerb, personVerbs}, {openerVerb, openerVerbs},
		{smallTalkWord, smallTalk}, {vague, vagueWords}, {emphasis, emphasisWords},
		{obligation, obligationWords}, {decision, decisionWords},
		{preference, preferenceWords},
	} {
		for _, w := range l.words {
			m[w] |= l.c
		}
	}
	for _, w := range weekdays {
		m[w+"s"] |= weekday
	}
	for _, w := range text.Stopwords() {
		m[w] |= stopword
	}
	return m
}()

// Months, full and abbreviated, and weekdays, as the date parser reads them;
// an abbreviation alone ("Jan") is too often something else to be a date.
var (
	monthNames         = when.MonthNames()
	monthAbbreviations = when.MonthAbbreviations()
	weekdays           = when.WeekdayNames()
)

// relativeUnits follow next/last/this to name a period: "next week".
var relativeUnits = []string{"week", "weekend", "month", "year"}

// yearPrepositions make a bare year a date: "since 2019", not "2019 files".
var yearPrepositions = []string{
	"in", "since", "by", "until", "till", "from", "during", "before", "after", "of",
}

// currencyCodes are ISO 4217 codes people write next to amounts.
var currencyCodes = []string{
	"usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "nzd", "cny", "rmb", "inr",
	"sek", "nok", "dkk", "pln", "czk", "huf", "brl", "mxn", "zar", "sgd", "hkd",
	"krw", "rub", "uah", "ils", "aed", "sar", "thb", "idr", "isk", "btc",
}

// currencyWords are spelled-out currencies. "pound(s)" is left out: it is a
// weight at least as often.
var currencyWords = []string{
	"dollar", "dollars", "euro", "euros", "cent", "cents", "buck", "bucks",
	"yen", "yuan", "rupee", "rupees", "franc", "francs", "peso", "pesos",
	"krona", "kronor", "krone", "kroner", "zloty", "quid",
}

// scaleWords may sit between an amount and its currency: "1.2 million dollars".
var scaleWords = []string{"thousand", "million", "billion", "trillion", "k", "m", "bn"}

// abbreviations end in a period that does not end the sentence.
var abbreviations = []string{
	"mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "vs", "e.g", "i.e",
	"a.m", "p.m", "approx",
}

// connectors may join the capitalised words of one name: "Bank of England",
// "Ludwig van Beethoven".
var connectors = []string{
	"of", "van", "von", "de", "der", "den", "da", "del", "della", "di", "du",
	"la", "le", "bin", "ibn",
}

// fillers are words that name nothing and say nothing about a topic:
// greetings, acknowledgements, discourse adverbs, the verbs notes start with,
// chat labels, titles and words for relative time. Capitalised, they are
// never names ("Thanks Bob" names Bob); lowercase, they are never topics.
var fillers = append([]string{
	// greetings and acknowledgements
	"hi", "hello", "hey", "dear", "thanks", "thank", "thx", "ty", "cheers",
	"bye", "goodbye", "ok", "okay", "yes", "yeah", "yep", "yup", "no", "nope",
	"nah", "sure", "lol", "lmao", "rofl", "haha", "hahaha", "hehe", "wow", "oh",
	"ah", "oops", "hmm", "um", "uh", "please", "pls", "sorry", "welcome",
	"congrats", "congratulations", "great", "good", "nice", "cool", "awesome",
	"fine", "perfect", "right", "alright", "well", "happy", "glad",
	// chat and note shorthand
	"btw", "fyi", "imo", "imho", "afaik", "iirc", "asap", "tbd", "tba", "eta",
	"todo", "ps", "nb", "re", "fw", "fwd", "cc", "am", "pm", "aka", "ie", "eg",
	// discourse adverbs
	"also", "just", "then", "now", "later", "soon", "still", "maybe", "perhaps",
	"probably", "definitely", "certainly", "really", "actually", "basically",
	"honestly", "finally", "hopefully", "unfortunately", "fortunately",
	"luckily", "sadly", "apparently", "obviously", "clearly", "recently",
	"currently", "usually", "generally", "eventually", "however", "meanwhile",
	"otherwise", "instead", "besides", "overall", "anyway", "anyways",
	"already", "again", "always", "never", "sometimes", "often", "here",
	"there", "yet", "even", "only", "first", "second", "next", "last", "plus",
	"literally", "seriously", "personally", "quite", "rather", "very", "lots",
	"likely", "lately", "early", "sometime", "somehow", "every", "super",
	"totally", "pretty",
	// verbs notes and messages start with, and verbs of saying and feeling
	"remember", "remind", "note", "notes", "reminder", "ask", "asked", "tell",
	"told", "say", "said", "says", "call", "called", "email", "emailed", "text",
	"texted", "met", "meet", "saw", "see", "seen", "went", "go", "going", "got",
	"get", "had", "have", "make", "made", "need", "needs", "want", "wants",
	"wanted", "think", "thought", "know", "knew", "let", "lets", "check",
	"buy", "bought", "book", "booked", "send", "sent", "pick", "pay", "paid",
	"fix", "fixed", "add", "added", "remove", "removed", "update", "updated",
	"review", "reviewed", "read", "write", "wrote", "watch", "try", "tried",
	"use", "used", "take", "took", "give", "gave", "find", "found", "keep",
	"kept", "move", "moved", "cancel", "cancelled", "canceled", "schedule",
	"scheduled", "decide", "decided", "agree", "agreed", "chose", "chosen",
	"discuss", "discussed", "mention", "mentioned", "confirm", "confirmed",
	"noted", "learned", "learnt", "heard", "feel", "felt", "like", "liked",
	"likes", "love", "loved", "loves", "hate", "hated", "hates", "prefer",
	"prefers", "preferred", "look", "looks", "seems", "seem", "hope", "guess",
	"wonder", "mean", "means", "important", "forget", "forgot", "stuff", "lot",
	"bit", "kind", "sort", "way", "must", "don't", "can't", "won't", "let's",
	// chat and note labels
	"user", "assistant", "agent", "system", "bot", "human", "ai", "question",
	"answer", "summary", "context", "status", "action", "actions", "item",
	"items", "decision", "decisions", "topic", "subject", "title", "attendees",
	"agenda", "result", "results", "output", "input", "response", "request",
	"reply", "comment", "feedback", "tip", "info", "updates",
	"follow", "followup", "due", "versus", "roughly", "approximately",
	"around", "about",
	// titles
	"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "madam", "st",
}, timeFillers...)

// timeFillers are the fillers for relative time: no topic, but a claim's
// subject may be one ("the pottery weekend", "Mum's morning visit").
var timeFillers = []string{
	"today", "tonight", "yesterday", "tomorrow", "morning", "afternoon",
	"evening", "night", "week", "weekend", "month", "year", "day", "days",
	"weeks", "months", "years", "hour", "hours", "minute", "minutes", "time",
	"times", "ago", "daily", "weekly", "monthly", "yearly", "noon", "midnight",
}

// commonNouns are ordinary nouns that often open a note ("Lunch with Bob",
// "Budget is tight"). At the start of a sentence they are not taken for
// names; elsewhere they are fine topics.
var commonNouns = []string{
	"meeting", "lunch", "dinner", "breakfast", "coffee", "tea", "budget",
	"project", "team", "work", "office", "home", "school", "weather", "food",
	"trip", "flight", "hotel", "doctor", "appointment", "birthday", "party",
	"plan", "plans", "idea", "ideas", "task", "tasks", "bug", "bugs", "issue",
	"issues", "error", "errors", "warning", "warnings", "feature", "release",
	"deploy", "deployment", "build", "test", "tests", "server", "database",
	"code", "report", "invoice", "order", "payment", "price", "cost", "rent",
	"bill", "payday", "salary", "wages", "pay", "contract", "client", "customer", "manager", "boss", "mom", "mum",
	"dad", "kids", "family", "friend", "friends", "wife", "husband", "sister",
	"brother", "daughter", "son", "baby", "dog", "cat", "car", "house",
	"phone", "laptop", "movie", "music", "game", "gym", "run", "walk",
	"sleep", "health", "diet", "medication", "allergy", "allergies",
	"password", "deadline", "shopping", "groceries", "milk", "bread", "sync",
	"standup", "retro", "sprint", "roadmap", "design", "docs", "api",
	"ticket", "interview", "vacation", "holiday", "location", "date", "small",
	"life", "world", "people", "art", "nature", "mental",
	// labels that open lines of notes ("Cash: 200")
	"cash", "total", "address", "venue", "owner", "goal", "goals", "outcome",
	"blockers", "blocker", "risks", "risk", "links", "tags", "priority",
	"main", "quick", "short", "final", "draft", "everyone", "nobody",
	"someone", "something",
}

// nameVerbs, right after a lone capitalised word at the start of a sentence,
// suggest that the word is someone doing something: "Alice is", "Bob said".
var nameVerbs = []string{
	"is", "was", "has", "had", "will", "would", "can", "could", "should",
	"might", "must", "may", "does", "did", "said", "says", "told", "asked",
	"wants", "wanted", "likes", "liked", "loves", "loved", "hates", "hated",
	"prefers", "preferred", "thinks", "thought", "went", "got", "just",
	// everyday irregular pasts, which carry no -ed to look like a verb by
	"swam", "ran", "took", "made", "came", "saw", "bought", "brought", "met", "drove", "flew", "rode", "ate",
	"drank", "sang", "spent", "sent", "gave", "won", "wrote", "caught", "taught", "sold", "kept", "left",
	"also", "always", "never", "really", "still", "isn't", "wasn't",
	"doesn't", "didn't", "won't", "can't", "hasn't", "hadn't", "wouldn't",
	"couldn't", "shouldn't", "to", "and", "or",
}

// personVerbs, opening a note, are done to someone, so the capitalised word
// after them is a name even at the start of a sentence: "Interviewed Rosa
// for the data role", "Phoned Okonkwo about the invoice".
var personVerbs = []string{
	"interviewed", "met", "meeting", "called", "phoned", "rang", "emailed", "texted", "messaged",
	"pinged", "visited", "hired", "thanked", "invited", "asked", "told", "paid", "saw", "helped",
	"congratulated", "introduced", "reminded", "interviewing", "calling", "emailing", "texting",
	"visiting", "thanking", "inviting", "asking", "telling", "paying", "seeing", "helping",
}

// openerVerbs are the everyday verbs a note opens with whose form does not
// look inflected ("Put in the courgette seedlings", "Took the bins out"):
// opening a sentence, they are no name.
var openerVerbs = []string{
	"put", "set", "cut", "let", "got", "took", "made", "went", "came", "ran", "swam", "drove", "flew", "rode",
	"ate", "drank", "bought", "brought", "spent", "sent", "gave", "won", "wrote", "caught", "taught", "sold",
	"kept", "left", "had", "did", "found", "fed", "hung", "dug", "lit", "sat", "slept",
}

// vagueWords are too general to be topics, yet may start a name ("New
// York", "Best Buy"), so they are not fillers.
var vagueWords = []string{
	"new", "old", "best", "better", "worse", "worst", "big", "little", "part",
	"end", "fun", "real", "easy", "hard", "different", "whole", "sounds",
	"looks", "goes", "makes", "gonna", "wanna", "gotta", "stuff", "great",
}

// smallTalk words mark greetings and acknowledgements, which lower importance.
var smallTalk = []string{
	"hi", "hello", "hey", "thanks", "thx", "ty", "ok", "okay", "lol", "lmao",
	"rofl", "haha", "hahaha", "hehe", "bye", "goodbye", "cheers", "cool",
	"nice", "yep", "yup", "np", "gm", "gn", "k", "kk", "brb", "ttyl",
}

// Importance markers, by category; see importance for the weights.
var (
	emphasisWords = []string{
		"remember", "important", "importantly", "always", "never", "must",
		"crucial", "critical", "essential", "vital",
	}
	obligationWords = []string{
		"password", "passwords", "passcode", "passphrase", "deadline",
		"deadlines", "due", "overdue",
	}
	decisionWords = []string{
		"decided", "decision", "decisions", "agreed", "chose", "chosen",
		"settled", "finalized", "finalised", "we'll",
	}
	preferenceWords = []string{
		"prefer", "prefers", "preferred", "preference", "preferences",
		"favorite", "favorites", "favourite", "favourites", "hate", "hates",
		"hated", "love", "loves", "loved", "dislike", "dislikes",
	}
)
