package consolidate

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestClaimKey(t *testing.T) {
	tests := []struct {
		attribute string
		key       string
		single    bool
	}{
		{"phone", "phone", true},
		{"phone number", "phone", true},
		{"Phone Number", "phone", true},
		{"new number", "phone", true},
		{"my number", "phone", true},
		{"my new mobile number", "phone", true},
		{"mobile", "phone", true},
		{"cell", "phone", true},
		{"cell phone", "phone", true},
		{"cellphone", "phone", true},
		{"telephone number", "phone", true},
		{"phone numbers", "phone", true},
		{"e-mail", "email", true},
		{"updated email address", "email", true},
		{"home address", "address", true},
		{"new address", "address", true},
		{"place", "address", true},
		{"postal address", "address", true},
		{"employer", "employer", true},
		{"company", "employer", true},
		{"works at", "employer", true},
		{"current employer", "employer", true},
		{"job", "job_title", true},
		{"title", "job_title", true},
		{"job title", "job_title", true},
		{"job_title", "job_title", true},
		{"role", "job_title", true},
		{"position", "job_title", true},
		{"occupation", "job_title", true},
		{"boss", "manager", true},
		{"line manager", "manager", true},
		{"rent", "rent", true},
		{"monthly rent", "rent", true},
		{"partner", "partner", true},
		{"girlfriend", "partner", true},
		{"wife", "partner", true},
		{"husband", "partner", true},
		{"car", "car", true},
		{"old car", "car", true},
		{"vehicle", "car", true},
		{"city", "city", true},
		{"lives in", "city", true},
		{"time zone", "timezone", true},
		{"time-zone", "timezone", true},
		{"date of birth", "birthday", true},
		{"blood group", "blood_type", true},
		{"gp", "doctor", true},
		{"Maya's birthday", "maya's birthday", true}, // someone else's: not the speaker's key
		{"sister's birthday", "sister's birthday", true},
		{"allergy", "allergy", false},
		{"allergies", "allergy", false},
		{"allergic to", "allergy", false},
		{"medications", "medication", false},
		{"meds", "medication", false},
		{"kids", "child", false},
		{"children", "child", false},
		{"daughter", "child", false},
		{"mum", "parent", false},
		{"sister", "sibling", false},
		{"coworker", "colleague", false},
		{"co-worker", "colleague", false},
		{"dog", "pet", false},
		{"pets", "pet", false},
		{"routine", "routine", false},
		{"standing instruction", "rule", false},
		{"work schedule", "work_schedule", false},
		{"pronouns", "pronouns", false},
		{"diet", "diet", true},
		// Not a canonical key: normalised, keyed as facts always were.
		{"Favorite Colour", "favourite colour", true},
		{"  Wi-Fi   password ", "wi-fi password", true},
		{"the budget", "budget", true},
		{"new york office", "new york office", true},
		{"current project", "current project", true},
		{"amount", "amount", true},
	}
	for _, tt := range tests {
		key, single := ClaimKey(tt.attribute)
		if key != tt.key || single != tt.single {
			t.Errorf("ClaimKey(%q) = %q, %v; want %q, %v", tt.attribute, key, single, tt.key, tt.single)
		}
	}
}

// Every canonical key names itself, no phrase names two keys, and
// singleKeys holds only canonical keys.
func TestClaimKeyCanonicalIsFixedPoint(t *testing.T) {
	seen := map[string]string{}
	for key, phrases := range keySynonyms {
		for _, p := range phrases {
			if other, dup := seen[p]; dup {
				t.Errorf("phrase %q names both %q and %q", p, other, key)
			}
			seen[p] = key
		}
	}
	for key := range keySynonyms {
		if got, _ := ClaimKey(key); got != key {
			t.Errorf("ClaimKey(%q) = %q, want itself", key, got)
		}
	}
	for key := range singleKeys {
		if _, ok := keySynonyms[key]; !ok {
			t.Errorf("single key %q is not a canonical key", key)
		}
	}
}

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
