package recall

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Source is one agent's storage a recall searches: the reader's own (Agent
// "") or that of an agent it is granted to read, whose items are cited with
// its name ("household/memory:12").
type Source struct {
	Agent    string
	Searcher Searcher
}

// fusionK is reciprocal rank fusion's constant: an item ranked r in its
// agent's list scores 1/(fusionK+r). 60 is the value of Cormack et al.
const fusionK = 60

// RecallFrom is Recall over several agents' storage in one ranking and one
// budget: sources[0] is the reader's own, the others those it reads. Each
// agent is ranked by its own file, concurrently, with its own precision
// floor and its own superseded values; an agent whose best item fails its
// floor adds nothing. Scores from different files are not comparable (each
// file has its own document frequencies, and relevance is relative to its
// best match), so the lists are fused by rank, the reader's own item first
// on a tie, and packed once under q's budget and k.
func (e *Engine) RecallFrom(ctx context.Context, sources []Source, q Query) (Result, error) {
	if len(sources) == 1 {
		return e.Recall(ctx, sources[0].Searcher, q)
	}
	results, err := e.recallEach(ctx, sources, q)
	if err != nil {
		return Result{}, err
	}
	_, _, budget, k, _ := e.defaults()
	budget, k = q.sized(budget, k)
	return fuse(sources, results, budget, k), nil
}

// recallEach recalls q from every source at once, each on its own
// connection; the first error fails the whole.
func (e *Engine) recallEach(ctx context.Context, sources []Source, q Query) ([]Result, error) {
	results := make([]Result, len(sources))
	errs := make([]error, len(sources))
	// A reader's reading is not the granted agent's own use of its facts,
	// and a recall writes nothing into another agent's file.
	other := *e
	other.CountUse = false
	var wg sync.WaitGroup
	for i, src := range sources[1:] {
		wg.Go(func() { results[i+1], errs[i+1] = other.Recall(ctx, src.Searcher, q) })
	}
	results[0], errs[0] = e.Recall(ctx, sources[0].Searcher, q)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			if sources[i].Agent != "" {
				return nil, &agentError{agent: sources[i].Agent, err: err}
			}
			return nil, err
		}
	}
	return results, nil
}

// agentError is a granted agent's recall failing, named.
type agentError struct {
	agent string
	err   error
}

func (e *agentError) Error() string {
	return "recall from granted agent " + e.agent + ": " + e.err.Error()
}
func (e *agentError) Unwrap() error { return e.err }

// sized is q's budget and k, or the defaults given where q gives none.
func (q Query) sized(budget, k int) (int, int) {
	if q.BudgetTokens > 0 {
		budget = q.BudgetTokens
	}
	if q.K > 0 {
		k = q.K
	}
	return budget, k
}

// fused is an item on its way into the one ranking.
type fused struct {
	it     Item
	score  float64 // reciprocal rank
	source int     // its source's index: the reader's own is 0
}

// fuse ranks the items of every agent that found something, and the
// reader's own whatever it found (its pinned profile), by reciprocal rank,
// and packs them. Found is true when any agent found something.
func fuse(sources []Source, results []Result, budget, k int) Result {
	var all []fused
	var notes []string
	found := false
	for i, res := range results {
		found = found || res.Found
		if i > 0 && !res.Found {
			continue
		}
		for r, it := range res.Items {
			it.Agent = sources[i].Agent
			it.ID = Cite(sources[i].Agent, it.ID)
			all = append(all, fused{it: it, score: 1 / float64(fusionK+r+1), source: i})
		}
	}
	for i, res := range results {
		if res.Note != "" && (res.Found || i == 0 && !found) {
			notes = append(notes, notePrefix(sources[i].Agent)+res.Note)
		}
	}
	slices.SortStableFunc(all, func(a, b fused) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.source, b.source))
	})
	items := make([]Item, len(all))
	for i, f := range all {
		items[i] = f.it
	}
	res := pack(items, budget, k)
	res.Found = found
	res.Note = strings.Join(notes, "; ")
	return res
}

// Cite is an item's citation as a reader sees it: its own items as they
// are ("memory:12"), a granted agent's with its name ("household/memory:12").
func Cite(agent, id string) string {
	if agent == "" {
		return id
	}
	return agent + "/" + id
}

// SplitCite is Cite undone: the agent ("" for the reader's own) and the id
// within its file.
func SplitCite(cite string) (agent, id string) {
	if a, rest, ok := strings.Cut(cite, "/"); ok {
		return a, rest
	}
	return "", cite
}

// ParseID reads an id within one file, "memory:12": its kind and a
// positive number.
func ParseID(id string) (kind string, n int64, ok bool) {
	kind, num, ok := strings.Cut(id, ":")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return kind, n, err == nil && n > 0
}

func notePrefix(agent string) string {
	if agent == "" {
		return ""
	}
	return agent + ": "
}
