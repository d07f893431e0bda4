package consolidate

import (
	"context"
	"time"

	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// LLM is the consolidator that asks a model, through the LLM boundary,
// for each chunk's record and for their merge.
type LLM struct {
	Client   *llm.Client
	Location *time.Location // the times the prompt shows; nil is time.Local
}

// Provider names the model's provider.
func (l LLM) Provider() string { return l.Client.Provider() }

// Model names the model.
func (l LLM) Model() string { return l.Client.Model() }

// ChunkTokens is how many memory tokens fit in one call to the model.
func (l LLM) ChunkTokens() int { return l.Client.ChunkTokens() }

// Map asks for the record of one chunk.
func (l LLM) Map(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
	rec, u, err := l.Client.Record(ctx, llm.MapRequest(day, l.notes(mems)))
	return fromRecord(rec), usage(u), err
}

// Reduce asks for the day's record from its chunks' records. Partials that
// would not fit in one call together are merged in groups first.
func (l LLM) Reduce(ctx context.Context, day string, parts []Partial) (Partial, Usage, error) {
	var total Usage
	recs := make([]llm.Record, len(parts))
	for i, p := range parts {
		recs[i] = toRecord(p)
	}
	for len(recs) > 1 {
		groups := l.groups(day, recs)
		next := make([]llm.Record, 0, len(groups))
		for _, g := range groups {
			if len(g) == 1 {
				next = append(next, g[0])
				continue
			}
			req, err := llm.ReduceRequest(day, g)
			if err != nil {
				return Partial{}, total, err
			}
			rec, u, err := l.Client.Record(ctx, req)
			total.add(usage(u))
			if err != nil {
				return Partial{}, total, err
			}
			next = append(next, rec)
		}
		if len(next) == len(recs) { // nothing fits with anything: merge them all and hope
			req, err := llm.ReduceRequest(day, recs)
			if err != nil {
				return Partial{}, total, err
			}
			rec, u, err := l.Client.Record(ctx, req)
			total.add(usage(u))
			return fromRecord(rec), total, err
		}
		recs = next
	}
	return fromRecord(recs[0]), total, nil
}

// groups cuts records, in order, into runs whose merge request fits the
// model's context beside its answer.
func (l LLM) groups(day string, recs []llm.Record) [][]llm.Record {
	budget := l.Client.ContextWindow() - l.Client.MaxTokens()
	var out [][]llm.Record
	start := 0
	for i := range recs {
		if i > start {
			req, err := llm.ReduceRequest(day, recs[start:i+1])
			if err == nil && req.EstimateIn() > budget {
				out = append(out, recs[start:i])
				start = i
			}
		}
	}
	return append(out, recs[start:])
}

// Estimate is the plan's cost of a day cut into chunks: model calls, and
// tokens in and out, by the estimator calls are charged with when a
// provider reports no usage.
func (l LLM) Estimate(day string, chunks [][]store.Memory) (calls, tokens int) {
	outs := 0
	for _, c := range chunks {
		in := llm.MapRequest(day, l.notes(c)).EstimateIn()
		out := min(l.Client.MaxTokens(), in/3+64)
		calls++
		tokens += in + out
		outs += out
	}
	if len(chunks) > 1 {
		in := llm.PromptOverhead() + outs
		calls++
		tokens += in + min(l.Client.MaxTokens(), outs)
	}
	return calls, tokens
}

func (l LLM) notes(mems []store.Memory) []llm.Note {
	loc := l.Location
	if loc == nil {
		loc = time.Local
	}
	out := make([]llm.Note, len(mems))
	for i, m := range mems {
		out[i] = llm.Note{ID: m.ID, Time: m.Timestamp.In(loc), Role: m.Role, Content: m.Content}
	}
	return out
}

func usage(u llm.Usage) Usage {
	return Usage{Calls: u.Calls, TokensIn: u.TokensIn, TokensOut: u.TokensOut}
}

// A Partial and the model's Record share their parts' types; these copy
// between the two (empty lists are nil in a Partial, [] in a prompt).

func fromRecord(r llm.Record) Partial {
	return Partial{
		Summary:  r.Summary,
		Topics:   r.Topics,
		KeyFacts: append([]KeyFact(nil), r.KeyFacts...),
		Entities: append([]Entity(nil), r.Entities...),
		Insights: append([]Insight(nil), r.Insights...),
		Profile:  append([]llm.ProfileEntry(nil), r.Profile...),
	}
}

func toRecord(p Partial) llm.Record {
	return llm.Record{
		Summary:  p.Summary,
		Topics:   nonNil(p.Topics),
		KeyFacts: append(make([]KeyFact, 0, len(p.KeyFacts)), p.KeyFacts...),
		Entities: append(make([]Entity, 0, len(p.Entities)), p.Entities...),
		Insights: append(make([]Insight, 0, len(p.Insights)), p.Insights...),
		Profile:  p.Profile,
	}
}
