package wordnet

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
)

// sources are the lists as lexgen writes them, in List order.
var sources = [lists]string{"kinds.txt", "definitions.txt", "lexicon.txt"}

func readSources(t *testing.T) [lists]string {
	t.Helper()
	var texts [lists]string
	for i, f := range sources {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[i] = string(b)
	}
	return texts
}

// TestPackedIsTheLists checks words.bin is what packing the .txt lists
// gives, byte for byte: the lists are the one source, and a list changed
// without `go generate` fails here.
func TestPackedIsTheLists(t *testing.T) {
	want, err := Pack(readSources(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(packed), want) {
		t.Fatalf("words.bin (%d bytes) is not the packed lists (%d bytes): run go generate ./internal/wordnet/", len(packed), len(want))
	}
}

// TestEveryLineIsLookedUp reads all of words.bin: every word of each list
// gives its line's words, in order, and no word has a line the list lacks.
// It is the decoder's test against corrupt data too: words.bin is the only
// data it reads, and this reads every ref and every rest of it.
func TestEveryLineIsLookedUp(t *testing.T) {
	for i, text := range readSources(t) {
		l := List(i)
		lines := map[string][]string{}
		for line := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
			w, rest, _ := strings.Cut(line, " ")
			lines[w] = strings.Fields(rest)
			ws, ok := l.Lookup(w)
			if got := slices.Collect(ws.All()); !ok || !slices.Equal(got, lines[w]) || ws.Len() != len(got) {
				t.Fatalf("%s: Lookup(%q) = %q (Len %d), %v; want %q", sources[i], w, got, ws.Len(), ok, lines[w])
			}
			if ws.String() != rest {
				t.Fatalf("%s: Lookup(%q).String() = %q; want %q", sources[i], w, ws.String(), rest)
			}
		}
		n := 0
		for w, ws := range l.All() {
			n++
			if got, want := slices.Collect(ws.All()), lines[w]; want == nil || !slices.Equal(got, want) {
				t.Fatalf("%s: All gives %q %q; the list has %q", sources[i], w, got, want)
			}
		}
		if n != len(lines) || n < 40_000 {
			t.Errorf("%s: All gives %d words, the list has %d (want over 40,000)", sources[i], n, len(lines))
		}
	}
}

// TestLookupOfNonWords: a word no list's line begins with has no rest in
// any list, whatever it is, and a word of one list's rests or of another
// list has none in a list without its line.
func TestLookupOfNonWords(t *testing.T) {
	for _, w := range []string{
		"", " ", "zzzzq", "cit", "cityy", "city ", " city", "City", "city metropolis",
		"\xff\xfe", "caf\xc3", "\x00", strings.Repeat("a", 1<<20), strings.Repeat("city", 1000),
	} {
		for l := range List(lists) {
			if ws, ok := l.Lookup(w); ok || ws.Len() != 0 || l.Has(w) {
				t.Errorf("list %d: Lookup(%.20q) = %q, %v; want none", l, w, ws.String(), ok)
			}
		}
	}
	// "=role" is only ever a kind: in the vocabulary, with no line.
	if Kinds.Has("=role") || Concepts.Has("=role") || Definitions.Has("=role") {
		t.Error(`"=role", a word only of rests, has a line`)
	}
	for w := range Definitions.All() {
		if !Kinds.Has(w) {
			if ws, ok := Kinds.Lookup(w); ok || ws.Len() != 0 {
				t.Errorf("Kinds.Lookup(%q), a word only of the definitions, = %q", w, ws.String())
			}
			return
		}
	}
	t.Error("every word of the definitions has kinds: nothing checks a word of another list")
}

// TestPackReadsLinesAsAMap packs small lists and reads them back: the
// later line of a word counts, a line without a space has no words after
// its word, the rest is its space-separated words, and the last line
// needs no newline.
func TestPackReadsLinesAsAMap(t *testing.T) {
	p, err := Pack([lists]string{"aa one\naaa two three\nab\nb  spaced\nc four\nc five\nlast six", "", "one aa\n"})
	if err != nil {
		t.Fatal(err)
	}
	x := unpack(string(p))
	for _, c := range []struct {
		l    List
		w    string
		want []string // nil: no line
	}{
		{Kinds, "aa", []string{"one"}},
		{Kinds, "aaa", []string{"two", "three"}},
		{Kinds, "a", nil},    // a prefix of a word is not a word
		{Kinds, "aaaa", nil}, // nor a word a word is a prefix of
		{Kinds, "ab", nil},   // a line without a space has no words after its word
		{Kinds, "b", []string{"spaced"}},
		{Kinds, "c", []string{"five"}}, // the later line counts, as in a map
		{Kinds, "last", []string{"six"}},
		{Kinds, "one", nil}, // only a line's first word is looked up
		{Kinds, "", nil},
		{Definitions, "aa", nil}, // an empty list has no lines
		{Concepts, "one", []string{"aa"}},
		{Concepts, "aa", nil},
	} {
		got := []string(nil)
		if n, ok := x.number(c.w); ok {
			if ws, ok := x.rest(c.l, n); ok {
				got = append([]string{}, slices.Collect(ws.All())...)
			}
		}
		if !slices.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("list %d: %q = %q; want %q", c.l, c.w, got, c.want)
		}
	}
	if _, err := Pack([lists]string{" a b"}); err == nil {
		t.Error("a line beginning with a space was packed")
	}
}

func BenchmarkLookup(b *testing.B) {
	words := strings.Fields("cities married driving teaches planned children taught dogs backup finished job records restaurant zzzzq")
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			for l := range List(lists) {
				ws, _ := l.Lookup(w)
				for range ws.All() {
				}
			}
		}
	}
}
