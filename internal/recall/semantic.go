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

// arm is the semantic arm for one question: its vector and where to
// compare it.
type arm struct {
	vs    VectorSearcher
	model string
	q     []float32
	floor float64 // similarity below this counts as none
}

// part is the arm's part of the score for a cosine similarity.
func (a arm) part(cos float64) float64 { return math.Max(0, (cos-a.floor)/(1-a.floor)) }

// semanticArm adds the arm's part to the candidates, and candidates of its
// own. Errors of the provider are not errors of recall: the arm is skipped.
func (r *ranker) semanticArm(ctx context.Context) error {
	vs, ok := r.s.(VectorSearcher)
	if !r.lexical() || r.e.Semantic == nil || !ok || r.t.Semantic <= 0 {
		return nil
	}
	a := arm{vs: vs, model: r.e.Semantic.Model(), floor: r.t.MinSimilarity}
	if a.floor <= 0 {
		a.floor = DefaultMinSimilarity
	}
	has, err := vs.HasEmbeddings(ctx, a.model)
	if err != nil || !has {
		return err
	}
	a.q, err = r.e.Semantic.EmbedQuery(ctx, r.q.Text)
	if err != nil || len(a.q) == 0 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // the provider failed: the words alone answer
	}
	if !unit(a.q) {
		return nil // a vector without direction compares with nothing
	}
	sims, err := r.semanticMissed(ctx, a)
	if err != nil {
		return err
	}
	return r.similarity(ctx, a, sims)
}

// semanticMissed makes candidates of what the words missed: the most
// similar of the newest vectors. It returns the similarities it computed.
func (r *ranker) semanticMissed(ctx context.Context, a arm) (map[int64]float64, error) {
	recent, err := a.vs.RecentEmbeddings(ctx, a.model, r.base, SemanticScan)
	if err != nil {
		return nil, err
	}
	sims := make(map[int64]float64, len(recent))
	type scored struct {
		id  int64
		cos float64
	}
	var best []scored
	for _, v := range recent {
		if len(v.Vec) != len(a.q) {
			continue // another model's size: not comparable
		}
		cos := dot(a.q, v.Vec)
		sims[v.ID] = cos
		if cos > a.floor {
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
		if r.cands[fmt.Sprintf("memory:%d", b.id)] == nil {
			missing = append(missing, b.id)
		}
	}
	if len(missing) == 0 {
		return sims, nil
	}
	hits, err := a.vs.MemoryHits(ctx, missing, r.base)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		r.get(h.Hit).entities = h.Entities
	}
	return sims, nil
}

// similarity sets the memory candidates' semantic part, reading the
// vectors the scan did not.
func (r *ranker) similarity(ctx context.Context, a arm, sims map[int64]float64) error {
	var unseen []int64
	for _, c := range r.cands {
		if _, ok := sims[c.hit.ID]; c.hit.Kind == "memory" && !ok {
			unseen = append(unseen, c.hit.ID)
		}
	}
	if len(unseen) > 0 {
		vecs, err := a.vs.Embeddings(ctx, a.model, unseen)
		if err != nil {
			return err
		}
		for id, v := range vecs {
			if len(v) == len(a.q) {
				sims[id] = dot(a.q, v)
			}
		}
	}
	for _, c := range r.cands {
		if c.hit.Kind == "memory" {
			c.ex.Semantic = a.part(sims[c.hit.ID])
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
