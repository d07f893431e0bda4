// Command lexgen writes recall's concept lexicon from WordNet 3.0's
// database files (Debian: apt install wordnet-base; /usr/share/wordnet):
//
//	go run ./internal/recall/lexgen -dict /usr/share/wordnet -out internal/wordnet/lexicon.txt
//
// For each common single word (one with sense-tagged uses in WordNet's
// corpus), its most frequent sense gives the related words: the other
// words of that synset, of its direct hypernyms ("penicillin" → antibiotic)
// and, for adjectives, its derivationally related nouns ("allergic" →
// allergy), at most -max of them; then, beyond those, at most -derived of
// the words derived from the word itself in that sense, whatever their
// part of speech ("drive" → driver, "marry" → marriage, "teach" →
// teacher, "allergy" → allergic). Irregular inflections ("children",
// "taught") take their base form's line. Only common single words are
// kept. Lines are "word related related ...", sorted. The licence notice
// is in internal/wordnet/LEXICON-LICENSE. With -pack, it packs the three
// lists into the form the binary embeds (internal/wordnet's words.bin).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

type synset struct {
	lexfile  string // the lexicographer file's number: "18" is noun.person
	words    []string
	rawWords []string // every lemma, compounds included ("musical_instrument")
	gloss    string   // the definition and examples
	ptrs     []ptr
}

type sense struct {
	pos, offset string
	tagged      int
}

type ptr struct {
	sym    string
	offset string
	pos    string
	// src and dst are the lemmas a lexical pointer joins, numbered from 1
	// in their synsets; 0 for a pointer between whole synsets.
	src, dst int
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet database directory")
	out := flag.String("out", "lexicon.txt", "output file")
	maxRel := flag.Int("max", 6, "related words per entry")
	derived := flag.Int("derived", 0, "derived words per entry beyond -max (the concept lexicon only)")
	categories := flag.Bool("categories", false, "write the category lexicon (a noun's broader kinds) instead")
	definitions := flag.String("definitions", "", "write the definitions lexicon instead, taking kinds from this category lexicon")
	pack := flag.Bool("pack", false, "pack the lists named as arguments (kinds, definitions, concepts) into -out instead: the form the binary embeds")
	flag.Parse()
	if *pack {
		if err := runPack(*out, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "lexgen:", err)
			os.Exit(1)
		}
		return
	}
	run := func(dict, out string, maxRel int) error { return runConcepts(dict, out, maxRel, *derived) }
	switch {
	case *categories:
		run = runCategories
	case *definitions != "":
		run = func(dict, out string, maxRel int) error { return runDefinitions(dict, *definitions, out, maxRel) }
	}
	if err := run(*dict, *out, *maxRel); err != nil {
		fmt.Fprintln(os.Stderr, "lexgen:", err)
		os.Exit(1)
	}
}

var posFiles = map[string]string{"n": "noun", "v": "verb", "a": "adj", "r": "adv"}

// wordNet is the parts of WordNet the concept lexicon is made from.
type wordNet struct {
	data   map[string]map[string]synset // pos → offset → synset
	common map[string]bool              // words with sense-tagged uses
	first  map[string]*sense            // each word's most used part of speech's first sense
}

func runConcepts(dict, out string, maxRel, derived int) error {
	wn := wordNet{data: map[string]map[string]synset{}}
	for _, pos := range []string{"n", "v", "a", "r"} {
		d, err := readData(filepath.Join(dict, "data."+posFiles[pos]))
		if err != nil {
			return err
		}
		wn.data[pos] = d
	}
	var err error
	if wn.common, wn.first, err = readIndexes(dict); err != nil {
		return err
	}
	lines := map[string][]string{}
	for w := range wn.first {
		if rel := wn.concepts(w, maxRel, derived); len(rel) > 0 {
			lines[w] = rel
		}
	}
	if err := addInflections(dict, lines); err != nil {
		return err
	}
	return writeLexicon(out, lines)
}

// ok reports whether w is a common single word of at least three letters.
func (wn wordNet) ok(w string) bool { return wn.common[w] && alphaWord(w) }

