package recall

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Two names for one person are joined where the user said so: a role and
// the name given for it ("my wife Nkechi", "Oksana took over as my
// manager", the profile's "Sunil is the user's partner.") and a nickname
// ("our daughter Alexandra, Sasha to everyone"). The question's subject
// then takes in every name it goes by, and the memory that joined them is
// offered with the answer, its citation.

const pNm = `([A-Z][\p{L}'’-]+)`

// pTitle is an optional title before a name: "Dr Hale", "Mrs Abara".
const pTitle = `(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr)\.? )?`

// pFirst is an optional first name before a surname, its own group.
const pFirst = `(?:([A-Z][\p{L}'’-]+) )?`

// joinRes are the shapes of a join, compiled on first use.
var joinRes = sync.OnceValue(func() (j struct{ roleThenName, nameThenRole, chainThenName, nickname, goesBy, callsHim, callsHimAfter, shortFor, profileRel, profileRole, marriedTo *regexp.Regexp }) {
	roleAlt := `[\p{L}-]+` // any word: bindingsOf keeps those that are roles (roleOf)
	// "my wife Nkechi", "our daughter, Alexandra,", "my supervising social
	// worker from the fostering agency is Bernadette": a word of a kind
	// (an -ing or -ed word: allocated, visiting) or of time before the
	// role, and a place of up to three words after it.
	j.roleThenName = regexp.MustCompile(`\b(?i:my|our) (?:(?:(?i:new|little|big|older|younger|eldest|youngest|best|personal|old|current|usual|regular|local|main)|\p{Ll}{3,}(?:ing|ed)) )?(?i:(` + roleAlt + `))(?: (?i:at|from|in|with) (?:(?i:the|my|our) )?(?:[\pL'’]+ ){0,2}[\pL'’]+(?:,| is| was)|,| is| was|:)? ` + pTitle + pNm + `(?: ` + pNm + `)?`)
	// "Oksana took over as my manager", "Nkechi, my wife", "Dev is my flatmate"
	j.nameThenRole = regexp.MustCompile(pNm + `(?:,| is| was| has become| became| is now|(?: [a-z]+){1,3} as) (?i:my|our) (?:(?i:new|best|line) )?(?i:(` + roleAlt + `))\b`)
	// "Alexandra, Sasha to everyone", "Roberto (Bobby to his friends)", "Maximilian, Max to all of us", "Alexandra, known as Sasha",
	// "Gaz (Gareth really)", "Bex (real name Rebecca)"
	j.nickname = regexp.MustCompile(pNm + `(?:, | \(| - | — )(?:(?i:known as|aka|called|or|who goes by|who we call|real name|full name|properly) )?` + pNm +
		`(?: (?i:to (?:everyone|everybody|all of us|us all|us|friends|mates|(?:her|his|their|our|the) (?:whole )?(?:friends|mates|family|kids))|for short)|(?:,? (?i:really|properly|officially|on paper))?\))`)
	// goesBy and callsHim open with an optional first name before the
	// name: "Katarzyna Nowak goes by Kasia" is Katarzyna's nickname too.
	j.goesBy = regexp.MustCompile(pFirst + pNm + `(?:[,;.]? (?i:who|he|she|they))? (?i:goes by|is known as|is called|prefers to be called|likes to be called) ` + pNm)
	// "Albert, everyone calls him Bertie", "Margaret (we all call her Peggy)",
	// "Bartholomew (everyone calls him Barty)",
	// "Peregrine, though everyone calls him Perry", "Oluwaseun Adeyemi, he
	// says everyone calls him Seun", "… is Agnieszka. We all call her Aga.",
	// "… is Bernadette Quinn; she told us to call her Bernie."
	j.callsHim = regexp.MustCompile(pFirst + pNm + `(?:[,;.] | \(| - | — )(?:(?i:though|but|although|and) )?(?:(?:(?i:he|she|they) (?i:says|said|tells me|told me|tells us|told us) (?:(?i:that) )?)?` +
		`(?i:everyone|everybody|we|we all|they|the family|friends|the kids|people) (?i:all )?(?i:calls?|called)|(?i:he|she|they) (?i:told|tells|asked|asks) (?i:us|me|everyone|everybody|people) to call) (?i:him|her|them) ` + pNm)
	// "Gurpreet lives in Hounslow, we all call him Bittu": the name is the
	// subject of the clause before, a place at most named in it; a
	// possessive ("Mum's brother") is no subject.
	j.callsHimAfter = regexp.MustCompile(`\b([A-Z][\p{L}-]+)(?:(?: (?:in|at|from|near|on|to) [A-Z][\p{L}'’-]+| [a-z][\p{L}'’-]*){1,6})[,;.] (?:(?i:and|but|though) )?` +
		`(?i:everyone|everybody|we|we all|they|the family|friends|the kids|people) (?i:all )?(?i:calls?|called) (?i:him|her|them) ` + pNm)
	j.shortFor = regexp.MustCompile(pNm + ` (?i:is short for|short for) ` + pNm)
	// "Mum's carer is Radhika", "my dad's nurse, Olu,"
	j.chainThenName = regexp.MustCompile(`\b([\p{L}-]+)['’]s ([\p{L}-]+)(?:,| is| was|:)? ` + pTitle + pNm)
	j.profileRel = regexp.MustCompile(`^(?:` + pTitle + pNm + `(?: [A-Z][\p{L}'’-]+)?) is the user's ([\p{L} -]+?)\.?$`)
	// "The user's dentist is Dr Hale at Brookside."
	j.profileRole = regexp.MustCompile(`^The user's ([\p{L} -]+?) is ` + pTitle + pNm)
	j.marriedTo = regexp.MustCompile(`^The user is married to ` + pNm)
	return j
})

