package locomo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// granted is the offset of a granted agent's memory ids in a split
// sample's turnsOf, so one map names the turns of both agents' items.
const granted = 1 << 40

// TestFusionOnSplitSamples measures the one ranking across files (issue
// 29): each dev sample's sessions are split between two agents (odd in the
// reader, even in the one it reads), its questions asked of the reader,
// and evidence R@10 is compared with the whole sample in one agent, for
// reciprocal rank fusion (what RecallFrom does) and for merging the two
// lists by their own scores. Fusion must stay within 0.05 of one file and
// not below the raw-score merge.
func TestFusionOnSplitSamples(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("slow: a plain pass without -short runs it")
	}
	set, err := Load(dataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC, Kinds: kinds.Of})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := &recall.Engine{}
	var whole, fused, byScore acc
	for _, s := range set[:5] {
		w, r := splitSample(t, st, s)
		for _, q := range s.Questions {
			if len(q.Evidence) == 0 {
				continue
			}
			rq := recall.Query{Text: q.Text, AsOf: r.asOf, K: 20, BudgetTokens: recall.MaxBudgetTokens}
			whole.add(score(s.ID, q, recallFrom(t, eng, w.sources, rq), w.turnsOf, []int{10}))
			fused.add(score(s.ID, q, r.renumber(recallFrom(t, eng, r.sources, rq)), r.turnsOf, []int{10}))
			byScore.add(score(s.ID, q, r.renumber(mergeByScore(t, eng, r.sources, rq)), r.turnsOf, []int{10}))
		}
	}
	one, rrf, raw := whole.recall[10]/float64(whole.n), fused.recall[10]/float64(fused.n), byScore.recall[10]/float64(byScore.n)
	t.Logf("R@10 over %d questions: one file %.3f, split with rank fusion %.3f, split merged by score %.3f", whole.n, one, rrf, raw)
	if rrf < one-0.05 || rrf < raw {
		t.Errorf("rank fusion R@10 %.3f: want within 0.05 of one file's %.3f and at least the raw-score merge's %.3f", rrf, one, raw)
	}
}

// split is a sample stored for one way of asking: its sources and the
// turns of each memory id (a granted agent's offset by granted).
type split struct {
	sources []recall.Source
	turnsOf map[int64][]string
	asOf    time.Time
}

// splitSample stores s whole in one agent and split by session parity in
// two, the second read by the first.
func splitSample(t *testing.T, st *store.Store, s Sample) (whole, parts split) {
	t.Helper()
	ctx := t.Context()
	whole = stored(ctx, t, st, fmt.Sprintf("whole-%d", s.Index), s, 0)
	odd, even := s, s
	odd.Sessions = slices.DeleteFunc(slices.Clone(s.Sessions), func(ses Session) bool { return ses.N%2 == 0 })
	even.Sessions = slices.DeleteFunc(slices.Clone(s.Sessions), func(ses Session) bool { return ses.N%2 == 1 })
	parts = stored(ctx, t, st, fmt.Sprintf("reader-%d", s.Index), odd, 0)
	other := stored(ctx, t, st, fmt.Sprintf("other-%d", s.Index), even, granted)
	parts.sources = append(parts.sources, recall.Source{Agent: "other", Searcher: other.sources[0].Searcher})
	for id, turns := range other.turnsOf {
		parts.turnsOf[id] = turns
	}
	if other.asOf.After(parts.asOf) {
		parts.asOf = other.asOf
	}
	whole.asOf = parts.asOf
	return whole, parts
}

func stored(ctx context.Context, t *testing.T, st *store.Store, agent string, s Sample, offset int64) split {
	turnsOf, _, last, err := ingest(ctx, st, agent, s)
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.Acquire(ctx, agent, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Release(a) })
	out := split{sources: []recall.Source{{Searcher: a}}, turnsOf: map[int64][]string{}, asOf: last.Add(24 * time.Hour)}
	for id, turns := range turnsOf {
		out.turnsOf[id+offset] = turns
	}
	return out
}

// renumber names a granted agent's memories by their offset ids, as score
// reads them.
func (split) renumber(res recall.Result) recall.Result {
	for i, it := range res.Items {
		if agent, id := recall.SplitCite(it.ID); agent != "" && it.Kind == "memory" {
			n, _ := strconv.ParseInt(id[len("memory:"):], 10, 64)
			res.Items[i].ID = "memory:" + strconv.FormatInt(n+granted, 10)
		}
	}
	return res
}

func recallFrom(t *testing.T, eng *recall.Engine, sources []recall.Source, q recall.Query) recall.Result {
	t.Helper()
	res, err := eng.RecallFrom(t.Context(), sources, q)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mergeByScore is the alternative to rank fusion: each agent's items by
// the score its own file gave them.
func mergeByScore(t *testing.T, eng *recall.Engine, sources []recall.Source, q recall.Query) recall.Result {
	t.Helper()
	var all recall.Result
	for _, src := range sources {
		res, err := eng.Recall(t.Context(), src.Searcher, q)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found && src.Agent != "" {
			continue
		}
		for _, it := range res.Items {
			it.ID = recall.Cite(src.Agent, it.ID)
			all.Items = append(all.Items, it)
		}
	}
	slices.SortStableFunc(all.Items, func(a, b recall.Item) int { return cmp.Compare(b.Score, a.Score) })
	return all
}
