package consolidate

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestStatedValues: what recall retires today's stale values with is the
// one-valued claims a memory states, keyed as the night keys them; claims
// of attributes of several values are not among them.
func TestStatedValues(t *testing.T) {
	got := StatedValues("I got a new phone, my mobile is 07700 900 462. My daughter is Maya. We moved to Bristol.", "user")
	var keys []string
	for _, f := range got {
		keys = append(keys, f.Entity+"|"+f.Attribute+"|"+f.Value)
	}
	want := []string{"user|phone|07700 900 462", "user|city|Bristol"}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("StatedValues = %q, want %q", keys, want)
	}
	// What the profile rules read as the speaker's one-valued claims counts
	// too: a title and a partner no fact shape states.
	got = StatedValues("I'm a junior designer at Pixelworks, mostly doing icons. My girlfriend Hana loves sushi.", "user")
	keys = keys[:0]
	for _, f := range got {
		keys = append(keys, f.Entity+"|"+f.Attribute+"|"+f.Value)
	}
	if want := []string{"user|job_title|junior designer", "user|employer|Pixelworks", "user|partner|Hana"}; strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("StatedValues = %q, want %q", keys, want)
	}
	if got := StatedValues("I'm on CET now.", "assistant"); len(got) != 0 {
		t.Errorf("an agent's own claims are not the user's: %+v", got)
	}
}

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