// alphaWord reports whether w is a single word of at least three letters.
func alphaWord(w string) bool {
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

// concepts are w's related words: its first sense's synonyms and direct
// hypernyms (and an adjective's related nouns), at most maxRel, then at
// most derived words derived from w itself.
func (wn wordNet) concepts(w string, maxRel, derived int) []string {
	if !wn.ok(w) {
		return nil
	}
	seen := map[string]bool{w: true}
	var rel []string
	limit := maxRel
	add := func(x string) {
		x = strings.ToLower(x)
		if len(rel) < limit && wn.ok(x) && !seen[x] {
			seen[x] = true
			rel = append(rel, x)
		}
	}
	pos := wn.first[w].pos
	s := wn.data[pos][wn.first[w].offset]
	for _, x := range s.words {
		add(x)
	}
	for _, p := range s.ptrs {
		switch {
		case p.sym == "@" || p.sym == "@i": // hypernym
			for _, x := range wn.data[p.pos][p.offset].words {
				add(x)
			}
		case p.sym == "+" && pos == "a", p.sym == "\\" && pos == "a":
			for _, x := range wn.data[p.pos][p.offset].words {
				add(x)
			}
		}
	}
	// A derived word need not be common: it is the same word in another
	// part of speech ("allergic" is rare in WordNet's corpus).
	limit = len(rel) + derived
	for _, x := range wn.derivedFrom(w, s) {
		if x = strings.ToLower(x); len(rel) < limit && alphaWord(x) && !seen[x] {
			seen[x] = true
			rel = append(rel, x)
		}
	}
	return rel
}

// derivedFrom is the words WordNet derives from w in s, nouns first: the
// nouns derived from w's own lemma ("drive" → driver), then from its
// synonyms' ("live", "dwell" → dwelling), then what else w's lemma gives
// ("allergy" → allergic).
func (wn wordNet) derivedFrom(w string, s synset) []string {
	var own, syn, other []string
	for _, p := range s.ptrs {
		t := wn.data[p.pos][p.offset]
		if p.sym != "+" || p.src < 1 || p.src > len(s.rawWords) || p.dst < 1 || p.dst > len(t.rawWords) {
			continue
		}
		x := t.rawWords[p.dst-1]
		switch mine := strings.EqualFold(s.rawWords[p.src-1], w); {
		case mine && p.pos == "n":
			own = append(own, x)
		case p.pos == "n":
			syn = append(syn, x)
		case mine:
			other = append(other, x)
		}
	}
	return append(append(own, syn...), other...)
}

// addInflections gives each irregular inflection WordNet lists
// ("children child", "taught teach") its base form's line, unless it has
// one of its own.
func addInflections(dict string, lines map[string][]string) error {
	for _, pos := range []string{"noun", "verb"} {
		b, err := os.ReadFile(filepath.Join(dict, pos+".exc"))
		if err != nil {
			return fmt.Errorf("read WordNet exceptions: %w", err)
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			fs := strings.Fields(line)
			if len(fs) == 2 && lines[fs[0]] == nil && lines[fs[1]] != nil && alphaWord(fs[0]) {
				lines[fs[0]] = slices.DeleteFunc(slices.Clone(lines[fs[1]]), func(x string) bool { return x == fs[0] })
			}
		}
	}
	return nil
}

// writeLexicon writes "word related related ..." lines, sorted.
// runPack packs the lists in files, in wordnet.List order, into out.
func runPack(out string, files []string) error {
	var texts [3]string
	if len(files) != len(texts) {
		return fmt.Errorf("packing: %d lists given, want %d (kinds, definitions, concepts)", len(files), len(texts))
	}
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("packing: %w", err)
		}
		texts[i] = string(b)
	}
	b, err := wordnet.Pack(texts)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

func writeLexicon(out string, lines map[string][]string) error {
	words := make([]string, 0, len(lines))
	for w := range lines {
		words = append(words, w)
	}
	sort.Strings(words)
	var b strings.Builder
	for _, w := range words {
		b.WriteString(w + " " + strings.Join(lines[w], " ") + "\n")
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

// readIndexes reads every part of speech's index: which words are common,
// and each word's first sense in the part of speech it is most used as.
func readIndexes(dict string) (common map[string]bool, first map[string]*sense, err error) {
	common, first = map[string]bool{}, map[string]*sense{}
	for _, pos := range []string{"n", "v", "a", "r"} {
		if err := readIndex(filepath.Join(dict, "index."+posFiles[pos]), pos, common, first); err != nil {
			return nil, nil, err
		}
	}
	return common, first, nil
}

// readIndex notes each word's first sense per part of speech, and which
// words have sense-tagged uses (tagsense_cnt > 0): the common ones.
func readIndex(path, pos string, common map[string]bool, best map[string]*sense) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open WordNet index: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue // licence header
		}
		fs := strings.Fields(line)
		if len(fs) < 6 {
			continue
		}
		pcnt, err := strconv.Atoi(fs[3])
		if err != nil || len(fs) < 4+pcnt+3 {
			continue
		}
		senses, _ := strconv.Atoi(fs[4+pcnt])
		tagged, _ := strconv.Atoi(fs[5+pcnt])
		offsets := fs[6+pcnt:]
		w := fs[0]
		// Common (sense-tagged) or unambiguous (one sense) words qualify.
		if tagged > 0 || senses == 1 {
			common[w] = true
		}
		// The part of speech with the most tagged uses gives the first
		// sense; nouns win ties, having been read first.
		if len(offsets) > 0 && (tagged > 0 || senses == 1) && (best[w] == nil || tagged > best[w].tagged) {
			best[w] = &sense{pos: pos, offset: offsets[0], tagged: tagged}
		}
	}
	return sc.Err()
}

func readData(path string) (map[string]synset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open WordNet data: %w", err)
	}
	defer f.Close()
	out := map[string]synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue
		}
		var gloss string
		if i := strings.Index(line, " | "); i >= 0 {
			line, gloss = line[:i], line[i+3:]
		}
		fs := strings.Fields(line)
		if len(fs) < 4 {
			continue
		}
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil || len(fs) < 4+2*int(n)+1 {
			continue
		}
		s := synset{lexfile: fs[1]}
		for i := range int(n) {
			w := fs[4+2*i]
			if j := strings.IndexByte(w, '('); j >= 0 { // adjective markers: "(a)"
				w = w[:j]
			}
			s.rawWords = append(s.rawWords, w)
			if !strings.ContainsAny(w, "_-") {
				s.words = append(s.words, strings.ToLower(w))
			}
		}
		k := 4 + 2*int(n)
		pc, err := strconv.Atoi(fs[k])
		if err != nil {
			continue
		}
		k++
		for i := 0; i < pc && k+3 < len(fs)+1; i++ {
			if k+3 > len(fs) {
				break
			}
			p := ptr{sym: fs[k], offset: fs[k+1], pos: strings.Replace(fs[k+2], "s", "a", 1)}
			if st, err := strconv.ParseUint(fs[k+3], 16, 16); err == nil {
				p.src, p.dst = int(st>>8), int(st&0xff)
			}
			s.ptrs = append(s.ptrs, p)
			k += 4
		}
		s.gloss = gloss
		out[fs[0]] = s
	}
	return out, sc.Err()
}
