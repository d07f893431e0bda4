package recall

import (
	"context"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// dropSuperseded keeps stale values from being offered as current: when a
// current fact about an entity's attribute ranks among the first k items,
// every memory and day record that states one of that attribute's
// superseded values is left out (even one that says "not $2.4M": the
// current fact carries the answer). It returns the kept items and how many
// were left out.
func (e *Engine) dropSuperseded(ctx context.Context, s RankSearcher, cands map[string]*cand, items []Item, asOf time.Time) ([]Item, int, error) {
	var stale [][]string // old values, as word sequences
	current := map[string]bool{}
	for _, it := range items {
		c := cands[it.ID]
		if c == nil || c.fact == nil || c.fact.Attribute == "" {
			continue
		}
		cur := text.Words(c.fact.Value)
		current[strings.Join(cur, " ")] = true
		old, err := s.FactsAbout(ctx, c.fact.Entity, c.fact.Attribute, asOf)
		if err != nil {
			return nil, 0, err
		}
		for _, f := range old {
			w := text.Words(f.Value)
			if len(w) == 0 || current[strings.Join(w, " ")] {
				continue
			}
			stale = append(stale, w)
		}
	}
	if len(stale) == 0 {
		return items, 0, nil
	}
	kept := items[:0:0]
	dropped := 0
	for _, it := range items {
		if it.Kind != "fact" && containsAny(text.Words(it.Text), stale) {
			dropped++
			continue
		}
		kept = append(kept, it)
	}
	return kept, dropped, nil
}

// containsAny reports whether words holds any of the sequences.
func containsAny(words []string, seqs [][]string) bool {
	for _, seq := range seqs {
		for i := 0; i+len(seq) <= len(words); i++ {
			match := true
			for j, w := range seq {
				if words[i+j] != w {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
	}
	return false
}
