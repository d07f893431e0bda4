package recall

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Another thing's attribute: a question asking an attribute of a thing
// ("the code for the garage door", "the code for Gran's key safe", "is the
// washing machine still under warranty?") is not answered by a text that
// gives that attribute of another thing ("the code for the key safe by the
// back door", "the new dishwasher came with a five-year warranty"). A thing
// is all its nouns ("washing machine", "garage door keypad"), the same
// thing when the two share a noun, spell the same run together ("key
// safe", "keysafe") or one is a kind of the other. A text whose attribute
// has no owner read, or that names the asked thing whole, is kept.

// askedAttr is an attribute the question asks (a word of it) and the
// thing it asks it of.
type askedAttr struct {
	attr  string
	thing []string
}

// askedAttrs are the attributes the question asks of a thing: a word with
// its owner (attrOwner) and, in a question that opens on a thing ("is the
// washing machine still under warranty?"), the nouns after it; a word of
// another's thing is none ("door" of "the garage door").
func (r *ranker) askedAttrs() []askedAttr {
	if r.thingAttrs != nil {
		return *r.thingAttrs
	}
	var out []askedAttr
	fs := strings.Fields(asking(r.intent.Rest))
	for i, f := range fs {
		if a := strings.ToLower(bare(f)); r.attrWord(a) {
			if t := attrOwner(fs, i); len(t) > 0 && !slices.Contains(t, a) {
				out = append(out, askedAttr{a, t})
			}
		}
	}
	if t, k := subjectThing(fs); len(t) > 0 && !slices.ContainsFunc(out, func(a askedAttr) bool { return ofAnother(a, t) }) {
		// "the code for the garage door" opens on an attribute, not a thing
		for _, f := range fs[k:] {
			if a := strings.ToLower(bare(f)); r.attrWord(a) && !slices.Contains(t, a) {
				out = append(out, askedAttr{a, t})
			}
		}
	}
	out = slices.DeleteFunc(out, func(a askedAttr) bool {
		return slices.ContainsFunc(out, func(b askedAttr) bool { return slices.Contains(b.thing, a.attr) })
	})
	r.thingAttrs = &out
	return out
}

// ofAnother reports whether a is an attribute of thing t asked of
// another: "the code" of "the code for the garage door", not the "machine"
// of "the washing machine".
func ofAnother(a askedAttr, t []string) bool {
	return slices.Contains(t, a.attr) && slices.ContainsFunc(a.thing, func(w string) bool { return !slices.Contains(t, w) })
}

// attrWord reports whether w, a word of the question, may be an attribute
// asked of a thing: a searched noun naming no person nor time.
func (r *ranker) attrWord(w string) bool {
	return slices.Contains(r.words, w) && isNoun(w) && !r.namesPerson(w) && !timeWord(w) && roleOf(w) == ""
}

// anotherThingsAttr reports whether s gives an attribute the question asks
// only as another thing's: every place it holds it, its owner is read and
// is not the asked thing.
func (r *ranker) anotherThingsAttr(s string) bool {
	if anotherThingsFor(s, r.forThings) {
		return true // read without WordNet's nouns: "the PIN for the bike lock"
	}
	attrs := r.askedAttrs()
	if len(attrs) == 0 {
		return false
	}
	have := r.stems(s)
	fs := strings.Fields(s)
	return slices.ContainsFunc(attrs, func(a askedAttr) bool {
		if !slices.ContainsFunc(a.thing, func(w string) bool { return !have.has(r.stem(w)) }) {
			return false // it names the asked thing whole
		}
		other := false
		for i, f := range fs {
			if r.stem(strings.ToLower(bare(f))) != r.stem(a.attr) {
				continue
			}
			t := attrOwner(fs, i)
			if k := sentenceStart(fs, i); len(t) == 0 && hasWith(fs[k:i]) {
				t, _ = subjectThing(fs[k:i]) // "the new dishwasher came with a warranty"
			}
			if len(t) == 0 || sameThing(t, a.thing) {
				return false
			}
			other = true
		}
		return other
	})
}

// attrOwner is the thing whose attribute fs[i] is, read from the words
// around it: "code for the key safe", "the code of Gran's key safe"
// (after a determiner or a name's possessive), "the washing machine's
// warranty", "our garage door code"; nil when none is read.
func attrOwner(fs []string, i int) []string {
	if i+1 < len(fs) && !ends(fs[i]) {
		switch strings.ToLower(fs[i+1]) {
		case "for", "of", "on":
			return nounsAfter(fs, i+2)
		}
	}
	var before []string
	k := i - 1
	for ; k >= 0; k-- {
		base, poss := cutPossessive(fs[k])
		w := strings.ToLower(base)
		if ends(fs[k]) || !thingNoun(w) || poss && k < i-1 {
			break
		}
		before = append([]string{w}, before...)
	}
	if len(before) > 0 && k >= 0 && (opensNounPhrase(fs[k]) || namePossessive(fs[k])) {
		return before
	}
	return nil
}

// nounsAfter is the words of the noun phrase that opens at fs[j] (a
// determiner, a name's possessive or both: "the", "Auntie Pam's", "our"),
// up to a stopword or a phrase's end ("the key safe by the back door"), or
// nil when none opens there or a name is in it ("the Bosch"). The words
// are not checked for nouns: WordNet knows "lock" and "safe" as none.
func nounsAfter(fs []string, j int) []string {
	k := j
	for k < len(fs) {
		if opensNounPhrase(fs[k]) || namePossessive(fs[k]) {
			k++
		} else if n := possessedName(fs[k:]); n > 0 {
			k += n
		} else {
			break
		}
	}
	if k == j {
		return nil
	}
	var out []string
	for ; k < len(fs) && len(out) < 4; k++ {
		w := strings.ToLower(bare(fs[k]))
		if startsUpper(fs[k]) {
			return nil // a name: which thing it is, no word says
		}
		if !plainWord(w) || text.IsStopword(w) || timeWord(w) {
			break
		}
		out = append(out, w)
		if ends(fs[k]) {
			break
		}
	}
	return out
}

