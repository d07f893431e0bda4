package consolidate

import (
	"context"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/extract"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// withoutRejected splits a day's memories into those to consolidate and
// those that state a claim the user rejected, in whatever words ("Earlier
// you said your favourite colour is orange" after "favourite colour =
// orange" was rejected): the latter are flagged, so they reach no record
// and no recall. The same goes for the claim of a fact dropped with the
// memory it came from (the user forgot that memory). The claims are the offline extractor's, whichever
// consolidator writes the record: the same claims the facts are keyed by.
// A memory giving the attribute a new value is kept.
func withoutRejected(ctx context.Context, a *store.Agent, mems []store.Memory) (keep []store.Memory, flag []int64, err error) {
	if some, err := a.AnyForgotten(ctx); err != nil || !some {
		return mems, nil, err
	}
	var claims []claim.Claim
	owner := []int{} // owner[i] is the memory claims[i] came from
	for i := range mems {
		for _, s := range capture.Sentences(mems[i].Content) {
			for _, f := range extract.KeyFacts(s, &mems[i]) {
				claims = append(claims, claim.Claim{Subject: f.Entity, Key: f.Attribute, Value: f.Value})
				owner = append(owner, i)
			}
		}
	}
	gone, err := a.ForgottenClaims(ctx, claims)
	if err != nil {
		return nil, nil, err
	}
	drop := map[int]bool{}
	for i, g := range gone {
		if g {
			drop[owner[i]] = true
		}
	}
	if len(drop) == 0 {
		return mems, nil, nil
	}
	keep = make([]store.Memory, 0, len(mems)-len(drop))
	for i := range mems {
		if drop[i] {
			flag = append(flag, mems[i].ID)
			continue
		}
		keep = append(keep, mems[i])
	}
	return keep, flag, nil
}
