package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/wordnet"
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
// are as it writes them, one line a word in byte order, every list looked
// up by its first word.
func TestWordListsAreSorted(t *testing.T) {
	for _, f := range []string{"../../wordnet/lexicon.txt", "../../wordnet/definitions.txt", "../../wordnet/kinds.txt"} {
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

// TestRunPack packs three lists into the form the binary embeds, as
// wordnet.Pack does, and refuses any other number of lists.
func TestRunPack(t *testing.T) {
	dir := t.TempDir()
	texts := [3]string{"nurse =role\n", "gym room training\n", "child kid\nkid child\n"}
	var files []string
	for i, text := range texts {
		f := filepath.Join(dir, strconv.Itoa(i)+".txt")
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	got := lexgenOut(t, func(out string) error { return runPack(out, files) })
	want, err := wordnet.Pack(texts)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("runPack wrote %d bytes, not the %d of wordnet.Pack", len(got), len(want))
	}
	if err := runPack(filepath.Join(dir, "x"), files[:2]); err == nil {
		t.Error("two lists were packed")
	}
}
