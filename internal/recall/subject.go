package recall

import (
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/wordnet"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Whose is it: a question asks about someone (a name, or a role the user
// holds a person in: "my boss", "my sister's husband") or about the user
// ("my car insurance"). An item answers it only when what it says of the
// question's words belongs to that subject: "My partner Sunil's insurance"
// is not the user's, "Mum's driving licence" not "my driving licence", and
// "my car insurance" not the partner's.

// roleCanon maps the everyday words for the people a user has to one word
// each: a wife and a partner are one person, a boss and a manager too.
var roleCanon = func() map[string]string {
	m := map[string]string{}
	for canon, words := range map[string][]string{
		"partner":       {"partner", "wife", "husband", "spouse", "girlfriend", "boyfriend", "fiance", "fiancee", "fiancé", "fiancée"},
		"boss":          {"boss", "manager", "supervisor"},
		"mother":        {"mum", "mom", "mother", "mam", "mummy", "mommy"},
		"father":        {"dad", "father", "daddy"},
		"parents":       {"parents", "folks"},
		"children":      {"kids", "children", "kid", "child"},
		"grandchildren": {"grandchildren", "grandkids"},
		"grandparents":  {"grandparents"},
		"grandmother":   {"gran", "granny", "grandma", "grandmother", "nan", "nana", "nanna"},
		"grandfather":   {"grandad", "granddad", "grandpa", "grandfather"},
		"colleague":     {"colleague", "coworker", "workmate", "teammate"},
		"neighbour":     {"neighbour", "neighbor"},
		"flatmate":      {"flatmate", "roommate", "housemate"},
		"landlord":      {"landlord", "landlady"},
		"physio":        {"physio", "physiotherapist"},
		"doctor":        {"doctor", "gp", "physician"},
		"vet":           {"vet", "veterinarian", "veterinary"},
		"optician":      {"optician", "optometrist"},
		"solicitor":     {"solicitor", "lawyer"},
	} {
		for _, w := range words {
			m[w] = canon
		}
	}
	for _, w := range []string{"son", "daughter", "brother", "sister", "niece", "nephew", "cousin", "aunt", "auntie",
		"uncle", "friend", "stepson", "stepdaughter", "stepmother", "stepfather", "godson", "goddaughter",
		"grandson", "granddaughter", "twin", "mentor", "tutor", "therapist", "childminder", "nanny", "cleaner",
		"trainer", "coach", "teacher", "instructor", "accountant", "lodger", "carer", "babysitter",
		"counsellor", "hairdresser", "godmother", "godfather", "godparent", "stepbrother", "stepsister"} {
		m[w] = w
	}
	m["auntie"] = "aunt"
	return m
}()

// kinChains are the chains of roles a kinship word stands for: my
// brother-in-law is my partner's brother or my sister's husband, my nan my
// mother's or father's mother. A partner's sex is not kept (roleCanon), so
// a sibling's partner is the in-law of the sibling's other sex.
var kinChains = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"brother-in-law":  {"partner>brother", "sister>partner"},
		"sister-in-law":   {"partner>sister", "brother>partner"},
		"mother-in-law":   {"partner>mother"},
		"father-in-law":   {"partner>father"},
		"son-in-law":      {"daughter>partner"},
		"daughter-in-law": {"son>partner"},
		"grandmother":     {"mother>mother", "father>mother"},
		"grandfather":     {"mother>father", "father>father"},
		"grandson":        {"son>son", "daughter>son"},
		"granddaughter":   {"son>daughter", "daughter>daughter"},
		"niece":           {"sister>daughter", "brother>daughter"},
		"nephew":          {"sister>son", "brother>son"},
		"aunt":            {"mother>sister", "father>sister"},
		"uncle":           {"mother>brother", "father>brother"},
		"stepmother":      {"father>partner"},
		"stepfather":      {"mother>partner"},
	}
})

