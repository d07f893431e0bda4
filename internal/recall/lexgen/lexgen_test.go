package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunConcepts writes the concept lexicon from a small WordNet: a
// word's synonyms and hypernyms, with -derived the words WordNet derives
// from its lemma ("marry" → marriage, and back), and irregular
// inflections ("children", "married") taking their base form's line
// without the word itself.
func TestRunConcepts(t *testing.T) {
	for _, tc := range []struct {
		derived int
		want    string
	}{
		{0, "child kid\nchildren kid\nkid child\nnurse worker\n"},
		{1, "child kid\nchildren kid\nkid child\nmarriage marry\nmarried marriage\nmarry marriage\nnurse worker\n"},
	} {
		got := lexgenOut(t, func(out string) error { return runConcepts("testdata/wnrel", out, 4, tc.derived) })
		if got != tc.want {
			t.Errorf("concepts with -derived %d:\n%s\nwant:\n%s", tc.derived, got, tc.want)
		}
	}
	if err := runConcepts("testdata/missing", filepath.Join(t.TempDir(), "x"), 4, 0); err == nil {
		t.Error("a missing WordNet directory gave no error")
	}
}

// TestRunCategoriesOccupationsAndPeople: a person below an occupation
// root (the root too) is marked as one, and a place is indexed under the
// people its definition names, with the synonym whose first sense that
// person is ("a child's room": child, kid).
func TestRunCategoriesOccupationsAndPeople(t *testing.T) {
	got := lexgenOut(t, func(out string) error { return runCategories("testdata/wnrel", out, 6) })
	want := "nurse =role\nnursery child kid\nworker =role\n"
	if got != want {
		t.Errorf("categories:\n%s\nwant:\n%s", got, want)
	}
}

// lexgenOut runs write on a file in a temporary directory and returns
// what it wrote.
func lexgenOut(t *testing.T, write func(out string) error) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.txt")
	if err := write(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWordListsAreSorted checks the word lists lexgen wrote into the tree
// are as it writes them, one line a word in byte order: recall's Define
// searches definitions.txt by halving, and every list is looked up by its
// first word.
func TestWordListsAreSorted(t *testing.T) {
	for _, f := range []string{"../lexicon.txt", "../definitions.txt", "../../kinds/kinds.txt"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prev := ""
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			w, _, ok := strings.Cut(line, " ")
			if !ok || w <= prev {
				t.Fatalf("%s line %d (%q): not a word and its list after %q", f, i+1, line, prev)
			}
			prev = w
		}
	}
}