// bindingCands is how many of the memories holding a subject's names are
// read for joins: the short ones that name it rank first, and a join is a
// short statement ("My wife Nkechi starts on Monday").
const bindingCands = 12

// binding joins two person keys.
type binding struct{ a, b string }

// bindingsIn are the joins s states.
func bindingsIn(s string) []binding { return bindingsOf(s, toks(s)) }

// bindingsOf are the joins s, whose toks are t, states. The patterns run
// only on a text that holds what they need: "my" or "our" before a role
// word, or a nickname's cue; most texts hold neither.
func bindingsOf(s string, t []tok) []binding {
	low := strings.ToLower(s)                 // one lowercasing for the cheap checks before the regexps
	if h := hyphenPairRoles(s, low); h != s { // "our au pair Wilhelmina"
		s, low = h, strings.ToLower(h)
	}
	var out []binding
	add := func(a, b string) {
		a, b = personKey(a), personKey(b)
		if a != "" && b != "" && a != b {
			out = append(out, binding{a: a, b: b})
		}
	}
	j := joinRes()
	if myRole(t) {
		for _, m := range j.roleThenName.FindAllStringSubmatch(s, -1) {
			if roleWord(strings.ToLower(m[1])) == "" {
				continue // "my car Tesla"
			}
			if m[3] == "" || roleOf(strings.ToLower(m[2])) == "" {
				add(m[1], m[2]) // "my godmother, Auntie Pam": Auntie is how she is called, not who
			}
			if m[3] != "" { // "my trainer is Costas Petrakis": he is Petrakis too
				add(m[1], m[3])
			}
		}
		for _, m := range j.nameThenRole.FindAllStringSubmatch(s, -1) {
			if roleWord(strings.ToLower(m[2])) != "" {
				add(m[1], m[2])
			}
		}
	}
	out = append(out, chainBindings(s)...)
	if !nicknameCue(low) {
		return out
	}
	named := map[string]bool{} // nicknames callsHimAfter gave the clause's subject
	for _, re := range []*regexp.Regexp{j.nickname, j.goesBy, j.callsHimAfter, j.callsHim, j.shortFor} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if re == j.callsHimAfter {
				named[m[2]] = true
			} else if re == j.callsHim && named[m[len(m)-1]] {
				continue // "Siobhan sings in Galway, everyone calls her Shiv": not Galway's
			}
			first := ""
			if len(m) == 4 { // goesBy, callsHim: the first name, if any, then the name
				first, m = m[1], m[1:]
			}
			if titleWord(strings.ToLower(m[1])) || titleWord(strings.ToLower(m[2])) || roleOf(strings.ToLower(m[1])) != "" {
				continue
			}
			if isName(first) && roleOf(strings.ToLower(first)) == "" {
				add(first, m[2])
			}
			add(m[1], m[2])
		}
	}
	return out
}