// kinGroups are the kinship words for a group and whom each holds: my
// in-laws are my partner's parents and my brothers- and sisters-in-law;
// my father-in-law alone is not my in-laws.
var kinGroups = sync.OnceValue(func() map[string][]string { // on first use: the binary's start does not pay for it
	return map[string][]string{
		"in-laws":       {"partner>parents", "partner>mother", "partner>father", "mother-in-law", "father-in-law", "brother-in-law", "sister-in-law"},
		"children":      {"son", "daughter", "stepson", "stepdaughter"},
		"grandchildren": {"grandson", "granddaughter", "son>son", "son>daughter", "daughter>son", "daughter>daughter"},
		"parents":       {"mother", "father", "stepmother", "stepfather"},
		"grandparents":  {"grandmother", "grandfather"},
	}
})

// kinOf are the other keys the role key k stands for: the chains of a
// kinship word ("@brother-in-law": "@sister>partner"), the members of a
// group and the word of a chain ("@partner>mother": "@mother-in-law");
// none for any other key.
func kinOf(k string) []string {
	role, ok := strings.CutPrefix(k, "@")
	if !ok {
		return nil
	}
	var out []string
	for _, c := range slices.Concat(kinChains()[role], kinGroups()[role]) {
		out = append(out, "@"+c)
	}
	for word, chains := range kinChains() {
		if slices.Contains(chains, role) {
			out = append(out, "@"+word)
		}
	}
	return out
}

// roleOf is the role w, lowercase, names ("wife": partner), or "".
func roleOf(w string) string {
	if r, ok := roleCanon[w]; ok {
		return r
	}
	return roleCanon[strings.TrimSuffix(w, "s")]
}

// roleWord is the role w names when written in lower case: one of roleOf's
// or an occupation, its own ("my osteopath"); "Bobby" is a name, though a
// bobby is a policeman.
func roleWord(w string) string {
	if r := roleOf(w); r != "" {
		return r
	}
	if occupation(w) {
		return w
	}
	return ""
}

// roleOfTok is the role t names, as written (roleOf, roleWord).
func roleOfTok(t tok) string {
	if t.upper {
		return roleOf(t.low)
	}
	return roleWord(t.low)
}

// occupation reports whether WordNet marks w, lowercase, as an occupation
// (lexgen's "=role" among its kinds): the osteopath, the optician and the
// plumber a user has are people, as the roles above are.
func occupation(w string) bool {
	_, ok := occupations()[w]
	return ok
}

// occupations are the words WordNet marks as occupations, gathered from
// the lexicon on first use (a few thousand words): a question reads the
// role of a word in every possessive of its candidates, and a map's
// lookup is a fraction of the lexicon's.
var occupations = sync.OnceValue(func() map[string]struct{} {
	out := map[string]struct{}{}
	for w, ks := range wordnet.Kinds.All() {
		for k := range ks.All() {
			if k == "=role" {
				out[w] = struct{}{}
				break
			}
		}
	}
	return out
})

// roleSynonyms are the words of the role canon.
func roleSynonyms(canon string) []string {
	var out []string
	for w, c := range roleCanon {
		if c == canon {
			out = append(out, w)
		}
	}
	return out
}

// tok is one word of a text as whose-is-it reads it.
type tok struct {
	low   string // lowercased, without a possessive 's
	upper bool   // written with a capital
	caps  bool   // written in capitals, more than one letter: an acronym ("WFH")
	poss  bool   // "Sunil's", "everyone's"
	brk   bool   // a clause break (, ; . ! ? : and brackets) comes before it
}

// toks splits s into words keeping the possessive and the clause breaks.
// A word is a slice of s, not a copy: every candidate's text is split so.
func toks(s string) []tok {
	out := make([]tok, 0, len(s)/6+1)
	brk := true
	start, runes, lower := -1, 0, false // the word being read: its first byte, its runes, whether one is lower case
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || (r == '\'' || r == '’') && start >= 0 {
			if start < 0 {
				start, runes, lower = i, 0, false
			}
			runes++
			lower = lower || unicode.IsLower(r)
			continue
		}
		if start >= 0 {
			out = append(out, wordTok(s[start:i], runes, lower, brk))
			start, brk = -1, false
		}
		if strings.ContainsRune(",;.!?:()—–", r) {
			brk = true
		}
	}
	if start >= 0 {
		out = append(out, wordTok(s[start:], runes, lower, brk))
	}
	return joinPairRoles(out)
}

