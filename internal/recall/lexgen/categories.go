package main

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
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

func runCategories(dict, out string, maxRel int) error {
	nouns, err := readData(filepath.Join(dict, "data.noun"))
	if err != nil {
		return err
	}
	// The part of speech each word is most used as: a word mostly used as
	// a verb or adjective ("see", "back") has no kinds.
	common, first, err := readIndexes(dict)
	if err != nil {
		return err
	}
	// Every noun's senses to climb from, common or not: rare names (places,
	// breeds, instruments) are what the categories are for.
	firstAny, err := firstSenses(filepath.Join(dict, "index.noun"))
	if err != nil {
		return err
	}
	depth := map[string]int{}
	var depthOf func(off string, seen map[string]bool) int
	depthOf = func(off string, seen map[string]bool) int {
		if d, ok := depth[off]; ok {
			return d
		}
		if seen[off] {
			return 0
		}
		seen[off] = true
		best := -1
		for _, p := range nouns[off].ptrs {
			if (p.sym == "@" || p.sym == "@i") && p.pos == "n" {
				if d := depthOf(p.offset, seen) + 1; best < 0 || d < best {
					best = d
				}
			}
		}
		if best < 0 {
			best = 0
		}
		depth[off] = best
		return best
	}
	alpha := func(w string) bool {
		if len(w) < 3 {
			return false
		}
		for _, r := range w {
			if r < 'a' || r > 'z' {
				return false
			}
		}
		return true
	}
	words := make([]string, 0, len(firstAny))
	for w := range firstAny {
		words = append(words, w)
	}
	sort.Strings(words)
	kinds := map[string][]string{}
	for _, w := range words {
		if !alpha(w) || first[w] != nil && first[w].pos != "n" {
			continue
		}
		seen := map[string]bool{w: true}
		var rel []string
		level := firstAny[w]
		visited := map[string]bool{}
		for range climb {
			var next []string
			for _, off := range level {
				for _, p := range nouns[off].ptrs {
					if (p.sym != "@" && p.sym != "@i") || p.pos != "n" || visited[p.offset] {
						continue
					}
					visited[p.offset] = true
					next = append(next, p.offset)
					if depthOf(p.offset, map[string]bool{}) < minDepth {
						continue
					}
					for _, lemma := range nouns[p.offset].rawWords {
						for _, part := range strings.Split(strings.ToLower(lemma), "_") {
							if len(rel) < maxRel && alpha(part) && common[part] && !seen[part] && !tooGeneral[part] {
								seen[part] = true
								rel = append(rel, part)
							}
						}
					}
				}
			}
			level = next
		}
		if len(rel) > 0 && !slices.Contains(rel, "integer") && !slices.Contains(rel, "digit") {
			// (Numerals name quantities, not things: "twelve hours" does
			// not answer "what is my passport number".)
			kinds[w] = rel
		}
	}
	// Irregular plurals ("children", "geese") take their singular's kinds.
	exc, err := os.ReadFile(filepath.Join(dict, "noun.exc"))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(exc), "\n") {
		if fs := strings.Fields(line); len(fs) == 2 && alpha(fs[0]) && kinds[fs[0]] == nil && kinds[fs[1]] != nil {
			kinds[fs[0]] = kinds[fs[1]]
		}
	}
	words = words[:0]
	for w := range kinds {
		words = append(words, w)
	}
	sort.Strings(words)
	var lines []string
	for _, w := range words {
		lines = append(lines, w+" "+strings.Join(kinds[w], " "))
	}
	return os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
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
