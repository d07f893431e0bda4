package recall

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// proFormCorrections are the user's corrections by a pro-form, said after
// the oldest memory among the items that no night has read yet and before
// as_of, that are not among the items: they name neither the subject nor
// the old value, so the question's words do not find them. None, and no
// query, when every memory offered has been read by a night (the night
// retired what they correct).
func (r *ranker) proFormCorrections(ctx context.Context, items []Item) ([]store.Hit, error) {
	var oldest time.Time
	among := map[int64]bool{}
	for _, it := range items {
		c := r.cands[it.ID]
		if c == nil || it.Kind != "memory" {
			continue
		}
		among[c.hit.ID] = true
		if !c.hit.Consolidated && !strings.EqualFold(c.hit.Role, "assistant") && (oldest.IsZero() || c.hit.Timestamp.Before(oldest)) {
			oldest = c.hit.Timestamp
		}
	}
	if oldest.IsZero() {
		return nil, nil
	}
	until := r.asOf
	if until.IsZero() || until.After(oldest.Add(capture.RecentContext)) {
		until = oldest.Add(capture.RecentContext)
	}
	o := r.base // the question's filters: whose memories, which sessions
	o.Since, o.Until, o.Limit = oldest, until, capture.RecentClaims
	recent, err := r.s.RecentMemories(ctx, o)
	if err != nil {
		return nil, err
	}
	var out []store.Hit
	for _, m := range recent {
		h := m.Hit
		if among[h.ID] || h.Consolidated || strings.EqualFold(h.Role, "assistant") || !h.Timestamp.After(oldest) || !capture.Anaphoric(h.Text) {
			continue
		}
		if _, ok := correctionOf(h); ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// proFormsCorrecting are the corrections of extra that correct a memory
// among the items holding a word of the question (capture.Corrected).
func (r *ranker) proFormsCorrecting(items []Item, extra []store.Hit) []store.Hit {
	if len(extra) == 0 {
		return nil
	}
	var hits []store.Hit
	for _, it := range items {
		if c := r.cands[it.ID]; c != nil && it.Kind == "memory" && r.coverage(c.hit.Text) > 0 {
			hits = append(hits, c.hit) // a claim the question asks of: "the orange one" is no answer of the locksmith
		}
	}
	var out []store.Hit
	for _, h := range extra {
		if corr, ok := correctionOf(h); ok && len(r.claims.Corrected(h, corr, hits, holdsKind)) > 0 {
			out = append(out, h)
		}
	}
	return out
}

// withProForms is items with the corrections of extra first, scored as the
// best of them: each is the answer in place of the claim it retired.
func (r *ranker) withProForms(items []Item, extra []store.Hit) []Item {
	if len(extra) == 0 {
		return items
	}
	score := 1.0
	for _, it := range items {
		score = max(score, it.Score)
	}
	var first []Item
	for _, h := range extra {
		first = append(first, Item{ID: fmt.Sprintf("memory:%d", h.ID), Kind: "memory", Text: h.Text, Score: score,
			Timestamp: h.Timestamp, SessionID: h.SessionID, Role: h.Role, Origin: h.Origin})
	}
	return append(first, items...)
}
