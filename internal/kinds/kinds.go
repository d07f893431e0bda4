// Package kinds names the kinds of thing a text's words are: "Chicago" is a
// city, "karate" a martial art, "lasagna" a dish and a food. Recall indexes
// each memory under its kinds, so that a question asked by kind ("which
// cities has John been to?", "what martial arts has he done?") finds the
// memories that name instances ("we drove to Chicago").
//
// The lexicon is derived from WordNet 3.0 by recall's lexgen (-categories):
// internal/wordnet's Kinds list. Two short hand-written lists
// add what WordNet lacks: chat words (informal.txt) and world knowledge
// such as car makes and dog breeds (world.txt). A change to any of them
// that should reach stored memories needs a store migration that indexes
// every memory afresh.
package kinds

import (
	_ "embed"
	"hash/maphash"
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

// informalText is the chat words WordNet lacks, each with the words it
// stands for ("fam family", "gf girlfriend"), written by hand: a memory
// that says "fam" is indexed under family and family's kinds.
//
//go:embed informal.txt
var informalText string

// worldText is world knowledge WordNet lacks, each word with the kinds it
// is ("skoda car", "cockapoo dog", "gp doctor"), written by hand: added to
// whatever WordNet says the word is ("Tesla" stays an inventor too), with
// the listed kinds' own kinds. Only unambiguous names are listed: "Golf"
// and "Polo" are games before they are cars.
//
//go:embed world.txt
var worldText string

var (
	once        sync.Once
	listedKinds map[string]string // informal.txt's and world.txt's words → their kinds
	listedAs    map[string]string // world.txt's words → their kinds as written ("octopus": "energy supplier")
	titleKinds  map[string]string // world.txt's titles (titleMark) → their kinds
	drugKinds   string            // a drugShaped word's kinds: a medication's, as world.txt lists one

	breadthOnce sync.Once
	breadth     map[string]int // every kind named: how many words are of it
)

// load reads the hand-written lists once, on first use; every caller
// shares them.
func load() {
	once.Do(func() {
		listedKinds, listedAs, titleKinds = map[string]string{}, map[string]string{}, map[string]string{}
		addListed(informalText, false)
		addListed(worldText, true)
		drugKinds = "medication " + lookupText("medication")
	})
}

// wordKinds is a word's kinds: its listed ones, space-separated, or else
// WordNet's.
type wordKinds struct {
	listed  string
	wordnet wordnet.Words
}

// all yields the kinds. It is one function over both forms, not one of two
// iterators: then it inlines into Of, whose loop body stays on the stack
// (choosing an iterator at run time put it and the iterator on the heap,
// 41 allocations an Of instead of 11).
func (k wordKinds) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		for kind := range strings.FieldsSeq(k.listed) {
			if !yield(kind) {
				return
			}
		}
		for kind := range k.wordnet.All() {
			if !yield(kind) {
				return
			}
		}
	}
}

// lookup returns w's kinds.
func lookup(w string) (wordKinds, bool) {
	if k, ok := listedKinds[w]; ok {
		return wordKinds{listed: k}, true
	}
	ws, ok := wordnet.Kinds.Lookup(w)
	if !ok && drugShaped(w) {
		return wordKinds{listed: drugKinds}, true
	}
	return wordKinds{wordnet: ws}, ok
}

// drugStems are the endings of the international names of common
// medicines ("atorvastatin", "lansoprazole", "bisoprolol", "ramipril";
// WHO's INN stems also for methotrexate, adalimumab, imatinib, aciclovir,
// loratadine, cetirizine, lidocaine, salmeterol, budesonide, clopidogrel,
// dabigatran, bezafibrate, pioglitazone, cisplatin, doxorubicin, tiotropium):
// a word neither WordNet nor world.txt knows that ends so is a medicine.
var drugStems = strings.Fields(`statin prazole olol pril sartan mycin cillin oxetine azepam azolam triptan tidine
	dronate floxacin cycline dipine semide thiazide gliptin gliflozin xaban parin setron lukast
	codone asone olone triptyline pramine faxine gabalin piprazole apine azole
	trexate mab tinib vir tadine izine caine terol sonide grel gatran fibrate glitazone platin rubicin tropium`)

