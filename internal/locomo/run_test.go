package locomo_test

import (
	"testing"

	"github.com/dormouse-dev/dormouse/internal/locomo"
)

// TestRunScores runs the whole pipeline on the quirky sample: the turn that
// answers must be found, and recall is a fraction of the evidence.
func TestRunScores(t *testing.T) {
	set, err := locomo.Parse([]byte(locomo.Quirky))
	if err != nil {
		t.Fatal(err)
	}
	var outs []locomo.Outcome
	rep, err := runBench(t, set, locomo.Options{Ks: []int{1, 5}, Each: func(o locomo.Outcome) { outs = append(outs, o) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall.N != 3 || rep.Memories != 3 {
		t.Fatalf("n=%d memories=%d, want 3 and 3", rep.Overall.N, rep.Memories)
	}
	// The turn that answers "How many dogs?" shares its word "dogs".
	if outs[0].Recall[5] != 1 {
		t.Errorf("How many dogs? recall@5 = %v, turns %v", outs[0].Recall[5], outs[0].Turns)
	}
	for _, o := range outs {
		for k, r := range o.Recall {
			if r < 0 || r > 1 {
				t.Errorf("%q recall@%d = %v", o.Question.Text, k, r)
			}
		}
	}
	if _, ok := rep.Categories["5"]; !ok {
		t.Errorf("categories: %v", rep.CategoryKeys())
	}
}
