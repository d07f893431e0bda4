package store

import (
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

func TestClaimHash(t *testing.T) {
	base := claim.Claim{Subject: "user", Key: "favourite colour", Value: "orange"}
	h, ok := claimHash(base)
	if !ok {
		t.Fatal("no hash for a full claim")
	}
	for _, tc := range []struct {
		c    claim.Claim
		same bool
		ok   bool
	}{
		{claim.Claim{Subject: "User", Key: "favourite colour", Value: "Orange."}, true, true},
		{claim.Claim{Subject: "user", Key: "favourite colour", Value: "orange "}, true, true},
		{claim.Claim{Subject: "user", Key: "favourite colour", Value: "green"}, false, true},
		{claim.Claim{Subject: "user", Key: "favourite food", Value: "orange"}, false, true},
		{claim.Claim{Subject: "alice", Key: "favourite colour", Value: "orange"}, false, true},
		{claim.Claim{Subject: "user", Key: "", Value: "orange"}, false, false},
		{claim.Claim{Subject: "user", Key: "favourite colour", Value: "..."}, false, false},
	} {
		g, gok := claimHash(tc.c)
		if gok != tc.ok || (g == h) != tc.same {
			t.Errorf("claimHash(%+v) ok=%v same=%v; want ok=%v same=%v", tc.c, gok, g == h, tc.ok, tc.same)
		}
	}
	// A claim's hash is never a content's: the memory "user favourite
	// colour orange" is not the claim.
	if c, _ := normHash("user favourite colour orange"); c == h {
		t.Error("a claim's hash equals a content's")
	}
}

// TestForgottenClaims: the claim of a rejected fact, and of a fact dropped
// with the memory it came from, is recognised in any wording and not made a
// fact again; another value of the same attribute is.
func TestForgottenClaims(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	may := time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)
	rejected, err := a.AddFact(ctx, Fact{Entity: "user", Attribute: "favourite colour", Value: "orange",
		Content: "My favourite colour is orange", ValidFrom: may})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := a.Insert(ctx, []Memory{mem("My rent is 900 a month", "s")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddFact(ctx, Fact{Entity: "rent", Attribute: "amount", Value: "900 a month",
		Content: "My rent is 900 a month", SourceMemoryIDs: []int64{ids[0].ID}, ValidFrom: may}); err != nil {
		t.Fatal(err)
	}
	probe := []claim.Claim{
		{Subject: "user", Key: "favourite colour", Value: "orange"},
		{Subject: "rent", Key: "amount", Value: "900 a month"},
		{Subject: "user", Key: "favourite colour", Value: "green"},
	}
	got, err := a.ForgottenClaims(ctx, probe)
	if err != nil || got[0] || got[1] || got[2] {
		t.Fatalf("ForgottenClaims before forgetting = %v, %v; want none", got, err)
	}
	if err := a.RejectFact(ctx, rejected); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, ids[0].ID); err != nil { // drops the rent fact with it
		t.Fatal(err)
	}
	got, err = a.ForgottenClaims(ctx, probe)
	if err != nil || !got[0] || !got[1] || got[2] {
		t.Errorf("ForgottenClaims after forgetting = %v, %v; want [true true false]", got, err)
	}
	later := may.AddDate(0, 0, 7)
	for _, f := range []Fact{
		{Entity: "User", Attribute: "favourite colour", Value: "Orange", Content: "Earlier you said your favourite colour is orange", ValidFrom: later},
		{Entity: "rent", Attribute: "amount", Value: "900 a month", Content: "Rent: 900 a month", ValidFrom: later},
	} {
		r, err := a.PutFact(ctx, f)
		if err != nil || r.Outcome != FactRejected {
			t.Errorf("PutFact(%q) = %+v, %v; want it refused as rejected", f.Content, r, err)
		}
	}
	r, err := a.PutFact(ctx, Fact{Entity: "user", Attribute: "favourite colour", Value: "green",
		Content: "My favourite colour is green now", ValidFrom: later})
	if err != nil || r.Outcome != FactCreated {
		t.Errorf("a new value = %+v, %v; want it created", r, err)
	}
}

func TestFlagMemories(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ids, err := a.Insert(ctx, []Memory{mem("Earlier you said your favourite colour is orange", "s"), mem("The sofa is orange", "s")})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.FlagMemories(ctx, []int64{ids[0].ID}); err != nil {
		t.Fatal(err)
	}
	m, err := a.Get(ctx, ids[0].ID)
	if err != nil || !m.Flagged || !m.Consolidated {
		t.Errorf("flagged memory = %+v, %v; want flagged and consolidated", m, err)
	}
	hits, err := a.SearchMemories(ctx, SearchOptions{Terms: []string{"orange"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != ids[1].ID {
		t.Errorf("search for orange = %+v, want only memory %d", hits, ids[1].ID)
	}
	days, err := a.UnconsolidatedDays(ctx, "")
	if err != nil || len(days) != 1 || days[0].Unconsolidated != 1 {
		t.Errorf("unconsolidated days = %+v, %v; want one day with the one unflagged memory", days, err)
	}
}
