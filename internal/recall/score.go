package recall

import (
	"context"
	"math"
	"sort"
	"time"
)

// score sets every candidate's importance, recency and total; a memory that
// can pass the precision floor gets its informativeness too (a turn beside
// a hit gets it in neighbours, when it inherits).
func (r *ranker) score(context.Context) error {
	for _, c := range r.cands {
		r.baseParts(c)
		if r.lexical() && c.hit.Kind == "memory" && (c.ex.Coverage >= r.t.MinCoverage || c.ex.InRange > 0 || c.ex.Semantic > 0) {
			c.ex.Informative = informative(c.hit.Text)
		}
		c.ex.Total = r.total(c.ex)
	}
	return nil
}

// baseParts sets the parts every candidate has whatever the question:
// importance and recency.
func (r *ranker) baseParts(c *cand) {
	c.ex.Importance = math.Max(0, math.Min(1, c.hit.Importance))
	c.ex.Recency = recency(c.hit.Timestamp, r.asOf, r.half)
}

// total weighs the parts. With words to search, lexical relevance leads and
// the rest break near-ties; a question whose date is all it says is
// answered by what happened then, the most important first.
func (r *ranker) total(ex Explain) float64 {
	t := r.t
	if !r.lexical() {
		return t.InRange*ex.InRange + t.DateImportance*ex.Importance + t.DateRecency*ex.Recency + t.Entity*ex.Entity
	}
	lex := t.Relevance*ex.Relevance + t.Expansion*ex.Expansion + t.Kind*ex.ByKind
	lex = max(lex, t.Neighbour*ex.Neighbour)
	return lex + t.Informative*ex.Informative + t.Context*ex.Context + t.Coverage*ex.Coverage +
		t.Importance*ex.Importance + t.Use*ex.Use + t.Recency*ex.Recency + t.Speaker*ex.Speaker +
		t.Entity*ex.Entity + t.InRange*ex.InRange + t.DayRecord*ex.DayRecord + t.Semantic*ex.Semantic + t.Asking*ex.Asks
}

// recency is 1 for what happened at asOf, halving every half before it.
func recency(ts, asOf time.Time, half time.Duration) float64 {
	return math.Exp2(-math.Max(0, float64(asOf.Sub(ts))) / float64(half))
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func roundExplain(x *Explain) {
	for _, p := range []*float64{&x.Relevance, &x.Expansion, &x.ByKind, &x.Coverage, &x.Informative, &x.Importance, &x.Use, &x.Recency,
		&x.Speaker, &x.Entity, &x.InRange, &x.Neighbour, &x.DayRecord, &x.Context, &x.Semantic, &x.Asks, &x.Total} {
		*p = round4(*p)
	}
}

func sortItems(items []Item) {
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Score != items[j].Score {
			return items[i].Score > items[j].Score
		}
		if !items[i].Timestamp.Equal(items[j].Timestamp) {
			return items[i].Timestamp.After(items[j].Timestamp)
		}
		return items[i].ID < items[j].ID
	})
}

// normBM25 turns n BM25 scores (lower is better) into relevance relative
// to the best: 1 for the best match, 0 for none.
func normBM25(n int, bm25 func(int) float64) []float64 {
	best := 0.0
	for i := range n {
		best = math.Min(best, bm25(i))
	}
	out := make([]float64, n)
	if best >= 0 {
		return out
	}
	for i := range n {
		out[i] = bm25(i) / best
	}
	return out
}

// coverageCands bounds how many lexical candidates get their coverage
// counted (and so can pass the precision floor).
const coverageCands = 150

// bestCands returns up to n candidates by lexical score.
func bestCands(cands map[string]*cand, n int, t Tuning) []*cand {
	out := make([]*cand, 0, len(cands))
	for _, c := range cands {
		out = append(out, c)
	}
	pre := func(c *cand) float64 {
		return t.Relevance*c.ex.Relevance + t.Expansion*c.ex.Expansion + t.Kind*c.ex.ByKind + t.Speaker*c.ex.Speaker
	}
	sort.Slice(out, func(i, j int) bool {
		if pi, pj := pre(out[i]), pre(out[j]); pi != pj {
			return pi > pj
		}
		return out[i].hit.ID < out[j].hit.ID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func topMemories(cands map[string]*cand, n int) []*cand {
	var out []*cand
	for _, c := range cands {
		if c.hit.Kind == "memory" && c.ex.Relevance > 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ex.Total != out[j].ex.Total {
			return out[i].ex.Total > out[j].ex.Total
		}
		return out[i].hit.ID < out[j].hit.ID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