// chainBindings are the joins of a role of a role and a name s states:
// "Mum's carer is Radhika" joins @mother>carer and radhika.
func chainBindings(s string) []binding {
	if !roleBeforePossessive(s) {
		return nil
	}
	var out []binding
	for _, m := range joinRes().chainThenName.FindAllStringSubmatch(s, -1) {
		owner, role, name := roleOf(strings.ToLower(m[1])), roleWord(strings.ToLower(m[2])), personKey(m[3])
		if owner != "" && role != "" && name != "" && !strings.HasPrefix(name, "@") {
			out = append(out, binding{a: "@" + owner + ">" + role, b: name})
		}
	}
	return out
}

// roleBeforePossessive reports whether a role word (roleOf) ends right
// before an 's of s, from any letter of the word's run: the owner every
// chainThenName match needs. Most texts' 's follow a name or a thing.
func roleBeforePossessive(s string) bool {
	for _, p := range []string{"'s ", "’s "} {
		for off := 0; ; {
			i := strings.Index(s[off:], p)
			if i < 0 {
				break
			}
			if roleEnds(s[:off+i]) {
				return true
			}
			off += i + len(p)
		}
	}
	return false
}

// roleEnds reports whether some tail of the letters and hyphens ending s
// ([\p{L}-]+, as chainThenName reads the owner) is a role word.
func roleEnds(s string) bool {
	for j := len(s); j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		if !unicode.IsLetter(r) && r != '-' {
			return false
		}
		j -= n
		if roleOf(strings.ToLower(s[j:])) != "" {
			return true
		}
	}
	return false
}

// myRole reports whether t holds "my" or "our" before a role word, one
// word between at most ("my new boss").
func myRole(t []tok) bool {
	for i, w := range t {
		if w.low != "my" && w.low != "our" {
			continue
		}
		for k := i + 1; k < len(t) && k <= i+2; k++ {
			if roleOfTok(t[k]) != "" {
				return true
			}
		}
	}
	return false
}

// nicknameCue reports whether low, a text lowercased, holds what one of the nickname shapes
// needs: the phrase closing a nickname (or its bracket), or the verb of
// goesBy, callsHim or shortFor. "friends" or "family" alone, common in
// chat, are no cue.
func nicknameCue(low string) bool {
	for _, cue := range []string{"to everyone", "to everybody", "to all", "to us", "to friends", "to mates",
		"to her ", "to his ", "to their ", "to our ", "to the ", "for short", ")", "goes by", "known as", "called", "call", "short for"} {
		if strings.Contains(low, cue) {
			return true
		}
	}
	return false
}

// personKey is the key of a name or a role word ("Wife": @partner); ""
// for a word that names nobody.
func personKey(w string) string {
	low := strings.ToLower(strings.TrimRight(w, "'’"))
	if r := roleOf(low); r != "" {
		return "@" + r
	}
	if r := roleWord(low); r != "" && !startsUpper(w) {
		return "@" + r // "osteopath"; "Bobby" is a name
	}
	if low == "" || titleWord(low) || calendarWord(low) || len([]rune(low)) < 2 {
		return ""
	}
	return low
}

