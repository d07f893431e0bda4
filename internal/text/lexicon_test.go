package text

import "testing"

func TestLexiconLooksUpEachLine(t *testing.T) {
	l := NewLexicon("aa one\naaa two three\nab\nb  spaced\nc four\nc five\nlast six")
	for _, c := range []struct {
		w, rest string
		ok      bool
	}{
		{"aa", "one", true},
		{"aaa", "two three", true},
		{"a", "", false},       // a prefix of a word is not a word
		{"aaaa", "", false},    // nor a word a word is a prefix of
		{"ab", "", false},      // a line without a space has no words after its word
		{"b", " spaced", true}, // the rest is what follows the first space
		{"c", "five", true},    // the later line of a word counts, as in a map
		{"last", "six", true},  // the last line needs no newline
		{"one", "", false},     // only a line's first word is looked up
		{"", "", false},
	} {
		rest, ok := l.Lookup(c.w)
		if rest != c.rest || ok != c.ok || l.Has(c.w) != c.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", c.w, rest, ok, c.rest, c.ok)
		}
	}
}

func TestEmptyLexicon(t *testing.T) {
	if _, ok := NewLexicon("").Lookup("a"); ok {
		t.Error("an empty lexicon holds a word")
	}
}
