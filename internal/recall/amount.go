package recall

import (
	"regexp"
	"slices"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// What it cost: a question asking how much was paid or charged ("how much
// did we pay for the grandfather clock?", "how much are the brake pads?")
// asks for an amount. A text naming the thing but no amount, nor any word
// of paying, says something else of it ("the clock was repaired by Mr
// Ambrose in February"): it addresses the subject and not the attribute,
// and is a near-miss (nearmiss.go).

// priceWords say that a question asks what something cost, after "how
// much"; a text holding one of them speaks of what it cost.
var priceWords = []string{"cost", "costs", "costed", "pay", "paid", "pays", "paying", "price", "priced", "prices",
	"charge", "charged", "charges", "spend", "spent", "quote", "quoted", "fee", "fees", "bought", "buy", "owe",
	"owed", "worth", "sold", "sell", "rent", "bill", "billed", "rate"}

// amountWords say an amount in words: "forty quid", "free", "a fiver".
var amountWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
	"twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred",
	"thousand", "million", "grand", "quid", "pound", "pounds", "dollar", "dollars", "euro", "euros", "pence",
	"cents", "free", "fiver", "tenner", "nothing", "cheap", "expensive", "fortune"}

// asksAmount reports whether q asks how much something cost.
func asksAmount(q string) bool {
	ws := text.Words(strings.ToLower(q))
	for i := 0; i+1 < len(ws); i++ {
		if ws[i] == "how" && ws[i+1] == "much" {
			return i+2 < len(ws) && costsBe(ws[i+2]) ||
				slices.ContainsFunc(ws[i+2:], func(w string) bool { return slices.Contains(priceWords, w) })
		}
	}
	return false
}

// costsBe reports whether w, right after "how much", is a form of "be":
// "how much was the oven repair?" asks what it cost.
func costsBe(w string) bool {
	switch w {
	case "is", "was", "are", "were", "s":
		return true
	}
	return false
}

// lacksAmount reports whether the question asks an amount (asksAmount)
// and s holds none: no digit, no currency sign, no amount or price word.
func (r *ranker) lacksAmount(s string) bool {
	if !r.amount {
		return false
	}
	if strings.ContainsAny(s, "0123456789£$€¥") {
		return false
	}
	return !slices.ContainsFunc(text.Words(strings.ToLower(s)), func(w string) bool {
		return slices.Contains(amountWords, w) || slices.Contains(priceWords, w)
	})
}

// When it is: a question asking when something of the user's own is or
// will be ("when does my climbing wall membership run out?", "when is my
// eye test?") asks for a time. A text naming the thing but no time ("the
// membership is £38 a month") says something else of it: a near-miss, as
// a text without an amount is for what it cost.

// timeTellers say a time in words beside timeWord's days, months and
// parts of them: "the end of the month", "next week", "until Friday".
var timeTellers = []string{"next", "last", "end", "start", "soon", "later", "early", "late", "until", "till",
	"daily", "nightly", "weekly", "fortnightly", "monthly", "quarterly", "yearly", "annually", "noon", "midday",
	"midnight", "now"}

// clockOrDate is a time or a date in digits or an hour in words: "7:30",
// "6pm", "the 14th", "2031", "3/4", "at seven", "half past".
var clockOrDate = regexp.MustCompile(`(?i)\b\d{1,2}[:.]\d\d\b|\b\d{1,2}\s?[ap]m\b|\b\d{1,2}(st|nd|rd|th)\b|\b(19|20)\d\d\b|\b\d{1,2}/\d{1,2}\b|` +
	`\b(at|by|from|until|till|past|to)\s+(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|\bo'clock\b|\b(half|quarter)\s+(past|to)\b`)

// asksWhen reports whether q asks when something is or will be: "when
// does…", "when is…", "when's…"; not "when did…", which the memory's own
// time may answer.
func asksWhen(q string) bool {
	ws := text.Words(strings.ToLower(strings.ReplaceAll(q, "’", "'")))
	if len(ws) < 2 || ws[0] != "when" && ws[0] != "when's" {
		return false
	}
	switch ws[1] {
	case "does", "do", "is", "are", "will", "should", "must", "s", "my", "our":
		return true
	}
	return ws[0] == "when's"
}

// asksWhenDone reports whether q asks when something was done: "when did
// we last have the chimney swept?". A plan or a wish tells no such time.
func asksWhenDone(q string) bool {
	ws := text.Words(strings.ToLower(q))
	return len(ws) > 1 && ws[0] == "when" && ws[1] == "did"
}

// lacksTime reports whether the question asks when of the user's own
// (asksWhen) and s holds no time: no clock time or date, no day, month or
// part of one but as a rate's period ("£38 a month"), no word that tells a
// time, and no correction ("cancelled the Spanish lessons" says when they
// are: never).
func (r *ranker) lacksTime(s string) bool {
	if !r.when || clockOrDate.MatchString(s) {
		return false
	}
	if _, ok := capture.CorrectionIn(s); ok {
		return false
	}
	ws := text.Words(strings.ToLower(s))
	for i, w := range ws {
		if timeWord(w) && (i == 0 || !ratePeriod(ws[i-1], w)) || slices.Contains(timeTellers, w) {
			return false
		}
	}
	return true
}

// What it is called: a question of the user's own asking a name ("what's
// our bird called?", "what's the name of my physio?") is not answered by a
// text that names nothing ("cleaned the bird feeder in the garden"): a
// near-miss, as a text without an amount is for what it cost.

// asksName reports whether q asks what something is called.
func asksName(q string) bool {
	ws := text.Words(strings.ToLower(q))
	if len(ws) == 0 || ws[0] != "what" && ws[0] != "whats" {
		return false
	}
	return namingVerb(ws, len(ws)-1) || slices.Contains(ws, "name")
}

// lacksName reports whether the question asks a name (asksName) and s
// holds none: no name (a day or a month is none), nor anything in double
// quotes.
func (r *ranker) lacksName(s string) bool {
	return r.naming && !strings.ContainsAny(s, "\"“") && !slices.ContainsFunc(capture.Names(s), nameLike)
}

// nameBeside reports whether a turn of c's session beside it gives a name:
// "Miso it is!" after "we need to name the new kitten".
func (r *ranker) nameBeside(c *cand) bool {
	return r.besideOut(c, func(o *cand) bool { return o != c && !r.lacksName(o.hit.Text) })
}
