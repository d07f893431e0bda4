package recall

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// The optional semantic arm: when the engine has a QueryEmbedder and the
// agent's memories have vectors of its model, the question is embedded once
// and each memory candidate's cosine similarity to it joins the score
// (Explain.Semantic, weighed by Tuning.Semantic). The newest
// SemanticScan vectors are compared too, and the best SemanticCands of
// them that the words missed become candidates: "is there any medicine I
// should avoid?" finds "I am allergic to penicillin". Any failure (the
// provider down, slow or lying) leaves the arm out of that recall, which
// goes on with the words alone.

// QueryEmbedder turns a question into a vector of the model the memories'
// vectors were made with; internal/embed.Query provides one.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
	Model() string
}

// VectorSearcher is what the semantic arm needs of an agent's storage; a
// *store.Agent provides it.
type VectorSearcher interface {
	HasEmbeddings(ctx context.Context, model string) (bool, error)
	Embeddings(ctx context.Context, model string, ids []int64) (map[int64][]float32, error)
	RecentEmbeddings(ctx context.Context, model string, o store.SearchOptions, limit int) ([]store.MemoryVector, error)
	MemoryHits(ctx context.Context, ids []int64, o store.SearchOptions) ([]store.MemoryHit, error)
}

// Defaults of the semantic arm.
const (
	// DefaultSemantic is the weight of similarity when the arm is on and the
	// tuning names none.
	DefaultSemantic = 0.3
	// DefaultMinSimilarity: cosine similarity below this counts as none;
	// above it, Explain.Semantic rises from 0 to 1 at a similarity of 1.
	DefaultMinSimilarity = 0.5
	// SemanticScan is how many of the newest vectors are compared with the
	// question to find what the words missed.
	SemanticScan = 2000
	// SemanticCands is how many of those become candidates at most.
	SemanticCands = 20
)

// semantic adds the arm's part to the candidates, and candidates of its
// own; it reports whether it ran. Errors of the provider are not errors of
// recall: the arm is skipped.
func (e *Engine) semantic(ctx context.Context, s Searcher, qtext string, base store.SearchOptions,
	cands map[string]*cand, get func(store.Hit) *cand, t Tuning) error {
	vs, ok := s.(VectorSearcher)
	if e.Semantic == nil || !ok || t.Semantic <= 0 {
		return nil
	}
	model := e.Semantic.Model()
	has, err := vs.HasEmbeddings(ctx, model)
	if err != nil || !has {
		return err
	}
	q, err := e.Semantic.EmbedQuery(ctx, qtext)
	if err != nil || len(q) == 0 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // the provider failed: the words alone answer
	}
	if !unit(q) {
		return nil // a vector without direction compares with nothing
	}
	floor := t.MinSimilarity
	if floor <= 0 {
		floor = DefaultMinSimilarity
	}
	part := func(cos float64) float64 { return math.Max(0, (cos-floor)/(1-floor)) }

	// What the words missed: the most similar of the newest vectors.
	recent, err := vs.RecentEmbeddings(ctx, model, base, SemanticScan)
	if err != nil {
		return err
	}
	sims := make(map[int64]float64, len(recent))
	type scored struct {
		id  int64
		cos float64
	}
	var best []scored
	for _, v := range recent {
		if len(v.Vec) != len(q) {
			continue // another model's size: not comparable
		}
		cos := dot(q, v.Vec)
		sims[v.ID] = cos
		if cos > floor {
			best = append(best, scored{v.ID, cos})
		}
	}
	sort.Slice(best, func(i, j int) bool {
		if best[i].cos != best[j].cos {
			return best[i].cos > best[j].cos
		}
		return best[i].id > best[j].id
	})
	var missing []int64
	for _, b := range best[:min(len(best), SemanticCands)] {
		if cands[fmt.Sprintf("memory:%d", b.id)] == nil {
			missing = append(missing, b.id)
		}
	}
	if len(missing) > 0 {
		hits, err := vs.MemoryHits(ctx, missing, base)
		if err != nil {
			return err
		}
		for _, h := range hits {
			c := get(h.Hit)
			c.entities = h.Entities
		}
	}

	// The candidates' similarity, reading the vectors the scan did not.
	var unseen []int64
	for _, c := range cands {
		if c.hit.Kind == "memory" {
			if _, ok := sims[c.hit.ID]; !ok {
				unseen = append(unseen, c.hit.ID)
			}
		}
	}
	if len(unseen) > 0 {
		vecs, err := vs.Embeddings(ctx, model, unseen)
		if err != nil {
			return err
		}
		for id, v := range vecs {
			if len(v) == len(q) {
				sims[id] = dot(q, v)
			}
		}
	}
	for _, c := range cands {
		if c.hit.Kind == "memory" {
			c.ex.Semantic = part(sims[c.hit.ID])
		}
	}
	return nil
}

// unit scales v to length 1 (stored vectors already are); false when it
// has no length to scale.
func unit(v []float32) bool {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n = math.Sqrt(n); n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return false
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return true
}

func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