// profileBindings are the joins the profile's lines about people state.
func profileBindings(lines []store.ProfileLine) []binding {
	var out []binding
	j := joinRes()
	for _, l := range lines {
		if m := j.profileRel.FindStringSubmatch(l.Text); m != nil {
			words := strings.Fields(m[2])
			if a, b := personKey(m[1]), personKey(words[len(words)-1]); a != "" && strings.HasPrefix(b, "@") {
				out = append(out, binding{a: a, b: b})
			}
		} else if m := j.profileRole.FindStringSubmatch(l.Text); m != nil {
			words := strings.Fields(m[1])
			if a, b := personKey(m[2]), personKey(words[len(words)-1]); a != "" && strings.HasPrefix(b, "@") {
				out = append(out, binding{a: a, b: b})
			}
		} else if m := j.marriedTo.FindStringSubmatch(l.Text); m != nil {
			out = append(out, binding{a: personKey(m[1]), b: "@partner"})
		}
	}
	return out
}

// bindSubject takes into the question's subject every key the profile or a
// memory joins to one of its keys (two steps: daughter, Alexandra, Sasha),
// and keeps the memories that joined them.
func (r *ranker) bindSubject(ctx context.Context) error {
	if !slices.ContainsFunc(r.memHits, func(h store.MemoryHit) bool { return startsUpper(firstWord(h.Role)) }) {
		// a chat between named speakers reads its voices instead (voices)
		narrowed := speakerAsked(r.intent.Rest, r.asked, r.people)
		r.subject = slices.DeleteFunc(r.subject, func(k string) bool { return slices.Contains(r.asked, k) && !slices.Contains(narrowed, k) })
		r.asked = narrowed
	}
	tentative := ""
	if len(r.subject) == 0 {
		if tentative = theRoleKey(r.toksOf(r.intent.Rest)); tentative == "" {
			return nil
		}
		r.subject = []string{tentative}
	}
	j := &joinsRead{said: map[int]store.MemoryHit{}}
	if r.t.ProfileTokens > 0 {
		lines, err := r.profileAt(ctx)
		if err != nil {
			return err
		}
		j.joins = profileBindings(lines)
	}
	have, searched, form := r.subjectKeys(tentative == "")
	asked := len(have) // the question's own keys: a tentative role bound to none of them is anyone's
	j.read(r, r.memHits)
	if err := r.searchJoins(ctx, j, have, searched); err != nil {
		return err
	}
	joinAll(j.joins, have)
	dropOtherSexes(have, form, r.subject, j.texts)
	if tentative != "" {
		if len(have) == asked {
			r.subject = nil // "the doctor" bound to no one: anyone's
			return nil
		}
		r.asked, r.self, r.own, r.alone = []string{tentative}, false, false, false
	}
	r.takeSubject(have, form, j)
	return nil
}

// joinsRead are the joins bindSubject has read: the profile's, then the
// memories'.
type joinsRead struct {
	joins []binding
	said  map[int]store.MemoryHit // each join a memory states → the memory
	texts []string                // what was read, for the forms' pronouns
}

// read adds the joins the memories hits state.
func (j *joinsRead) read(r *ranker, hits []store.MemoryHit) {
	for _, h := range hits {
		j.texts = append(j.texts, h.Text)
		for _, b := range r.bindingsOfText(h.Text) {
			j.said[len(j.joins)] = h
			j.joins = append(j.joins, b)
		}
	}
}