// possessedName is how many words of fs open on a name of several words
// ending in a possessive ("Auntie Pam's"), or 0.
func possessedName(fs []string) int {
	for i, f := range fs {
		if !startsUpper(f) {
			return 0
		}
		if namePossessive(f) {
			return i + 1
		}
	}
	return 0
}

// subjectThing is the thing a sentence opens on ("The new dishwasher
// came with…", "Is the washing machine…?", "When does the boiler…?") and
// the index after it; nil when it opens on none or on a person.
func subjectThing(fs []string) ([]string, int) {
	j := 0
	for j < len(fs) && j < 3 && !opensNounPhrase(fs[j]) {
		switch strings.ToLower(strings.TrimRight(fs[j], ",")) {
		case "is", "are", "was", "does", "do", "did", "has", "have", "when", "how", "what's", "what", "whats":
			j++
			continue
		}
		return nil, 0
	}
	t := nounsAfter(fs, j)
	if len(t) == 0 || slices.ContainsFunc(t, func(w string) bool { return roleOf(w) != "" }) {
		return nil, 0
	}
	k := j + 1
	for k < len(fs) && !slices.Contains(t, strings.ToLower(bare(fs[k]))) {
		k++
	}
	return t, min(len(fs), k+len(t))
}

// hasWith reports whether fs hold a word that gives its subject what
// follows: "came with", "has", "is still under".
func hasWith(fs []string) bool {
	return slices.ContainsFunc(fs, func(f string) bool {
		switch strings.ToLower(f) {
		case "with", "has", "have", "had", "under":
			return true
		}
		return false
	})
}

// sentenceStart is the index of the first word of fs[i]'s sentence.
func sentenceStart(fs []string, i int) int {
	for k := i; k > 0; k-- {
		if opensSentence(fs, k) {
			return k
		}
	}
	return 0
}

// thingNoun reports whether w is a noun a thing may be named by: no
// stopword, time, person's role, nor number.
func thingNoun(w string) bool {
	return plainWord(w) && !text.IsStopword(w) && isNoun(w) && !timeWord(w) && roleOf(w) == ""
}

// namePossessive reports whether f is a name's possessive: "Gran's".
func namePossessive(f string) bool {
	base, poss := cutPossessive(f)
	return poss && startsUpper(base)
}

// ends reports whether f ends a phrase: a comma or a sentence's end.
func ends(f string) bool { return f != strings.TrimRight(f, ",;:.?!") }

// sameThing reports whether things a and b may be one: they share a noun,
// run together they spell the same ("key safe", "keysafe"), or one is a
// kind of the other ("dishwasher" is an appliance).
func sameThing(a, b []string) bool {
	if slices.ContainsFunc(a, func(w string) bool {
		return slices.ContainsFunc(b, func(v string) bool { return stem(w) == stem(v) })
	}) || strings.Join(a, "") == strings.Join(b, "") {
		return true
	}
	return thingOfKind(a, b) || thingOfKind(b, a)
}

// thingOfKind reports whether thing a is, by its kinds or its head's, of
// kind b.
func thingOfKind(a, b []string) bool {
	return slices.Contains(strings.Fields(kinds.Of(strings.Join(a, " "))), strings.Join(b, " ")) ||
		slices.Contains(strings.Fields(kinds.Of(a[len(a)-1])), strings.Join(b, " "))
}

// forThing is a noun of the question and the thing it is for ("the code
// for the garage door": code, [garage door]), as stems.
type forThing struct {
	head  string
	thing []string
}

// forRe is a noun and the thing it is for, after "the", "my" or "our".
var forRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(\pL+)\s+for\s+(?:the|my|our)\s+((?:\pL+\s+){0,2}\pL+)`)
})

// forThingsOf are the "N for the M" phrases of q whose noun the question
// searches (words).
func forThingsOf(q string, words []string) []forThing {
	var out []forThing
	for _, m := range forRe().FindAllStringSubmatch(q, -1) {
		head := strings.ToLower(m[1])
		if !slices.Contains(words, head) {
			continue
		}
		f := forThing{head: stem(head)}
		for _, w := range strings.Fields(strings.ToLower(m[2])) {
			if slices.Contains(words, w) {
				f.thing = append(f.thing, stem(w))
			}
		}
		if len(f.thing) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// anotherThingsFor reports whether s holds a noun the question asks for a
// thing only as another thing's: "the code for the key safe by the back
// door" asked the code for the garage door. Every "N for the …" of s names
// none of the question's thing, and s holds N in no other way.
func anotherThingsFor(s string, asked []forThing) bool {
	if len(asked) == 0 {
		return false
	}
	said := forRe().FindAllStringSubmatch(s, -1)
	for _, a := range asked {
		other, own := false, 0
		for _, m := range said {
			if stem(strings.ToLower(m[1])) != a.head {
				continue
			}
			own++
			if !slices.ContainsFunc(strings.Fields(strings.ToLower(m[2])), func(w string) bool { return slices.Contains(a.thing, stem(w)) }) {
				other = true
			}
		}
		held := 0
		for _, w := range text.Words(strings.ToLower(s)) {
			if stem(w) == a.head {
				held++
			}
		}
		if other && held == own {
			return true
		}
	}
	return false
}
