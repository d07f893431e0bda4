package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Category lexicon: for each noun, the kinds of thing it is, climbing
// WordNet's hypernyms (and instance hypernyms: "France" → country) from its
// most frequent sense. A memory's words are indexed under these at capture,
// so that "which cities has John been to" finds "we drove to Chicago". The
// climb skips the top of the hierarchy (kinds too general to ask about:
// entity, object, whole, artifact), and keeps the words of compound kinds
// that are common ("musical instrument", "European country").

// minDepth is how far below the root a kind must be to be kept.
const minDepth = 4

// climb is how many levels are climbed.
const climb = 6

// occupationRoots are the kinds of person whose every kind is an
// occupation; a noun below one of them is marked with occupationMark,
// which internal/kinds reads as the words a question about someone's work
// uses ("what do I do for a living?", "what's my job?"), so that they find
// "I'm a structural engineer". WordNet files occupations under many
// roots, none of them "occupation".
var occupationRoots = strings.Fields(`worker professional businessperson engineer scientist administrator
	expert serviceman lawman healer artist writer performer`)

// occupationMark marks an occupation's line (internal/kinds: roleMark).
const occupationMark = "=role"

// glossPeople is how many of the people a thing's definition names are
// kept among its kinds ("nursery: a child's room for a baby": child).
const glossPeople = 2

// personFile is WordNet's lexicographer file of people (noun.person).
const personFile = "18"

// categories is what the category lexicon is made from.
type categories struct {
	nouns  map[string]synset
	common map[string]bool
	first  map[string]*sense
	// firstAny: every noun's senses to climb from, common or not: rare
	// names (places, breeds, instruments) are what the categories are for.
	firstAny map[string][]string
	depth    map[string]int
	occupied map[string]bool   // the offsets below an occupation root
	plurals  map[string]string // irregular plural → singular ("children": child)
	adjs     map[string]bool   // the words that are adjectives too ("German")
}

func runCategories(dict, out string, maxRel int) error {
	c, err := loadCategories(dict)
	if err != nil {
		return err
	}
	kinds := map[string][]string{}
	for w := range c.firstAny {
		// A word mostly used as a verb or adjective ("see", "back") has
		// no kinds.
		if !alphaWord(w) || c.first[w] != nil && c.first[w].pos != "n" {
			continue
		}
		rel := c.climb(w, maxRel)
		rel = appendNew(rel, c.people(w)...)
		if c.occupation(w) {
			rel = append(rel, occupationMark)
		}
		if len(rel) > 0 && !slices.Contains(rel, "integer") && !slices.Contains(rel, "digit") {
			// (Numerals name quantities, not things: "twelve hours" does
			// not answer "what is my passport number".)
			kinds[w] = rel
		}
	}
	// Irregular plurals ("children", "geese") take their singular's kinds.
	for pl, sg := range c.plurals {
		if alphaWord(pl) && kinds[pl] == nil && kinds[sg] != nil {
			kinds[pl] = kinds[sg]
		}
	}
	return writeLexicon(out, kinds)
}

func loadCategories(dict string) (*categories, error) {
	nouns, err := readData(filepath.Join(dict, "data.noun"))
	if err != nil {
		return nil, err
	}
	common, first, err := readIndexes(dict)
	if err != nil {
		return nil, err
	}
	firstAny, err := firstSenses(filepath.Join(dict, "index.noun"))
	if err != nil {
		return nil, err
	}
	exc, err := os.ReadFile(filepath.Join(dict, "noun.exc"))
	if err != nil {
		return nil, err
	}
	adjs, err := firstSenses(filepath.Join(dict, "index.adj"))
	if err != nil {
		return nil, err
	}
	c := &categories{nouns: nouns, common: common, first: first, firstAny: firstAny, depth: map[string]int{},
		plurals: map[string]string{}, adjs: map[string]bool{}}
	for a := range adjs {
		c.adjs[a] = true
	}
	for line := range strings.SplitSeq(string(exc), "\n") {
		if fs := strings.Fields(line); len(fs) == 2 {
			c.plurals[fs[0]] = fs[1]
		}
	}
	c.occupied = c.below(occupationRoots)
	return c, nil
}

// depthOf is how far below the root of the hierarchy off is, by its
// shortest path.
func (c *categories) depthOf(off string, seen map[string]bool) int {
	if d, ok := c.depth[off]; ok {
		return d
	}
	if seen[off] {
		return 0
	}
	seen[off] = true
	best := -1
	for _, p := range c.nouns[off].ptrs {
		if (p.sym == "@" || p.sym == "@i") && p.pos == "n" {
			if d := c.depthOf(p.offset, seen) + 1; best < 0 || d < best {
				best = d
			}
		}
	}
	best = max(best, 0)
	c.depth[off] = best
	return best
}

// climb is w's kinds: the words of its senses' hypernyms, climb levels
// up, skipping those too near the root or too general.
func (c *categories) climb(w string, maxRel int) []string {
	seen := map[string]bool{w: true}
	var rel []string
	level := c.firstAny[w]
	visited := map[string]bool{}
	for range climb {
		var next []string
		for _, off := range level {
			for _, p := range c.nouns[off].ptrs {
				if (p.sym != "@" && p.sym != "@i") || p.pos != "n" || visited[p.offset] {
					continue
				}
				visited[p.offset] = true
				next = append(next, p.offset)
				if c.depthOf(p.offset, map[string]bool{}) < minDepth {
					continue
				}
				for _, lemma := range c.nouns[p.offset].rawWords {
					for _, part := range strings.Split(strings.ToLower(lemma), "_") {
						if len(rel) < maxRel && alphaWord(part) && c.common[part] && !seen[part] && !tooGeneral[part] {
							seen[part] = true
							rel = append(rel, part)
						}
					}
				}
			}
		}
		level = next
	}
	return rel
}

