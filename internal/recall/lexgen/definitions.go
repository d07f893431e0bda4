package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Definitions lexicon: for each common noun, the nouns its definition
// names (WordNet's gloss of its most frequent sense: "steakhouse: a
// restaurant that specializes in steaks" → restaurant, steak), each
// followed by its first two kinds from the category lexicon (steak → cut,
// meat). Recall uses it for the question's words that nothing stored
// holds: "is a steakhouse a good choice for dinner?" reaches "I haven't
// eaten meat in ten years".

// definitionNouns is how many of a definition's nouns are kept.
const definitionNouns = 3

// definitionKinds is how many kinds of each are added.
const definitionKinds = 2

// vagueNouns are nouns a definition uses to say how, not what ("someone
// who…", "the act of…", "a kind of…"); they name nothing to look for.
var vagueNouns = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`someone something somebody person people thing things part act kind type
		form way one use state quality group member time place area instance number amount condition
		activity event object entity being individual matter body other others any many much various
		especially usually often etc`) {
		vagueNouns[w] = true
	}
}

var (
	parenRE = regexp.MustCompile(`\(.*?\)`)
	tokenRE = regexp.MustCompile(`[a-z]+`)
)

// firstClause is a definition's first clause, before its examples and
// without its parentheses.
func firstClause(g string) string {
	g, _, _ = strings.Cut(g, ";")
	g, _, _ = strings.Cut(g, `"`)
	return parenRE.ReplaceAllString(g, "")
}

func runDefinitions(dict, kindsPath, out string, maxRel int) error {
	nouns, err := readData(filepath.Join(dict, "data.noun"))
	if err != nil {
		return err
	}
	_, first, err := readIndexes(dict)
	if err != nil {
		return err
	}
	kb, err := os.ReadFile(kindsPath)
	if err != nil {
		return err
	}
	kinds := map[string][]string{}
	for _, line := range strings.Split(string(kb), "\n") {
		if fs := strings.Fields(line); len(fs) > 1 {
			kinds[fs[0]] = fs[1:]
		}
	}
	eb, err := os.ReadFile(filepath.Join(dict, "noun.exc"))
	if err != nil {
		return err
	}
	exc := map[string]string{}
	for _, line := range strings.Split(string(eb), "\n") {
		if fs := strings.Fields(line); len(fs) >= 2 {
			exc[fs[0]] = fs[1]
		}
	}
	singular := func(w string) string {
		if s, ok := exc[w]; ok {
			return s
		}
		if kinds[w] != nil {
			return w
		}
		for _, r := range [][2]string{{"ies", "y"}, {"es", ""}, {"s", ""}} {
			if s := strings.TrimSuffix(w, r[0]); s != w && kinds[s+r[1]] != nil {
				return s + r[1]
			}
		}
		return w
	}
	words := make([]string, 0, len(first))
	for w, s := range first {
		if s.pos == "n" && alphaWord(w) {
			words = append(words, w)
		}
	}
	sort.Strings(words)
	var lines []string
	for _, w := range words {
		g := firstClause(nouns[first[w].offset].gloss)
		var defs []string
		for _, t := range tokenRE.FindAllString(strings.ToLower(g), -1) {
			t = singular(t)
			if t == w || vagueNouns[t] || len(t) < 3 || slices.Contains(defs, t) {
				continue
			}
			if s := first[t]; s == nil || s.pos != "n" || kinds[t] == nil {
				continue
			}
			defs = append(defs, t)
			if len(defs) == min(maxRel, definitionNouns) {
				break
			}
		}
		if len(defs) == 0 {
			continue
		}
		rel := slices.Clone(defs)
		for _, d := range defs {
			k := slices.DeleteFunc(slices.Clone(kinds[d]), func(k string) bool { return k == occupationMark })
			rel = append(rel, k[:min(definitionKinds, len(k))]...)
		}
		lines = append(lines, w+" "+strings.Join(rel, " "))
	}
	return os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