// drugShaped reports whether w, lowercase, ends in a drug stem after at
// least three letters of its own.
func drugShaped(w string) bool {
	for _, st := range drugStems {
		if len(w) >= len(st)+3 && strings.HasSuffix(w, st) {
			return true
		}
	}
	return false
}

// lookupText returns w's kinds, space-separated, or "".
func lookupText(w string) string {
	k, _ := lookup(w)
	return strings.Join(slices.Collect(k.all()), " ")
}

// addListed adds a hand-written list's words to the lexicon, each under
// its listed kinds and their kinds; keep (world.txt) adds them to the
// word's WordNet kinds instead of replacing those, and keeps the kinds as
// written (ListedAs).
func addListed(list string, keep bool) {
	for line := range strings.SplitSeq(list, "\n") {
		w, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if keep {
			listedAs[w] = rest
		}
		if kinds, ok := strings.CutPrefix(rest, titleMark+" "); ok {
			first, _, _ := strings.Cut(kinds, " ")
			titleKinds[w] = kinds + " " + lookupText(first)
			continue
		}
		all := rest
		for x := range strings.FieldsSeq(rest) {
			if k := lookupText(x); k != "" {
				all += " " + k
			}
		}
		if k := lookupText(w); keep && k != "" {
			all = k + " " + all
		}
		listedKinds[w] = all
	}
}

// countBreadth counts, once, how many words are of each kind: a pass over
// the whole lexicon, needed only by Named and Breadth.
func countBreadth() map[string]int {
	load()
	breadthOnce.Do(func() {
		breadth = map[string]int{}
		for _, ws := range wordnet.Kinds.All() {
			for k := range ws.All() {
				breadth[k]++
			}
		}
		for _, r := range roleKinds {
			breadth[r] += breadth[roleMark]
		}
		delete(breadth, roleMark)
		for w, vs := range variants().others {
			breadth[w] += len(vs)
		}
		for _, list := range []string{informalText, worldText} {
			for line := range strings.SplitSeq(list, "\n") {
				_, rest, _ := strings.Cut(line, " ")
				for x := range strings.FieldsSeq(rest) {
					if x != roleMark && x != titleMark {
						breadth[x]++
					}
				}
			}
		}
	})
	return breadth
}

// titleMark opens the kinds of a title world.txt lists ("guardian =the
// newspaper paper"): a paper or magazine named by a word that is also an
// everyday one is of its kinds only as "the" and the capitalised word
// ("we get the Guardian delivered"; not "her legal guardian", "hard times").
const titleMark = "=the"

// roleMark is what lexgen writes among an occupation's kinds (its
// occupationMark); it stands for roleKinds, the words a question about
// someone's work uses. A word is indexed under them only when the text
// says someone is one ("I'm a structural engineer", "works as an
// accountant"), not when it names one met ("saw the nurse", "the plumber
// is coming").
const roleMark = "=role"

var roleKinds = strings.Fields("occupation job profession worker living")

// roleReach is how many words after "a", "an" or "as" an occupation may
// come ("a primary school teacher").
const roleReach = 3

