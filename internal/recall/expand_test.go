package recall

import (
	"slices"
	"strings"
	"testing"
)

// TestEveryLexiconLineIsLookedUp checks the in-place index answers every
// word of lexicon.txt with its line's words, as the map the lexicon used
// to be parsed into did, and Expand gives them first.
func TestEveryLexiconLineIsLookedUp(t *testing.T) {
	n := 0
	for line := range strings.SplitSeq(strings.TrimSuffix(lexiconText, "\n"), "\n") {
		w, rest, _ := strings.Cut(line, " ")
		n++
		if got, ok := lexicon().Lookup(w); !ok || got != rest {
			t.Fatalf("Lookup(%q) = %q, %v; want %q", w, got, ok, rest)
		}
		if want, got := strings.Fields(rest), Expand([]string{w}); !slices.Equal(got[:min(len(want), len(got))], want) {
			t.Fatalf("Expand(%q) = %v; want it to begin with %v", w, got, want)
		}
	}
	if n < 50_000 {
		t.Errorf("lexicon.txt has %d lines, want over 50,000", n)
	}
}

// TestEveryDefinitionIsFound checks Define's search in place finds every
// line of definitions.txt.
func TestEveryDefinitionIsFound(t *testing.T) {
	for line := range strings.SplitSeq(strings.TrimSuffix(definitionsText, "\n"), "\n") {
		w, rest, _ := strings.Cut(line, " ")
		if got, want := lookupDefinition(w), strings.Fields(rest); !slices.Equal(got, want) {
			t.Fatalf("lookupDefinition(%q) = %v; want %v", w, got, want)
		}
	}
}

func BenchmarkExpand(b *testing.B) {
	words := strings.Fields("cities married driving teaches planned children taught dogs backup finished job records restaurant")
	Expand(words)
	b.ReportAllocs()
	for b.Loop() {
		Expand(words)
	}
}
