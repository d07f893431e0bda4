package recall

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryLexiconLineIsLookedUp checks Expand gives every word of
// lexicon.txt its line's words first, as the map the lexicon used to be
// parsed into did.
func TestEveryLexiconLineIsLookedUp(t *testing.T) {
	n := 0
	for line := range strings.SplitSeq(strings.TrimSuffix(readList(t, "lexicon.txt"), "\n"), "\n") {
		w, rest, _ := strings.Cut(line, " ")
		n++
		if want, got := strings.Fields(rest), Expand([]string{w}); !slices.Equal(got[:min(len(want), len(got))], want) {
			t.Fatalf("Expand(%q) = %v; want it to begin with %v", w, got, want)
		}
	}
	if n < 50_000 {
		t.Errorf("lexicon.txt has %d lines, want over 50,000", n)
	}
}

// TestEveryDefinitionIsFound checks Define's lookup finds every line of
// definitions.txt.
func TestEveryDefinitionIsFound(t *testing.T) {
	for line := range strings.SplitSeq(strings.TrimSuffix(readList(t, "definitions.txt"), "\n"), "\n") {
		w, rest, _ := strings.Cut(line, " ")
		if got, want := lookupDefinition(w), strings.Fields(rest); !slices.Equal(got, want) {
			t.Fatalf("lookupDefinition(%q) = %v; want %v", w, got, want)
		}
	}
}

// readList reads one of the word lists lexgen writes into internal/wordnet.
func readList(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("..", "wordnet", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func BenchmarkExpand(b *testing.B) {
	words := strings.Fields("cities married driving teaches planned children taught dogs backup finished job records restaurant")
	Expand(words)
	b.ReportAllocs()
	for b.Loop() {
		Expand(words)
	}
}

// TestStemJoinsPluralAndSingular: a word and its plural have one stem, so
// "Sundays" holds "Sunday" and "plays" holds "play".
func TestStemJoinsPluralAndSingular(t *testing.T) {
	for _, p := range [][2]string{{"sunday", "sundays"}, {"play", "plays"}, {"name", "names"}, {"box", "boxes"},
		{"city", "cities"}, {"cat", "cats"}, {"class", "classes"}, {"holiday", "holidays"}, {"key", "keys"},
		{"charity", "charities"}, {"university", "universities"}, {"activity", "activities"}, {"community", "communities"}} {
		if stem(p[0]) != stem(p[1]) {
			t.Errorf("stem(%q) = %q, stem(%q) = %q; want one stem", p[0], stem(p[0]), p[1], stem(p[1]))
		}
	}
	for _, p := range [][2]string{{"swim", "swimming"}, {"drum", "drumming"}, {"trim", "trimmed"}, {"fall", "falling"}, {"miss", "missed"}} {
		if stem(p[0]) != stem(p[1]) {
			t.Errorf("stem(%q) = %q, stem(%q) = %q; want one stem", p[0], stem(p[0]), p[1], stem(p[1]))
		}
	}
	if stem("swimmer") == stem("swim") {
		t.Errorf("stem(swimmer) = stem(swim) = %q: an agent's -er keeps its doubled consonant", stem("swim"))
	}
	for _, w := range []string{"bus", "class", "gas"} {
		if got := stem(w); got != w {
			t.Errorf("stem(%q) = %q, want it whole", w, got)
		}
	}
}