// subjectKeys are the keys bindSubject starts from: the subject's (have),
// whether each is searched already (searched), and its names' other forms
// (form, in have too). withKin takes in a kinship word's chains and a
// name's other forms, which a tentative role ("the doctor") goes without.
func (r *ranker) subjectKeys(withKin bool) (have, searched, form map[string]bool) {
	have, searched, form = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, k := range r.subject {
		have[k] = true
		// A name the question searched is in the hits of its words; a
		// speaker's name is known by their turns.
		searched[k] = !strings.HasPrefix(k, "@") && (slices.Contains(r.words, k) || slices.Contains(r.speakers, k))
		if withKin || isKinGroup(k) {
			for _, kin := range kinOf(k) { // "my father-in-law" is "my husband's dad, Frederick"; "the kids" my son and daughter
				have[kin] = true
			}
		}
		if !withKin {
			continue
		}
		for _, f := range otherForms(k) { // "Elizabeth" is "Betty"
			have[f], form[f] = true, true
		}
	}
	return have, searched, form
}

// searchJoins takes into have, in two steps, the keys joined to it, and
// reads into j the joins of the memories holding a key of it not yet
// searched.
func (r *ranker) searchJoins(ctx context.Context, j *joinsRead, have, searched map[string]bool) error {
	for step := 0; step < 2; step++ {
		joinAll(j.joins, have)
		chainThroughOwners(j.joins, have)
		var terms []string
		for k := range have {
			if !searched[k] {
				searched[k] = true
				terms = append(terms, searchWords(k)...)
			}
		}
		if len(terms) == 0 {
			return nil
		}
		o := r.base
		o.Terms, o.Limit = terms, bindingCands
		found, err := r.s.SearchMemories(ctx, o)
		if err != nil {
			return err
		}
		j.read(r, found)
	}
	return nil
}

// dropOtherSexes takes out of have each other form of a name (form) the
// texts tell of by a pronoun of another sex than a subject's: "Lou … pick
// her up" is not "Louis … he gets in".
func dropOtherSexes(have, form map[string]bool, subject, texts []string) {
	for f := range form {
		if slices.ContainsFunc(subject, func(k string) bool { return otherSexes(k, f, texts) }) {
			delete(have, f)
		}
	}
}

// takeSubject makes have the question's subject, with the memories that
// joined a key of it and the other words it goes by (aliasWords).
func (r *ranker) takeSubject(have, form map[string]bool, j *joinsRead) {
	for i, h := range j.said {
		if have[j.joins[i].a] {
			r.joinedBy = append(r.joinedBy, h)
		}
	}
	r.subject = r.subject[:0]
	for k := range have {
		r.subject = append(r.subject, k)
	}
	slices.Sort(r.subject)
	r.aliases = aliasWords(r.words, withoutWords(have, form))
}

// otherSexes reports whether the texts tell of the names a and b (two
// forms of a first name, lowercase) by pronouns of two sexes, each told of
// by one only: then they are two people.
func otherSexes(a, b string, texts []string) bool {
	sa, sb := sexOf(a, texts), sexOf(b, texts)
	return sa != 0 && sb != 0 && sa != sb
}

// sexOf is how the texts tell of the name n by the first personal pronoun
// after it, in each text naming it: 1 he, 2 she, 0 neither or both.
func sexOf(n string, texts []string) int {
	seen := 0
	for _, s := range texts {
		ws := text.Words(strings.ToLower(s))
		i := slices.Index(ws, n)
		if i < 0 {
			continue
		}
		for _, w := range ws[i+1:] {
			sex := 0
			switch w {
			case "he", "him", "his", "himself":
				sex = 1
			case "she", "her", "hers", "herself":
				sex = 2
			}
			if sex == 0 {
				continue
			}
			if seen != 0 && seen != sex {
				return 0
			}
			seen = sex
			break
		}
	}
	return seen
}

// chainThroughOwners adds to have, for each chain it holds ("@son>teacher"),
// the same chain owned by every name its owner is joined to: "my son's
// teacher" is "Rory's teacher" once "my son Rory" is said (itemKeys reads
// "@rory>teacher" there).
func chainThroughOwners(joins []binding, have map[string]bool) {
	for k := range have {
		owner, rest, ok := strings.Cut(k, ">")
		if !ok || !strings.HasPrefix(owner, "@") {
			continue
		}
		alias := map[string]bool{owner: true}
		joinAll(joins, alias)
		for o := range alias {
			if o != owner && !strings.Contains(o, ">") {
				have["@"+strings.TrimPrefix(o, "@")+">"+rest] = true
			}
		}
	}
}

