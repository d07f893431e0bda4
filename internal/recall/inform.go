package recall

import (
	"math"
	"strings"
	"unicode"
)

// informative estimates, from its text alone, how likely a memory is to
// state something worth recalling rather than to chat: a dated account of
// what someone did ("yesterday I joined a pottery class"), names, numbers
// and length count for it; a question, or a reply that opens with thanks or
// praise, counts against. The weights are a logistic regression fitted on
// LoCoMo's development split (which turns are some question's evidence:
// AUC 0.78 there, 0.80 on the held-out split); the result is a probability.
func informative(s string) float64 {
	if len(s) > informBytes {
		s = s[:informBytes] // the opening says what kind of text it is
	}
	return informSignsOf(strings.TrimSpace(s)).probability()
}

// informSigns are what informative reads of a text.
type informSigns struct {
	question         bool // it ends with "?"
	when, did        bool // a time word ("yesterday", "last week"); a deed after "I" or "we"
	nums, chat       bool // a digit; an opening of chat ("thanks", "that's great")
	names, wordCount int  // capitalised words not opening a sentence; words
}

// informSignsOf reads the signs of s, trimmed.
func informSignsOf(s string) informSigns {
	g := informSigns{question: strings.HasSuffix(s, "?")}
	prev, sentenceStart := "", true
	for f := range strings.FieldsSeq(s) {
		g.wordCount++
		w := trimToWord(f)
		if w == "" {
			sentenceStart = strings.ContainsAny(f, ".!?")
			continue
		}
		if !sentenceStart && len(w) > 1 && isUpper(w[0]) && isLower(w[1]) {
			g.names++
		}
		if !g.nums && hasDigit(w) {
			g.nums = true
		}
		low := strings.ToLower(w)
		switch {
		case informWhen[low], prev == "last" && informLast[low]:
			g.when = true
		case (prev == "i" || prev == "we") && (informDid[low] || strings.HasSuffix(low, "ed") && len(low) > 3):
			g.did = true
		}
		if g.wordCount == 1 {
			g.chat = informChat[low] || strings.HasPrefix(low, "aw")
		} else if g.wordCount == 2 && prev == "that's" && informPraise[low] {
			g.chat = true
		} else if g.wordCount == 2 && prev == "thank" && low == "you" {
			g.chat = true
		}
		prev = low
		sentenceStart = endsSentence(f[len(f)-1])
	}
	return g
}

// probability is the fitted regression's probability that a text of
// signs g is some question's evidence.
func (g informSigns) probability() float64 {
	z := -2.63
	if g.question {
		z -= 0.84
	}
	if g.when {
		z += 0.92
	}
	if g.did {
		z += 0.90
	}
	z += 1.34 * float64(min(g.names, 3)) / 3
	if g.nums {
		z += 1.21
	}
	if g.chat {
		z -= 0.47
	}
	z += 2.06 * float64(min(g.wordCount, 40)) / 40
	return 1 / (1 + math.Exp(-z))
}

// informBytes bounds the text read: a long note's opening is enough, and a
// recall reads hundreds of candidates.
const informBytes = 2048

// trimToWord is f without the marks around its word; most words have
// none, and are returned without looking at each rune.
func trimToWord(f string) string {
	if isAlnum(f[0]) && isAlnum(f[len(f)-1]) {
		return f
	}
	return strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
}

func isAlnum(b byte) bool { return isUpper(b) || isLower(b) || '0' <= b && b <= '9' }

// endsSentence reports whether a word whose last byte is b ends a sentence.
func endsSentence(b byte) bool { return b == '.' || b == '!' || b == '?' }

// hasDigit is strings.ContainsAny(w, "0123456789"), which, asked of every
// word of every candidate, was 40% of informative's time.
func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if '0' <= w[i] && w[i] <= '9' {
			return true
		}
	}
	return false
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
func isLower(b byte) bool { return 'a' <= b && b <= 'z' }

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	informWhen   = wordSet("yesterday ago recently just")
	informLast   = wordSet("week weekend month year night monday tuesday wednesday thursday friday saturday sunday")
	informDid    = wordSet("went took got made had did saw ran found bought met started joined finished signed began won lost gave read wrote")
	informChat   = wordSet("thanks wow congrats")
	informPraise = wordSet("awesome great amazing")
)
