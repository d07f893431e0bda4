package benchdata

import (
	"slices"
	"strings"
	"testing"
	"time"
)

var end = time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC)

// TestDenseIsFixedAndDense: the corpus is the same on every call, each
// memory holds 20 to 50 words of a ~110-word vocabulary, and the text is
// not one line repeated.
func TestDenseIsFixedAndDense(t *testing.T) {
	vocab := DenseVocabulary()
	if n := len(vocab); n < 100 || n > 120 {
		t.Errorf("vocabulary of %d words, want ~110", n)
	}
	a, b := Dense(2000, end, WithoutSession), Dense(2000, end, WithoutSession)
	if !slices.Equal(a, b) {
		t.Fatal("two calls gave different corpora")
	}
	distinct := map[string]bool{}
	for i, m := range a {
		words := strings.Fields(m.Content)
		if len(words) < 20 || len(words) > 50 {
			t.Fatalf("memory %d has %d words, want 20-50: %q", i, len(words), m.Content)
		}
		for _, w := range words {
			if !slices.Contains(vocab, strings.TrimSuffix(w, ".")) {
				t.Fatalf("memory %d: %q is not in the vocabulary", i, w)
			}
		}
		if m.Session != "" {
			t.Fatalf("memory %d has session %q without sessions", i, m.Session)
		}
		distinct[m.Content] = true
	}
	if len(distinct) < len(a)*99/100 {
		t.Errorf("%d distinct memories of %d", len(distinct), len(a))
	}
	if last := a[len(a)-1].Timestamp; !last.Before(end) || last.Before(end.Add(-time.Second)) {
		t.Errorf("the last memory is at %v, want just before %v", last, end)
	}
}

func TestDenseSessions(t *testing.T) {
	mems := Dense(60, end, WithSession)
	got := []string{mems[0].Session, mems[24].Session, mems[25].Session, mems[59].Session}
	want := []string{"run-0", "run-0", "run-1", "run-2"}
	if !slices.Equal(got, want) {
		t.Errorf("sessions = %q, want %q", got, want)
	}
	if mems[7].Content != Dense(60, end, WithoutSession)[7].Content {
		t.Error("sessions changed the text")
	}
}

func TestDenseQueriesAreTwoVocabularyWords(t *testing.T) {
	vocab := DenseVocabulary()
	qs := DenseQueries(50)
	if !slices.Equal(qs, DenseQueries(50)) {
		t.Fatal("two calls gave different queries")
	}
	for _, q := range qs {
		words := strings.Fields(q)
		if len(words) != 2 || !slices.Contains(vocab, words[0]) || !slices.Contains(vocab, words[1]) {
			t.Errorf("query %q: want two vocabulary words", q)
		}
	}
}

// TestRawStoresAndFinds: the baseline's inserts are searchable at once.
func TestRawStoresAndFinds(t *testing.T) {
	r, err := OpenRaw(t.TempDir() + "/raw.db")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mems := Dense(100, end, WithSession)
	if err := r.Insert(mems[:1]); err != nil {
		t.Fatal(err)
	}
	if err := r.Insert(mems[1:]); err != nil {
		t.Fatal(err)
	}
	first := strings.Fields(mems[0].Content)[0]
	n, err := r.Search(first+" nosuchword", 10)
	if err != nil {
		t.Fatal(err)
	}
	if n != 10 {
		t.Errorf("search %q read %d rows, want 10", first, n)
	}
	if n, err := r.Search("nosuchword", 10); err != nil || n != 0 {
		t.Errorf("search of an absent word = %d, %v; want 0, nil", n, err)
	}
}