// isKinGroup reports whether k is the key of a group of kin ("@children":
// the kids are my son and my daughter), whose members bind it whether or
// not "my" says so.
func isKinGroup(k string) bool {
	role, ok := strings.CutPrefix(k, "@")
	return ok && kinGroups()[role] != nil
}

// theRoleKey is the role chain a question asks of after "the" ("what did
// the babysitter ask for?"): asked of no one else, it is a subject when the
// profile or a memory binds the role to a name ("Our babysitter is
// Philomena"), the user's babysitter; bound to no one, "the doctor" may be
// anyone's and reads no one out. "" when the question names no role so.
func theRoleKey(t []tok) string {
	for i := 0; i+1 < len(t); i++ {
		if t[i].low != "the" || t[i+1].upper {
			continue
		}
		if k, _ := roleChain(t, i+1); k != "" {
			return k
		}
	}
	return ""
}

// joinAll adds to have every key joins bind to one it holds, until none is
// left to add.
func joinAll(joins []binding, have map[string]bool) {
	for grew := true; grew; {
		grew = false
		for _, b := range joins {
			if have[b.a] != have[b.b] {
				have[b.a], have[b.b], grew = true, true, true
			}
		}
	}
}

// keyWords are the words a key is written with: the name, or the role's
// words.
func keyWords(k string) []string {
	if strings.HasPrefix(k, "@") {
		i := strings.LastIndexByte(k, '>')
		return roleSynonyms(k[max(i+1, 1):])
	}
	return []string{k}
}

// withoutWords is have without the short forms of a name (form) that are
// also words ("Bill", "Will", "Pat"): a text holding "bill" does not name
// William, though "Bill says" does.
func withoutWords(have, form map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range have {
		if !form[k] || !isWord(k) {
			out[k] = true
		}
	}
	return out
}

// searchWords are the words the memories that may join k are found by:
// keyWords, and for an in-law its role and "law" ("brother-in-law" is
// indexed as brother, in, law), which name no alias of it; for a chain,
// its owner's role too ("@partner>father": "my husband Mark" names whose
// dad "Mark's dad" is).
func searchWords(k string) []string {
	if base, ok := strings.CutSuffix(k, "-in-law"); ok && !strings.Contains(k, ">") {
		return append(roleSynonyms(base[1:]), "law")
	}
	if owner, _, ok := strings.Cut(k, ">"); ok && strings.HasPrefix(owner, "@") {
		return append(roleSynonyms(owner[1:]), keyWords(k)...)
	}
	return keyWords(k)
}

// aliasWords maps each of the question's words that names its subject to
// the other words the subject goes by: an item holding one of them holds
// the word.
func aliasWords(words []string, subject map[string]bool) map[string][]string {
	var all []string
	for k := range subject {
		if !strings.Contains(k, ">") {
			all = append(all, keyWords(k)...)
		}
	}
	out := map[string][]string{}
	for _, w := range words {
		if k := personKey(w); subject[k] || lastOfAChain(k, subject) {
			out[w] = without(all, []string{w})
		}
	}
	return out
}

// lastOfAChain reports whether the role key k ("@teacher") ends a chain
// among the subject's keys ("@daughter>teacher"): "teacher" in "my
// daughter's teacher" names her, and Mrs Abara holds it.
func lastOfAChain(k string, subject map[string]bool) bool {
	if !strings.HasPrefix(k, "@") {
		return false
	}
	for s := range subject {
		if strings.HasSuffix(s, ">"+k[1:]) {
			return true
		}
	}
	return false
}