// below is the offsets of the first noun senses of roots and of every noun
// under them.
func (c *categories) below(roots []string) map[string]bool {
	hyponyms := map[string][]string{}
	for off, s := range c.nouns {
		for _, p := range s.ptrs {
			if (p.sym == "@" || p.sym == "@i") && p.pos == "n" {
				hyponyms[p.offset] = append(hyponyms[p.offset], off)
			}
		}
	}
	out := map[string]bool{}
	var walk func(off string)
	walk = func(off string) {
		if out[off] {
			return
		}
		out[off] = true
		for _, h := range hyponyms[off] {
			walk(h)
		}
	}
	for _, r := range roots {
		if senses := c.firstAny[r]; len(senses) > 0 {
			walk(senses[0])
		}
	}
	return out
}

// occupation reports whether w's first sense is a person below an
// occupation root.
func (c *categories) occupation(w string) bool {
	senses := c.firstAny[w]
	return len(senses) > 0 && c.occupied[senses[0]] && c.nouns[senses[0]].lexfile == personFile
}

// people are the people a thing's definition names ("kindergarten: a
// preschool for children": child, kid), each with its synonym: who a
// place or thing is for is what it is asked by. Only acts, artifacts,
// groups and places are read (forPeople).
func (c *categories) people(w string) []string {
	senses := c.firstAny[w]
	if len(senses) == 0 || !forPeople[c.nouns[senses[0]].lexfile] {
		return nil
	}
	var out []string
	for _, t := range c.glossNouns(c.nouns[senses[0]].gloss) {
		s := c.first[t]
		if t == w || vagueNouns[t] || c.adjs[t] || s == nil || s.pos != "n" || !c.plainPerson(s.offset) {
			continue
		}
		out = appendNew(out, t)
		for _, syn := range c.nouns[s.offset].words {
			// The synonym whose own first sense this is ("kid" for child).
			if syn != t && alphaWord(syn) && len(c.firstAny[syn]) > 0 && c.firstAny[syn][0] == s.offset {
				out = appendNew(out, syn)
				break
			}
		}
		if len(out) >= 2*glossPeople {
			break
		}
	}
	return out
}

// forPeople are the lexicographer files of things that are for someone:
// acts, artifacts, groups and places (noun.act, noun.artifact,
// noun.group, noun.location); a plant's or a substance's definition names
// people only by the way ("a white metal", "American marigold").
var forPeople = map[string]bool{"04": true, "06": true, "14": true, "15": true}

// plainPerson reports whether the synset at off is a person and not one
// WordNet marks by usage (an ethnic slur, an obscenity).
func (c *categories) plainPerson(off string) bool {
	s := c.nouns[off]
	if s.lexfile != personFile {
		return false
	}
	for _, p := range s.ptrs {
		if p.sym == ";u" {
			return false
		}
	}
	return true
}

// compoundRE matches a hyphenated compound.
var compoundRE = regexp.MustCompile(`[A-Za-z]+(-[A-Za-z]+)+`)

// glossNouns is the words of a definition's first clause, before its
// examples and without its parentheses or compounds, plurals made singular.
func (c *categories) glossNouns(g string) []string {
	g = compoundRE.ReplaceAllString(firstClause(g), "") // "man-made" names no man
	var out []string
	for _, t := range tokenRE.FindAllString(strings.ToLower(g), -1) {
		out = append(out, c.singular(t))
	}
	return out
}

// singular is the noun w is a plural of, or w.
func (c *categories) singular(w string) string {
	if s, ok := c.plurals[w]; ok {
		return s
	}
	if f := c.first[w]; f != nil && f.pos == "n" {
		return w
	}
	for _, r := range [][2]string{{"ies", "y"}, {"es", ""}, {"s", ""}} {
		if s, ok := strings.CutSuffix(w, r[0]); ok && c.first[s+r[1]] != nil {
			return s + r[1]
		}
	}
	return w
}

// appendNew appends the words of xs that rel does not hold yet.
func appendNew(rel []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(rel, x) {
			rel = append(rel, x)
		}
	}
	return rel
}

// tooGeneral are kinds nobody asks about by name, or that name a
// taxonomy's ranks rather than kinds of thing ("family Felidae").
var tooGeneral = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`act action artefact artifact being body category change class condition deed
		division family form genus group instrumentality instrumentation kingdom life living material matter
		object order organism part physical process property relation state status structure stuff
		subdivision system taxon thing unit whole`) {
		tooGeneral[w] = true
	}
}

// firstSenses maps every noun in the index to the senses its kinds are
// taken from: the first (most frequent) one when the word's senses are
// ranked by use, else its first three (WordNet's order is then arbitrary:
// "turtle" is a sweater before it is a reptile).
func firstSenses(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == ' ' {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			continue
		}
		n := atoi(fs[2])
		offsets := fs[len(fs)-n:]
		if tagged := atoi(fs[len(fs)-n-1]); tagged > 0 {
			offsets = offsets[:1]
		} else if len(offsets) > 3 {
			offsets = offsets[:3]
		}
		out[fs[0]] = offsets
	}
	return out, nil
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