// wordTok is the tok of the word w of n runes (lower: one is lower case)
// after a clause break or not.
func wordTok(w string, n int, lower, brk bool) tok {
	first, _ := utf8.DecodeRuneInString(w)
	t := tok{upper: unicode.IsUpper(first), caps: n > 1 && !lower, brk: brk}
	for _, suf := range []string{"'s", "’s", "'", "’"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf) {
			w, t.poss = strings.TrimSuffix(w, suf), suf == "'s" || suf == "’s"
			break
		}
	}
	t.low = strings.ToLower(w)
	return t
}

// Person keys: a name lowercased ("sunil"), or a role chain ("@partner",
// "@sister>partner" for my sister's husband).
const selfKey = "@me"

// roleChain reads the roles of a possessive chain starting at t[i] ("my
// sister's husband"): the key and the index after it; "" when t[i] names no
// role.
func roleChain(t []tok, i int) (string, int) {
	key := ""
	for i < len(t) {
		r := roleOfTok(t[i])
		if i+1 < len(t) && t[i].low == "in" && (t[i+1].low == "laws" || t[i+1].low == "law") && !t[i+1].brk {
			r, i = "in-laws", i+1 // "my in-laws": my partner's parents
		}
		if r == "" || i > 0 && t[i].brk && key != "" {
			break
		}
		if i+2 < len(t) && t[i+1].low == "in" && t[i+2].low == "law" && !t[i+1].brk && !t[i+2].brk {
			r, i = r+"-in-law", i+2 // "my brother-in-law" is not my brother
		}
		key += ">" + r
		i++
		if !t[i-1].poss {
			break
		}
	}
	if key == "" {
		return "", i
	}
	return "@" + key[1:], i
}

// questionSubject is whom q asks about: the people it names (names) and
// the role chains after "my" or "our"; self when it names none of them
// but speaks in the first person.
func questionSubject(q string, names []string) (keys []string, self bool) {
	keys = append(keys, names...)
	t := toks(q)
	first := false
	for i := 0; i < len(t); i++ {
		if firstPerson(t[i].low) { // "I'm", "we've" too
			first = true
		}
		if t[i].low == "my" || t[i].low == "our" {
			if k, next := roleChain(t, i+1); k != "" {
				keys = append(keys, k)
				i = next - 1
			}
		} else if t[i].upper && t[i].poss && roleOf(t[i].low) != "" {
			if k, next := roleChain(t, i); k != "" && next > i+1 { // "Mum's carer": her carer, not Mum
				keys = slices.DeleteFunc(keys, func(n string) bool { return n == t[i].low })
				keys = append(keys, k)
				i = next - 1
			}
		}
	}
	for i, k := range keys {
		if r := roleOf(k); r != "" {
			keys[i] = "@" + r // "Mum" names a role
		}
	}
	keys = dedupe(keys)
	return keys, len(keys) == 0 && first
}

// speechVerbs are what a person asked of says or thinks: "what did
// Bernadette say Rosa weighed?" asks of Bernadette's words, not of Rosa.
var speechVerbs = words(`say said tell told think thought reckon reckoned recommend recommended suggest suggested
	advise advised mention mentioned`)

// speakerAsked is the keys without the other people named when q asks
// what one of them said ("what did Bernadette say Rosa weighed?",
// "what does Kwame think of Zara's car?"): the speaker is whom it asks of.
func speakerAsked(q string, keys, people []string) []string {
	if len(people) < 2 {
		return keys
	}
	t := toks(q)
	for i := 0; i+2 < len(t); i++ {
		if doWord(t[i].low) && slices.Contains(people, t[i+1].low) && !t[i+1].poss && slices.Contains(speechVerbs, t[i+2].low) {
			return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k != t[i+1].low && slices.Contains(people, k) })
		}
	}
	return keys
}

