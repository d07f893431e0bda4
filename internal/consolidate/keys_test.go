package consolidate

import (
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestFactsKeyedBeforeAreRekeyed: facts an older dormouse stored under the
// attributes it used then ("phone number", "home", "role") are renamed to
// the claim keys by the next consolidation, so a new value supersedes them
// instead of standing beside them as a second current value.
func TestFactsKeyedBeforeAreRekeyed(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	jan := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	ids := ingest(t, st, "main", []capture.Input{say("My phone number is 0612 448 731.", jan), say("I live in Leeds.", jan.Add(time.Minute))})
	a, err := st.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	for i, f := range []store.Fact{
		{Entity: "user", Attribute: "phone number", Value: "0612 448 731", Content: "My phone number is 0612 448 731"},
		{Entity: "user", Attribute: "home", Value: "Leeds", Content: "I live in Leeds"},
	} {
		f.SourceMemoryIDs, f.ValidFrom, f.Confidence = []int64{ids[i]}, jan, 0.6
		if _, err := a.PutFact(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	may := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC) // before the engine's clock
	ingest(t, st, "main", []capture.Input{say("new number: 0687 220 915, the old SIM is dead.", may)})
	if _, err := engine(st, Offline{}).RunAll(ctx, "main", false); err != nil {
		t.Fatal(err)
	}
	if got := currentValue(t, a, "user", "phone", may.Add(time.Hour)); got != "0687 220 915" {
		t.Errorf("current phone = %q, want the new number", got)
	}
	if got := currentValue(t, a, "user", "phone", may.Add(-time.Hour)); got != "0612 448 731" {
		t.Errorf("phone before the change = %q, want the old number", got)
	}
	if got := currentValue(t, a, "user", "city", may.Add(time.Hour)); got != "Leeds" {
		t.Errorf("city = %q, want Leeds (rekeyed from home)", got)
	}
	if got := currentValue(t, a, "user", "phone number", may.Add(time.Hour)); got != "" {
		t.Errorf("a fact is still keyed phone number: %q", got)
	}
}
