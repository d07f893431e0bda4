// Package consolidate turns an agent's day of raw memories into one
// consolidated record and long-term facts: the nightly cycle, its leases and its runs.
package consolidate

import (
	"context"

	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// The record's parts share their shape with the model's answer, which the
// LLM boundary validates: one definition, in internal/llm.
type (
	// KeyFact is a durable claim found in a day's memories; an empty
	// Attribute means the claim never replaces another.
	KeyFact = llm.KeyFact
	// Entity is an entity of the day and in how many memories it appears.
	Entity = llm.Entity
	// Insight is a connection between memories: what links them and which
	// they are.
	Insight = llm.Insight
)

// Partial is what a consolidator makes of a chunk of memories, and what
// reducing partials makes of a whole day.
type Partial struct {
	Summary  string    `json:"summary"`
	KeyFacts []KeyFact `json:"key_facts"`
	Entities []Entity  `json:"entities"`
	Topics   []string  `json:"topics"` // most important first
	Insights []Insight `json:"insights"`
	// Profile is what a model offered for the profile (the offline
	// consolidator builds its lines from the memories themselves).
	Profile []llm.ProfileEntry `json:"profile,omitempty"`
}

// Usage is what calls to a model cost.
type Usage struct {
	Calls     int `json:"calls"`
	TokensIn  int `json:"tokens_in"`
	TokensOut int `json:"tokens_out"`
}

func (u *Usage) add(v Usage) {
	u.Calls += v.Calls
	u.TokensIn += v.TokensIn
	u.TokensOut += v.TokensOut
}

// Consolidator maps a chunk of a day's memories to a partial record and
// reduces partials into the day's record: the offline extractor here, a
// model behind the LLM boundary later.
type Consolidator interface {
	Provider() string
	Model() string
	Map(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error)
	Reduce(ctx context.Context, day string, parts []Partial) (Partial, Usage, error)
}