// itemKeys are the people a text (its toks) speaks of: its names (lowercased; a role word
// written as a name, "Mum", is the role) and the role chains after a
// possessive or standing as one ("a friend's cat").
func itemKeys(t []tok, names []string) []string {
	var out []string
	for _, n := range names {
		for _, w := range strings.Fields(strings.ToLower(n)) {
			w = strings.Trim(w, ".,'’")
			if r := roleOf(w); r != "" {
				out = append(out, "@"+r)
			} else if w != "" && !titleWord(w) {
				out = append(out, w)
			}
		}
	}
	for i := 0; i < len(t); i++ {
		if k := switchedRole(t, i); k != "" {
			out = append(out, k)
			continue
		}
		if !(t[i].poss || i > 0 && (possessor(t[i-1].low) || t[i-1].poss) || ownAfter(t, i) || t[i].upper) {
			continue // no chain counts here: not read (its words' roles cost)
		}
		if k, next := roleChain(t, i); k != "" {
			if i > 0 && t[i-1].poss {
				k = "@" + t[i-1].low + ">" + k[1:] // "my colleague Anwen's daughter": Anwen's, not mine
			} else if n := pronounsOwner(t, i); n != "" {
				k = "@" + n + ">" + k[1:] // "Dom says his accountant": Dom's
			}
			out = append(out, k)
			i = next - 1
		}
	}
	return dedupe(out)
}

// switchedRole is the role key of t[i] when it is a role in the plural
// after a verb of switching: "I've switched dentists, I'm with Parkside
// Smiles now" is about my dentist, the new one named. "" otherwise.
func switchedRole(t []tok, i int) string {
	if i == 0 || !strings.HasSuffix(t[i].low, "s") {
		return ""
	}
	switch t[i-1].low {
	case "switched", "swapped", "changed", "switching", "swapping", "changing", "switch", "swap", "change":
	default:
		return ""
	}
	one := t[i]
	one.low = strings.TrimSuffix(one.low, "s")
	if r := roleOfTok(one); r != "" {
		return "@" + r // "switched GPs" too
	}
	return ""
}

// ownAfter reports whether "own" after a possessor comes before t[i]: "my
// own dad" is my dad.
func ownAfter(t []tok, i int) bool {
	return i > 1 && t[i-1].low == "own" && !t[i-1].brk && possessor(t[i-2].low)
}

// possessor reports whether w is a word that makes the role after it
// someone's: "my sister", "a friend", "her brother".
func possessor(w string) bool {
	switch w {
	case "my", "our", "your", "his", "her", "their", "a", "an", "the":
		return true
	}
	return false
}

// owners are the owners in a text (its toks) of each of the words (lowercased stems):
// selfKey for "my"/"our", a person key for "Sunil's", "my partner's",
// "his", "everyone's"; a word met with no owner adds nothing. known tells
// a capitalised owner that is a person from a thing ("the Fiesta's
// service" is not a person's).
func owners(t []tok, words []string, stemOf func(string) string) []string {
	var out []string
	for i := range t {
		if !hasStem(words, stemOf(t[i].low)) {
			continue
		}
		if o := ownerBefore(t, i); o != "" {
			out = append(out, o)
		}
	}
	return out
}

func hasStem(words []string, st string) bool {
	for _, w := range words {
		if w == st {
			return true
		}
	}
	return false
}

