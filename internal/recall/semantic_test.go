package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// bow is a deterministic stand-in for an embedding model, for the ranker's
// tests: a bag of words hashed into 256 dimensions, where the words of a
// group (made-up synonyms) share a dimension and weigh three. The daemon's
// end-to-end test serves the same model over Ollama's wire format.
type bow struct {
	model string
	err   error
	calls int
}

var bowGroups = map[string]string{"glorp": "g1", "snazzle": "g1", "quib": "g2", "fendle": "g2"}

var bowStop = map[string]bool{"the": true, "where": true, "did": true, "and": true, "was": true, "what": true, "who": true}

func bowVector(text string) []float32 {
	v := make([]float32, 256)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) < 3 || bowStop[w] {
			continue
		}
		weight := float32(1)
		if g, ok := bowGroups[w]; ok {
			w, weight = g, 3
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%256] += weight
	}
	return v
}

func (b *bow) Model() string { return b.model }

func (b *bow) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	b.calls++
	if b.err != nil {
		return nil, b.err
	}
	return bowVector(text), nil
}

func embedAll(t *testing.T, a *store.Agent, model string) {
	t.Helper()
	todo, err := a.Unembedded(t.Context(), model, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var put []store.MemoryVector
	for _, m := range todo {
		if v := bowVector(m.Text); anyNonZero(v) {
			put = append(put, store.MemoryVector{ID: m.ID, Vec: v})
		}
	}
	if err := a.PutEmbeddings(t.Context(), model, put); err != nil {
		t.Fatal(err)
	}
}

func anyNonZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

var semanticTurns = []turn{
	{day0, "s1", "Alice", "The glorp quib sits under the stairs.", nil},
	{day0.Add(time.Minute), "s1", "Bob", "We drove to Chicago on Friday.", nil},
	{day0.Add(2 * time.Minute), "s1", "Alice", "Bob likes green tea in the morning.", nil},
}

func TestSemanticArmFindsWhatTheWordsMiss(t *testing.T) {
	a := agentWith(t, semanticTurns)
	embedAll(t, a, "bow")
	asOf := day0.Add(time.Hour)
	q := Query{Text: "Where did the snazzle fendle go?", AsOf: asOf, Explain: true}

	off := &Engine{}
	res, err := off.Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || len(res.Items) != 0 {
		t.Fatalf("without the arm: %+v, want nothing found (no word in common)", res)
	}

	emb := &bow{model: "bow"}
	on := &Engine{Semantic: emb}
	res, err = on.Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) != 1 || res.Items[0].ID != "memory:1" {
		t.Fatalf("with the arm: %+v, want memory:1 alone", res)
	}
	if x := res.Items[0].Explain; x == nil || x.Semantic <= 0.5 || math.Abs(x.Total-(DefaultSemantic*x.Semantic+
		DefaultTuning.Coverage*x.Coverage+DefaultTuning.Importance*x.Importance+DefaultTuning.Recency*x.Recency+
		DefaultTuning.Informative*x.Informative)) > 1e-3 {
		t.Errorf("explain = %+v, want a semantic part above 0.5 making up the total", x)
	}
	if emb.calls != 1 {
		t.Errorf("the question was embedded %d times, want once", emb.calls)
	}

	// The configured weight applies.
	heavy := &Engine{Semantic: emb, Tuning: DefaultTuning}
	heavy.Tuning.Semantic = 2
	res2, err := heavy.Recall(t.Context(), a, q)
	if err != nil || len(res2.Items) != 1 || res2.Items[0].Score <= res.Items[0].Score {
		t.Errorf("weight 2: %+v, %v; want the same item scored higher than at %g (%g)", res2, err, DefaultSemantic, res.Items[0].Score)
	}
}