// Of returns the kinds of the nouns in s, each once, space-separated, in
// the order first met; "" when it names none.
func Of(s string) string {
	load()
	var b strings.Builder
	var seenWords, seenKinds set
	var lower []byte
	sinceA := roleReach + 1 // words since "a", "an" or "as"
	afterThe := false
	for w := range words(s) {
		lower = appendLower(lower[:0], w)
		sinceA++
		first, _ := utf8.DecodeRuneInString(w)
		titled := afterThe && unicode.IsUpper(first)
		afterThe = string(lower) == "the"
		switch string(lower) {
		case "a", "an", "as":
			sinceA = 0
			continue
		case "the", "my", "our", "your", "his", "her", "their", "this", "that":
			sinceA = roleReach + 1
		}
		key := w // the word lowercased, as a string that outlives lower
		if string(lower) != w {
			key = string(lower)
		}
		if len(w) < 2 || len(w) == 2 && !isListed(key) || text.IsStopword(key) {
			continue // "gf" and "gp" are words; "it" and "us" are not nouns
		}
		if t := titleKinds[key]; titled && t != "" && seenWords.add(key) {
			for kind := range strings.FieldsSeq(t) {
				addKind(&b, &seenKinds, kind) // "the Guardian": a newspaper, whatever else the word is
			}
			continue
		}
		k, ok := lookup(key)
		if !ok {
			k, ok = lookup(singular(key))
		}
		if !ok || !seenWords.add(key) {
			continue
		}
		for _, v := range Variants(key) {
			addKind(&b, &seenKinds, v) // "tv" also as telly: a question in either word finds it
		}
		for kind := range k.all() {
			switch {
			case kind != roleMark:
				addKind(&b, &seenKinds, kind)
				for _, v := range Variants(kind) {
					addKind(&b, &seenKinds, v) // a Bonneville is a motorcycle: a motorbike
				}
			case sinceA <= roleReach:
				for _, r := range roleKinds {
					addKind(&b, &seenKinds, r)
				}
			}
		}
	}
	if saysPay(s) {
		addKind(&b, &seenKinds, "salary")
	}
	return b.String()
}

// payOn is an amount someone is on, their pay: "I'm on 38k", "she's on
// £12 an hour", "we're still on 52 grand"; not "spent £40 on the shop".
var payOn = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:['’]m|['’]s|['’]re|\b(?:am|is|are|was|were|be|been))\s+(?:(?:now|still|only|just)\s+)?on\s+` +
		`(?:(?:about|around|roughly|nearly|almost|over|under)\s+)?[£$€]?\d[\d,.]*\s?(?:k\b|grand\b|(?:quid|pounds|dollars|euros)?\s*(?:a|an|per)\s+(?:year|hour|week|month|annum)\b)`)
})

// saysPay reports whether s tells an amount someone is paid by "on"; the
// cheap test first, since Of reads every memory.
func saysPay(s string) bool {
	return strings.Contains(s, "on ") && strings.ContainsAny(s, "0123456789") && payOn().MatchString(s)
}