// ownerBefore is the owner of t[i]: the possessive within the two words
// before it, in its clause ("Mum's driving licence", "my car insurance"),
// or before the thing a place it names is of ("Tom's check-up at the
// dentist").
func ownerBefore(t []tok, i int) string {
	reach := 3
	if i >= 3 && article(t[i-1].low) && (t[i-2].low == "at" || t[i-2].low == "with") && !t[i].brk && !t[i-1].brk && !t[i-2].brk {
		i -= 2
	}
	for j := i - 1; j >= 0 && j >= i-reach; j-- {
		if t[j+1].brk {
			return ""
		}
		w := t[j]
		if (w.low == "up" || w.low == "off") && j > 0 && !text.IsStopword(t[j-1].low) {
			reach++ // a noun with its particle: "check-up", "drop-off"
			continue
		}
		switch w.low {
		case "my", "our":
			if k, next := roleChain(t, j+1); k != "" && next <= i {
				return k // "my manager Priti wants": the manager's, not mine
			}
			return selfKey
		case "his", "her":
			if n := clauseOpener(t, j); n != "" {
				return n // "Dom says his accountant charged him £400": Dom's
			}
			return "@other"
		case "their", "everyone", "everybody", "someone", "somebody":
			return "@other"
		}
		if w.poss {
			if k, _ := roleChainBack(t, j); k != "" {
				return k
			}
			if w.upper && (j == 0 || !article(t[j-1].low)) {
				if k, next := roleChain(t, j+1); k != "" && next <= i {
					return "@" + w.low + ">" + k[1:] // "Mark's dad lives": his dad's, not Mark's
				}
				return w.low
			}
			return ""
		}
		if text.IsStopword(w.low) {
			return ""
		}
	}
	return ""
}

// pronounsOwner is the name whose "his" or "her" comes right before t[i]
// (clauseOpener), or "".
func pronounsOwner(t []tok, i int) string {
	if i == 0 || t[i-1].low != "his" && t[i-1].low != "her" {
		return ""
	}
	return clauseOpener(t, i-1)
}

// clauseOpener is the name (lowercase) that opens the clause of t[j], a
// word or two before it, whose "his" or "her" t[j] is ("Dom says his
// accountant", "Aisha and her sister"), or "": a capitalised word, no
// possessive, role, time or function word, followed by a lowercase one.
func clauseOpener(t []tok, j int) string {
	k := j
	for k > 0 && !t[k].brk {
		k--
	}
	if j-k < 1 || j-k > 3 {
		return ""
	}
	o := t[k]
	if !o.upper || o.caps || o.poss || t[k+1].upper || text.IsStopword(o.low) || timeWord(o.low) || calendarWord(o.low) || roleOfTok(o) != "" {
		return ""
	}
	return o.low
}

// roleChainBack is the role chain ending at the possessive t[j] ("my
// sister's husband's"), or "".
func roleChainBack(t []tok, j int) (string, int) {
	start := j
	if j >= 2 && t[j].low == "law" && t[j-1].low == "in" && roleOf(t[j-2].low) != "" {
		start = j - 2 // "my brother-in-law's"
	}
	for start > 0 && roleOf(t[start-1].low) != "" && t[start-1].poss && !t[start].brk {
		start--
	}
	k, _ := roleChain(t, start)
	return k, start
}

func article(w string) bool { return w == "the" || w == "a" || w == "an" }

// inFirstPerson reports whether a word of t speaks in the first person.
func inFirstPerson(t []tok) bool {
	return slices.ContainsFunc(t, func(w tok) bool { return firstPerson(w.low) })
}

// firstPerson reports whether w, lowercase, speaks in the first person:
// "I", "our", "I'll", "we've".
func firstPerson(w string) bool {
	switch contracted(w) {
	case "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves":
		return true
	}
	return false
}

// contracted is w without a contraction's tail: "i'll", "we've" → i, we.
func contracted(w string) string {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		return w[:i]
	}
	return w
}

// singular reports whether q speaks of the user alone ("book me a room"),
// not of a group ("what do we think?"), whose members' words are its own.
func singular(q string) bool {
	for _, w := range toks(q) {
		switch contracted(w.low) {
		case "we", "us", "our", "ours", "ourselves":
			return false
		}
	}
	return true
}