// With the arm unavailable (no vectors of the model, the provider failing),
// recall is exactly what it is without it.
func TestSemanticArmOffIsIdentical(t *testing.T) {
	a := agentWith(t, append(append([]turn(nil), conversation...), semanticTurns...))
	asOf := day0.Add(72 * time.Hour)
	queries := []string{"pottery bowl", "What made Alice start counseling?", "Where did the snazzle fendle go?",
		"what did Bob make for his mother", "Chicago trip"}
	recall := func(e *Engine) string {
		var out []Result
		for _, text := range queries {
			res, err := e.Recall(t.Context(), a, Query{Text: text, AsOf: asOf, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	want := recall(&Engine{})

	noVectors := &bow{model: "bow"}
	if got := recall(&Engine{Semantic: noVectors}); got != want {
		t.Errorf("with no vectors stored, recall differs:\n got %s\nwant %s", got, want)
	}
	if noVectors.calls != 0 {
		t.Errorf("with no vectors stored, the question was embedded %d times, want never", noVectors.calls)
	}
	embedAll(t, a, "bow")
	otherModel := &bow{model: "another"}
	if got := recall(&Engine{Semantic: otherModel}); got != want || otherModel.calls != 0 {
		t.Errorf("with another model's vectors only, recall differs or embeds (%d calls)", otherModel.calls)
	}
	down := &bow{model: "bow", err: errors.New("the LLM provider is unavailable: ollama could not be reached")}
	if got := recall(&Engine{Semantic: down}); got != want {
		t.Errorf("with the provider down, recall differs:\n got %s\nwant %s", got, want)
	}
	if down.calls != len(queries) {
		t.Errorf("with the provider down, %d embedding attempts, want one per question (%d)", down.calls, len(queries))
	}
}

func TestSemanticArmHonoursFilters(t *testing.T) {
	a := agentWith(t, semanticTurns)
	embedAll(t, a, "bow")
	e := &Engine{Semantic: &bow{model: "bow"}}
	// Before the memory was stored, and in another session, it is not offered.
	for _, q := range []Query{
		{Text: "Where did the snazzle fendle go?", AsOf: day0.Add(-time.Hour)},
		{Text: "Where did the snazzle fendle go?", AsOf: day0.Add(time.Hour), Session: "s2"},
		{Text: "Where did the snazzle fendle go?", AsOf: day0.Add(time.Hour), Role: "Bob"},
	} {
		res, err := e.Recall(t.Context(), a, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range res.Items {
			if it.ID == "memory:1" {
				t.Errorf("%+v: offered memory:1 outside the filters", q)
			}
		}
	}
}

// fixedQuery embeds every question as the same vector.
type fixedQuery []float32

func (f fixedQuery) Model() string { return "bench" }

func (f fixedQuery) EmbedQuery(context.Context, string) ([]float32, error) {
	return append([]float32(nil), f...), nil
}

// BenchmarkSemanticRecall: what the arm adds to a recall over 5,000
// memories with 768-number vectors (nomic-embed-text's size), the model's
// own time aside.
func BenchmarkSemanticRecall(b *testing.B) {
	const n, dim = 5000, 768
	a := memAgent(b, nil)
	words := []string{"pottery", "hiking", "Chicago", "tea", "report", "budget", "glorp", "cabin", "counseling", "bowl"}
	mems := make([]store.Memory, n)
	for i := range mems {
		mems[i] = store.Memory{Content: fmt.Sprintf("memory %d about %s and %s", i, words[i%10], words[(i/10)%10]),
			Timestamp: day0.Add(time.Duration(i) * time.Minute), Importance: 0.5, ContentHash: fmt.Sprint(i)}
	}
	ins, err := a.Insert(b.Context(), mems)
	if err != nil {
		b.Fatal(err)
	}
	rng := uint32(1)
	next := func() float32 { rng = rng*1664525 + 1013904223; return float32(rng>>8)/float32(1<<24) - 0.5 }
	vecs := make([]store.MemoryVector, n)
	for i, m := range ins {
		v := make([]float32, dim)
		for j := range v {
			v[j] = next()
		}
		vecs[i] = store.MemoryVector{ID: m.ID, Vec: v}
	}
	if err := a.PutEmbeddings(b.Context(), "bench", vecs); err != nil {
		b.Fatal(err)
	}
	q := make(fixedQuery, dim)
	for j := range q {
		q[j] = next()
	}
	for _, arm := range []struct {
		name string
		e    *Engine
	}{{"off", &Engine{}}, {"on", &Engine{Semantic: q}}} {
		b.Run(arm.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := arm.e.Recall(b.Context(), a, Query{Text: "what did I say about pottery and tea?", AsOf: day0.Add(100 * 24 * time.Hour)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
