package recall

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// TestAnalysedMatchesEachReading checks that what a ranker remembers of a
// text is what each stage read of it before: its terms are text.Terms, its
// stems stemsOf, whichever is asked first (terms filter a list in place;
// the stems must still see the stop words and short words it drops).
func TestAnalysedMatchesEachReading(t *testing.T) {
	texts := []string{
		"I went to the Pottery class, and it was a lot of fun: the teachers were great!",
		"a b c the of",
		"",
		"Café déjà-vu: well-known running runners ran",
	}
	for _, s := range texts {
		for _, termsFirst := range []bool{true, false} {
			r := &ranker{words: []string{"pottery", "run"}}
			var terms []string
			var stems stemList
			if termsFirst {
				terms, stems = r.terms(s), r.stems(s)
			} else {
				stems, terms = r.stems(s), r.terms(s)
			}
			if d := cmp.Diff(text.Terms(s), terms, cmp.Comparer(slices.Equal[[]string])); d != "" {
				t.Errorf("terms of %q (terms first %v) (-want +got):\n%s", s, termsFirst, d)
			}
			if d := cmp.Diff(stemsOf(s), stems); d != "" {
				t.Errorf("stems of %q (terms first %v) (-want +got):\n%s", s, termsFirst, d)
			}
			if got, want := r.coverage(s), coverage(r.words, s); got != want {
				t.Errorf("coverage of %q = %v, want %v", s, got, want)
			}
		}
	}
}

// TestTermsOfEachTextAlone: one ranker reads many texts with words in
// common, and each text's terms are its own text.Terms (the set of words
// seen, shared by the question, must start empty for every text).
func TestTermsOfEachTextAlone(t *testing.T) {
	r := &ranker{}
	for _, s := range []string{"backup job finished records ok", "backup failed again, backup job retried", "the job", "job"} {
		if d := cmp.Diff(text.Terms(s), r.terms(s), cmp.Comparer(slices.Equal[[]string])); d != "" {
			t.Errorf("terms of %q (-want +got):\n%s", s, d)
		}
	}
}

// TestKindsOfIsKindsOf: what a ranker remembers of a text's kinds is
// kinds.Of of that text, asked first or again, among other texts.
func TestKindsOfIsKindsOf(t *testing.T) {
	r := &ranker{}
	texts := []string{"we drove to Chicago", "I am allergic to penicillin", "the weekly report was sent", ""}
	for range 2 {
		for _, s := range texts {
			if got, want := r.kindsOf(s), kinds.Of(s); got != want {
				t.Errorf("kindsOf(%q) = %q, want %q", s, got, want)
			}
		}
	}
}
