package extract

import (
	"strings"
)

// Keys of many values said several at a time ("we have two cats, Mochi
// and Pepper", "my kids are Ava and Leo", "I speak French and Spanish",
// "my hobbies are climbing and pottery"), and the explicit end of one
// value ("we lost Pepper", "I gave up climbing"), which retires that value
// alone.

// pNames is a list of names: "Mochi", "Mochi and Pepper", "Ava, Leo and Mia".
const pNames = `(` + pNameOne + `(?:, ` + pNameOne + `)*(?:,? (?:and|&) ` + pNameOne + `)?)`

const pNameOne = `[A-Z][\p{L}-]*(?:['’][A-Z][\p{L}-]+)?`

var (
	// ownRe is the speaker saying they have something: what follows is theirs.
	ownRe = lazy(`\b(?i:(?:i|we)(?: now| also| still| both)?(?:'ve got|’ve got| have got| have| got| own| adopted| rescued| took in| brought home| welcomed))\b`)
	// namedRe is a thing named after a count or article: "two cats, Mochi
	// and Pepper", "a rescue greyhound called Biscuit", "a son named Leo".
	namedRe = lazy(`\b(?:(?i:a|an|one|two|three|four|five|six|\d+|another|our|my)(?: (?i:rescue|little|new|young|old|pet|lovely|gorgeous|tabby|black|white|ginger|grey|gray|brown|sweet|elderly|baby|grown-up|teenage))* )?([a-z]+)(?:,|:| (?i:called|named)) ` + pNames)
	// possListRe is the speaker's things named in the plural: "our cats are
	// Mochi and Pepper", "my kids, Ava and Leo,", "my sisters Jo and Kim".
	possListRe = lazy(`\b(?i:my|our) (?:(?i:two|three|four|five|six|\d+|little|lovely|new|old|rescue|grown-up|teenage) )*([a-z]+(?:s|ren))(?: (?i:are|are called|are named)|,|:)? ` + pNames)
	// ownEndRe cuts off what another owner has: "we have a dog, Rex, and my
	// sister has a cat".
	ownEndRe = lazy(`;|\b(?i:but|while|whereas|though|although|has|have|owns)\b`)
)

// kinLists are the family words of a list, each with the key its people
// hold and the word a line calls one of them.
var kinLists = map[string][2]string{
	"kids": {"child", "child"}, "kid": {"child", "child"}, "children": {"child", "child"}, "child": {"child", "child"},
	"sons": {"child", "son"}, "son": {"child", "son"}, "daughters": {"child", "daughter"}, "daughter": {"child", "daughter"},
	"boys": {"child", "son"}, "girls": {"child", "daughter"}, "twins": {"child", "child"},
	"brothers": {"sibling", "brother"}, "sisters": {"sibling", "sister"}, "siblings": {"sibling", "sibling"},
	"parents": {"parent", "parent"}, "stepkids": {"child", "stepchild"}, "stepchildren": {"child", "stepchild"},
	// The rest of the family: each their own relation to the speaker.
	"grandchildren": {"relation", "grandchild"}, "grandkids": {"relation", "grandchild"}, "grandsons": {"relation", "grandson"},
	"granddaughters": {"relation", "granddaughter"}, "grandparents": {"relation", "grandparent"}, "cousins": {"relation", "cousin"},
	"nieces": {"relation", "niece"}, "nephews": {"relation", "nephew"},
}

func listClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	if loc := ownRe.FindStringIndex(s); loc != nil && !denied(s, loc[0]) {
		rest := s[loc[1]:]
		if end := ownEndRe.FindStringIndex(rest); end != nil {
			rest = rest[:end[0]]
		}
		for _, g := range namedRe.FindAllStringSubmatchIndex(rest, -1) {
			out = append(out, namedClaims(strings.ToLower(rest[g[2]:g[3]]), rest[g[4]:g[5]], sw)...)
		}
	}
	for _, g := range possListRe.FindAllStringSubmatchIndex(s, -1) {
		if !denied(s, g[0]) {
			out = append(out, namedClaims(strings.ToLower(s[g[2]:g[3]]), s[g[4]:g[5]], sw)...)
		}
	}
	return out
}

// namedClaims are the claims of names, each a kind: pets and the family.
func namedClaims(kind, names string, sw subjectWords) []profileClaim {
	var out []profileClaim
	kin, isKin := kinLists[kind]
	animal, isPet := petAnimal(singular(kind))
	for _, n := range splitNames(names) {
		switch {
		case !isPersonName(n):
		case isKin && kin[0] == "relation":
			out = append(out, profileClaim{subject: n, key: "relation", value: kin[1], text: n + " is " + possLower(sw) + " " + kin[1] + "."})
		case isKin:
			out = append(out, profileClaim{key: kin[0], value: n, text: n + " is " + possLower(sw) + " " + kin[1] + "."})
		case isPet:
			out = append(out, profileClaim{key: "pet", value: n, text: petText(n, singular(kind), animal, sw)})
		}
	}
	return out
}

// petText is the line saying n is the speaker's pet of kind word.
func petText(n, word, animal string, sw subjectWords) string {
	if animal != word {
		return n + " is " + possLower(sw) + " " + word + " (a " + animal + ")."
	}
	return n + " is " + possLower(sw) + " " + word + "."
}