// addKind writes kind to b unless seen holds it.
func addKind(b *strings.Builder, seen *set, kind string) {
	if !seen.add(kind) {
		return
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(kind)
}

// set is the words Of has met, in a table on the caller's stack (most
// texts name fewer than setSpill), spilling into a map beyond.
type set struct {
	slots [setSlots]string
	n     int
	more  map[string]bool
}

const setSlots, setSpill = 256, 192

var setSeed = maphash.MakeSeed()

// add adds w, reporting whether it was new.
func (s *set) add(w string) bool {
	if s.more != nil {
		if s.more[w] {
			return false
		}
		s.more[w] = true
		return true
	}
	for i := maphash.String(setSeed, w) % setSlots; ; i = (i + 1) % setSlots {
		switch s.slots[i] {
		case w:
			return false
		case "":
			if s.n == setSpill {
				s.spill()
				s.more[w] = true
				return true
			}
			s.slots[i] = w
			s.n++
			return true
		}
	}
}

// spill moves the table into a map.
func (s *set) spill() {
	s.more = make(map[string]bool, 2*setSpill)
	for _, w := range s.slots {
		if w != "" {
			s.more[w] = true
		}
	}
}

// Listed reports whether w, lowercase, is a word of the hand-written
// lists ("tesla": a car, "cockapoo": a dog): a thing, though it may be
// written as a name.
func Listed(w string) bool {
	load()
	return isListed(w)
}

// ListedAs is what world.txt says w, lowercase, is, as written ("ovo":
// "energy supplier", "skoda": "car"); "" when it lists no w. Two words
// listed alike are rivals: one switched to replaces the other.
func ListedAs(w string) string {
	load()
	return listedAs[w]
}

// isListed reports whether w is one of informal.txt's or world.txt's words.
func isListed(w string) bool {
	_, ok := listedKinds[w]
	return ok
}

// words yields the runs of letters in s.
func words(s string) func(func(string) bool) {
	return func(yield func(string) bool) {
		start := -1
		for i, r := range s {
			if unicode.IsLetter(r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				if !yield(s[start:i]) {
					return
				}
				start = -1
			}
		}
		if start >= 0 {
			yield(s[start:])
		}
	}
}

func appendLower(dst []byte, w string) []byte {
	for _, r := range w {
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	return dst
}

// Named returns the words that name a kind ("cities", "martial", "art"):
// the ones worth looking for among the memories' kinds.
func Named(words []string) []string {
	breadth := countBreadth()
	var out []string
	for _, w := range words {
		w = strings.ToLower(w)
		if breadth[w] > 0 || breadth[singular(w)] > 0 {
			out = append(out, w)
		}
	}
	return out
}

// Breadth is how many of the lexicon's words are of the kind w (0: w
// names no kind): "kid" a hundred or so, "activity" thousands.
func Breadth(w string) int {
	breadth := countBreadth()
	w = strings.ToLower(w)
	return max(breadth[w], breadth[singular(w)])
}

// singular undoes the regular English plural ("cities", "boxes",
// "turtles"); irregular ones are in the lexicon.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"),
		strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// placeKinds are the kinds that make a word a place: a city, a country,
// an island, a county. "region" is not one (WordNet files Maria under it).
var placeKinds = []string{"city", "capital", "country", "island", "county", "province"}

// Place reports whether w, lowercase, is first of all a place: one of its
// first two kinds is a place kind ("marrakech": city; "florida": american
// province), not a further one ("jordan": river, asian, ... country).
func Place(w string) bool {
	load()
	k, ok := lookup(w)
	if !ok {
		return false
	}
	n := 0
	for kind := range k.all() {
		if slices.Contains(placeKinds, kind) {
			return true
		}
		if n++; n == 2 {
			break
		}
	}
	return false
}

// Holds reports whether s names a thing of the kind word names, its plural
// too: "I ride my Brompton to work" a bike, "our Skoda Fabia" a car. What
// a correction naming a thing by its kind ends ("sold my bike").
func Holds(s, kind string) bool {
	kind = strings.ToLower(kind)
	for k := range strings.FieldsSeq(Of(s)) {
		if k == kind || k == singular(kind) {
			return true
		}
	}
	return false
}

// Variants. informal.txt's word and the word it stands for, the first it
// lists ("telly television", "mum mother", "mobile phone"), are one thing
// said two ways: Of indexes a text under the other words of its word's
// group, so a question in either word finds it, and Variant gives the one
// name a correction and the claim it corrects are compared by.
type variantGroups struct {
	head   map[string]string   // a listed word → its group's head, the word that stands for no other
	others map[string][]string // each word of a group → the group's other words
}

var variants = sync.OnceValue(func() variantGroups {
	v := variantGroups{head: map[string]string{}, others: map[string][]string{}}
	for line := range strings.SplitSeq(informalText, "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			v.head[f[0]] = f[1]
		}
	}
	for w := range v.head {
		h := w
		for range len(v.head) { // "bikes bicycle": a head may itself be listed
			next, ok := v.head[h]
			if !ok {
				break
			}
			h = next
		}
		v.head[w] = h
	}
	groups := map[string][]string{}
	for w, h := range v.head {
		groups[h] = append(groups[h], w)
	}
	for h, ws := range groups {
		slices.Sort(ws)
		all := append([]string{h}, ws...)
		for _, w := range all {
			v.others[w] = slices.DeleteFunc(slices.Clone(all), func(x string) bool { return x == w })
		}
	}
	return v
})

// Variants is the other everyday words for the thing w, a lowercase word,
// names ("mobile": phone, mobiles), nil for none; the caller must not
// change them.
func Variants(w string) []string { return variants().others[w] }

// Variant is the one name of the thing w, a lowercase word, names:
// "telly" and "tv" are television, "mum" mother; a word of no group is
// itself.
func Variant(w string) string {
	if h, ok := variants().head[w]; ok {
		return h
	}
	return w
}
