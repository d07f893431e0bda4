package recall

import (
	"slices"
	"strings"

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
			return slices.ContainsFunc(ws[i+2:], func(w string) bool { return slices.Contains(priceWords, w) })
		}
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
