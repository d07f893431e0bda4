package main

import (
	"os"
	"path/filepath"
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