// splitNames splits a list of names, keeping each as written.
func splitNames(s string) []string {
	var out []string
	for _, p := range listSepRe.Split(s, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// singular is w without its plural ending: "puppies" is "puppy", "cats" "cat".
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

var (
	// petGoneRe: a pet the speaker no longer has: "we lost Pepper last
	// week", "we had to put Rex down", "Mochi died in May", "we rehomed Bella".
	petGoneRe = lazy(`\b(?:(?i:(?:i|we)(?: sadly| just| recently| finally)? (?:lost|rehomed|re-homed|buried|said goodbye to|had to say goodbye to)) ` + pName +
		`(?:\s*[,.;!]|\s*$|\s+(?i:last|yesterday|this|today|recently|to|after|at the age|aged|on|in (?:january|february|march|april|may|june|july|august|september|october|november|december))\b)` +
		`|(?i:(?:i|we) had to (?:have )?(?:put|let)) ` + pName + ` (?i:down|to sleep|go)\b` +
		`|` + pName + ` (?i:died|passed away|was put down|was put to sleep|crossed the rainbow bridge)\b)`)
)

// petGoneClaims retire the pet a sentence says is gone. A name that was no
// pet of the speaker's retires nothing.
func petGoneClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	for _, g := range petGoneRe.FindAllStringSubmatchIndex(s, -1) {
		n := ""
		for i := 2; i < len(g); i += 2 {
			if g[i] >= 0 {
				n = nameAt(s, g[i], g[i+1])
				break
			}
		}
		if isPersonName(n) && !denied(s, g[0]) {
			out = append(out, profileClaim{key: "pet", value: n, ended: true, text: n + " was " + possLower(sw) + " pet."})
		}
	}
	return out
}

var (
	// speaksRe: "I speak French and Spanish", "I'm fluent in Welsh".
	speaksRe = lazy(`\b(?i:i (?:also |now |still |can |can also )?speak(?: a bit of| a little| some| basic| fluent| good| decent)?|(?:i'm|i’m|i am) (?:also )?(?:fluent|bilingual) in) ` +
		`((?:[A-Z][a-z]+)(?:(?:, | and | & |, and )(?:` + pSome + `)?(?:[A-Z][a-z]+))*)`)
	// hobbyRe: "my hobbies are climbing and pottery", "I took up bell ringing".
	hobbyRe = lazy(`\b(?i:my (?:main |favourite |new )?(?:hobbies are|hobbies include|hobby is|hobbies at the moment are|pastimes are)|i(?:'ve|’ve| have)? (?:recently |just |finally )?(?:took|taken) up) ` +
		pThing + pHobbyEnd)
	// hobbyEndRe: "I gave up climbing", "I've given up the choir".
	hobbyEndRe = lazy(`\b(?i:i(?:'ve|’ve| have)? (?:finally |just )?(?:gave|given) up) ` + pThing + pHobbyEnd)
)

// pSome says how well a language is spoken: "a little Gujarati".
const pSome = `a little |a bit of |some |basic |fluent |good |decent `

// pHobbyEnd ends a list of pastimes: also a time or a place said after it.
const pHobbyEnd = `(?:[,;:.!(]|\s+(?i:but|so|since|because|which|who|now|too|as well|for|ever|as a|when|last|this|in|at|with|on|recently|again|after|during|over|about|around|a few|years|months|weeks)\b|` + pClause + `|$)`

// languages are the languages a person says they speak: WordNet lacks many
// (Welsh, German and Polish are a people or a shine there).
var languages = strings.Fields(`english french spanish portuguese italian german dutch flemish danish swedish norwegian
	icelandic finnish estonian latvian lithuanian polish czech slovak hungarian romanian bulgarian greek turkish
	russian ukrainian serbian croatian bosnian slovenian albanian macedonian welsh irish gaelic scots catalan basque
	galician maltese arabic hebrew persian farsi urdu hindi bengali punjabi gujarati marathi tamil telugu kannada
	malayalam sinhala nepali mandarin cantonese chinese japanese korean vietnamese thai khmer lao burmese malay
	indonesian tagalog filipino swahili amharic somali yoruba igbo hausa zulu xhosa afrikaans esperanto latin bsl asl`)

func languageClaims(s string, sw subjectWords) []profileClaim {
	g := speaksRe.FindStringSubmatchIndex(s)
	if g == nil || denied(s, g[0]) {
		return nil
	}
	var out []profileClaim
	for _, l := range splitNames(s[g[2]:g[3]]) {
		if f := strings.Fields(l); len(f) > 1 {
			l = f[len(f)-1] // "a little Gujarati"
		}
		if isLanguage(l) {
			out = append(out, profileClaim{key: "language", value: l, text: sw.name + " speaks " + l + "."})
		}
	}
	return out
}

func isLanguage(w string) bool {
	w = strings.ToLower(w)
	for _, l := range languages {
		if l == w {
			return true
		}
	}
	return false
}

func hobbyClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	for _, h := range []struct {
		re    *lazyRegexp
		ended bool
	}{{hobbyRe, false}, {hobbyEndRe, true}} {
		g := h.re.FindStringSubmatchIndex(s)
		if g == nil || denied(s, g[0]) {
			continue
		}
		for _, v := range splitList(s[g[2]:g[3]]) {
			if first := strings.Fields(v)[0]; notThings[first] || notHobby[first] || vagueObject(v) || notHobby[v] {
				continue
			}
			out = append(out, profileClaim{key: "hobby", value: v, ended: h.ended, text: "One of " + possLower(sw) + " hobbies is " + v + "."})
		}
	}
	return out
}

// notHobby are what is given up but never a hobby (smoking, sugar), and
// words that start no pastime ("gave up on him", "gave up hope").
var notHobby = map[string]bool{"smoking": true, "drinking": true, "alcohol": true, "sugar": true, "meat": true,
	"coffee": true, "caffeine": true, "vaping": true, "booze": true, "chocolate": true, "on": true, "hope": true,
	"him": true, "her": true, "them": true, "trying": true, "waiting": true, "my": true, "our": true, "the": true}
