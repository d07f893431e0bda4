package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunDefinitions writes the definitions lexicon from a four-noun
// WordNet: a definition's nouns (plurals made singular, parentheses and
// examples left out, vague nouns such as "people" skipped, only nouns the
// category lexicon knows) followed by their first two kinds.
func TestRunDefinitions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "definitions.txt")
	if err := runDefinitions("testdata/wn", "testdata/kinds.txt", out, 3); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "steak meat food solid\nsteakhouse restaurant steak eating house cut meat\n"
	if string(got) != want {
		t.Errorf("definitions:\n%s\nwant:\n%s", got, want)
	}
	if err := runDefinitions("testdata/missing", "testdata/kinds.txt", out, 3); err == nil {
		t.Error("a missing WordNet directory gave no error")
	}
}
