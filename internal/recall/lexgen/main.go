// Command lexgen writes recall's concept lexicon from WordNet 3.0's
// database files (Debian: apt install wordnet-base; /usr/share/wordnet):
//
//	go run ./internal/recall/lexgen -dict /usr/share/wordnet -out internal/recall/lexicon.txt
//
// For each common single word (one with sense-tagged uses in WordNet's
// corpus), its most frequent sense gives the related words: the other
// words of that synset, of its direct hypernyms ("penicillin" → antibiotic)
// and, for adjectives, its derivationally related nouns ("allergic" →
// allergy). Only common single words are kept, at most -max per entry.
// Lines are "word related related ...", sorted. The licence notice is in
// ../LEXICON-LICENSE.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

type synset struct {
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
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet database directory")
	out := flag.String("out", "lexicon.txt", "output file")
	maxRel := flag.Int("max", 6, "related words per entry")
	categories := flag.Bool("categories", false, "write the category lexicon (a noun's broader kinds) instead")
	definitions := flag.String("definitions", "", "write the definitions lexicon instead, taking kinds from this category lexicon")
	flag.Parse()
	run := run
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

func run(dict, out string, maxRel int) error {
	data := map[string]map[string]synset{} // pos → offset → synset
	for _, pos := range []string{"n", "v", "a", "r"} {
		d, err := readData(filepath.Join(dict, "data."+posFiles[pos]))
		if err != nil {
			return err
		}
		data[pos] = d
	}
	// common: words with sense-tagged uses; first: each word's most used
	// part of speech's first sense.
	common, first, err := readIndexes(dict)
	if err != nil {
		return err
	}
	ok := func(w string) bool {
		if !common[w] || len(w) < 3 {
			return false
		}
		for _, r := range w {
			if r < 'a' || r > 'z' {
				return false
			}
		}
		return true
	}
	var lines []string
	words := make([]string, 0, len(first))
	for w := range first {
		words = append(words, w)
	}
	sort.Strings(words)
	for _, w := range words {
		if !ok(w) {
			continue
		}
		seen := map[string]bool{w: true}
		var rel []string
		add := func(x string) {
			x = strings.ToLower(x)
			if len(rel) < maxRel && ok(x) && !seen[x] {
				seen[x] = true
				rel = append(rel, x)
			}
		}
		{
			pos, off := first[w].pos, first[w].offset
			s := data[pos][off]
			for _, x := range s.words {
				add(x)
			}
			for _, p := range s.ptrs {
				switch {
				case p.sym == "@" || p.sym == "@i": // hypernym
					for _, x := range data[p.pos][p.offset].words {
						add(x)
					}
				case p.sym == "+" && pos == "a", p.sym == "\\" && pos == "a":
					for _, x := range data[p.pos][p.offset].words {
						add(x)
					}
				}
			}
		}
		if len(rel) > 0 {
			lines = append(lines, w+" "+strings.Join(rel, " "))
		}
	}
	return os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
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
		var s synset
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
			s.ptrs = append(s.ptrs, ptr{sym: fs[k], offset: fs[k+1], pos: strings.Replace(fs[k+2], "s", "a", 1)})
			k += 4
		}
		s.gloss = gloss
		out[fs[0]] = s
	}
	return out, sc.Err()
}
