package recall

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// The passage stages: a turn is read with the turns around it.

// passages gives a turn inside a passage that matches its adjacent turns'
// relevance.
func (r *ranker) passages(context.Context) error {
	byID := map[int64]*cand{}
	for _, c := range r.cands {
		if c.hit.Kind == "memory" {
			byID[c.hit.ID] = c
		}
	}
	for _, c := range byID {
		for _, d := range []int64{-2, -1, 1, 2} {
			w := 1.0
			if d == -2 || d == 2 {
				w = r.t.Context2
			}
			if n := byID[c.hit.ID+d]; n != nil && w > 0 && n.hit.SessionID == c.hit.SessionID &&
				nearInTime(n.hit.Timestamp, c.hit.Timestamp) {
				c.ex.Context = max(c.ex.Context, w*(n.ex.Relevance+n.ex.Expansion*r.t.Expansion))
			}
		}
	}
	return nil
}

// neighbours: the turns around the best hits inherit part of their score.
// Those around the k to be returned, by default: on LoCoMo's development
// split asked for 10 items, the 20 best gave R@5 69.3, the 10 best 70.0;
// and each is 2 × NeighbourSpan rows read.
func (r *ranker) neighbours(ctx context.Context) error {
	t := r.t
	if !r.lexical() || t.NoNeighbours || t.NeighbourSpan <= 0 || t.Neighbour <= 0 {
		return nil
	}
	top := topMemories(r.cands, max(r.k, t.NeighbourFrom))
	ids := make([]int64, 0, len(top))
	parent := make(map[int64]*cand, len(top))
	for _, c := range top {
		ids = append(ids, c.hit.ID)
		parent[c.hit.ID] = c
	}
	nb, err := r.s.Neighbours(ctx, ids, t.NeighbourSpan, r.base)
	if err != nil {
		return err
	}
	turns := passageTurns{parent: parent, best: top[:min(len(top), followUpParents)], nb: make(map[int64]store.Hit, len(nb))}
	for _, h := range nb {
		turns.nb[h.ID] = h.Hit
	}
	for _, h := range nb {
		inherit := r.inherited(h, turns)
		c := r.get(h.Hit)
		if c.entities.None() {
			c.entities = h.Entities
		}
		if c.ex.Informative == 0 {
			c.ex.Informative = informative(c.hit.Text)
		}
		if c.ex.Total == 0 {
			r.baseParts(c)
			c.ex.Coverage = r.coverage(c.hit.Text)
		}
		for _, n := range r.voices {
			if !t.NoSpeaker && strings.EqualFold(firstWord(h.Role), n) {
				c.ex.Speaker = 1
			}
		}
		c.ex.Neighbour = max(c.ex.Neighbour, inherit)
		c.ex.Total = r.total(c.ex)
	}
	return nil
}

// followUpParents is how many of the best memories lend the answer to a
// follow-up question about them (followsUp). On LoCoMo's development split
// the best 5 gave R@10 +0.35, the best 10 +0.25, the best 20 +0.25: each
// answer lifted is one more turn in the first ten.
const followUpParents = 5

// passageTurns are the turns the neighbours stage has read: the memories
// whose neighbours were read (parent), the best of them, and the neighbours.
type passageTurns struct {
	parent map[int64]*cand
	best   []*cand
	nb     map[int64]store.Hit
}

// turn is the turn id as read, or a zero Hit.
func (p passageTurns) turn(id int64) store.Hit {
	if c := p.parent[id]; c != nil {
		return c.hit
	}
	return p.nb[id]
}

// inherited is the share of its best parent's score a neighbouring turn h
// takes: all of it, or more for the reply to a question that matched, or
// for the answer to a question asked about one of the best hits.
func (r *ranker) inherited(h store.MemoryHit, turns passageTurns) float64 {
	inherit := 0.0
	span := int64(r.t.NeighbourSpan)
	for d := -span; d <= span; d++ {
		p := turns.parent[h.ID+d]
		if p == nil || !nearInTime(p.hit.Timestamp, h.Timestamp) {
			continue
		}
		share := 1.0
		if d == -1 && h.SessionID == p.hit.SessionID && strings.Contains(p.hit.Text, "?") {
			// The reply to a question that matched: often the answer.
			share = r.t.Reply / r.t.Neighbour
		}
		if d == -2 && slices.Contains(turns.best, p) && followsUp(p.hit, turns.turn(h.ID-1), h.Hit) {
			share = max(share, r.t.FollowUp/r.t.Neighbour)
		}
		inherit = max(inherit, share*p.ex.Total)
	}
	return inherit
}

// followsUp reports whether answer answers q, a question the other speaker
// asked about what answer's speaker had just said: "we went camping" / "How
// was it? Anything fun?" / "We roasted marshmallows": the answer holds what
// was asked, said holds the words the question matched.
func followsUp(said, q, answer store.Hit) bool {
	return q.ID != 0 && q.SessionID == answer.SessionID && said.SessionID == answer.SessionID &&
		q.Role != answer.Role && said.Role == answer.Role && strings.HasSuffix(strings.TrimSpace(q.Text), "?")
}

// neighbourGap bounds how far apart in time two turns of a session may be
// and still lend each other relevance: a session id reused the next day
// ("status", "daily") is not one conversation.
const neighbourGap = 6 * time.Hour

func nearInTime(a, b time.Time) bool {
	d := a.Sub(b)
	return d <= neighbourGap && d >= -neighbourGap
}

// askingTurns: asked of a speaker, a turn of another speaker that ends by
// asking ("What made you try pottery?") holds the question's words but
// tells nothing; the reply answers, and has inherited from it already. On
// LoCoMo's development split such turns filled 7% of the first ten places
// and were evidence in 2.5% of them, against 11% for the rest.
func (r *ranker) askingTurns(context.Context) error {
	if len(r.speakers) == 0 || r.t.Asking == 0 {
		return nil
	}
	for _, c := range r.cands {
		if c.hit.Kind == "memory" && c.ex.Speaker == 0 && strings.HasSuffix(strings.TrimSpace(c.hit.Text), "?") {
			c.ex.Asks = 1
			c.ex.Total = r.total(c.ex)
		}
	}
	return nil
}
