// Package consolidate turns an agent's day of raw memories into one
// consolidated record and long-term facts: the nightly cycle, its leases and its runs.
package consolidate

import (
	"context"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// Fact types a key fact may have.
const (
	Preference = "preference"
	Attribute  = "attribute"
	Relation   = "relation"
	Decision   = "decision"
	Event      = "event"
)

// KeyFact is a durable claim found in a day's memories.
type KeyFact struct {
	Entity     string  `json:"entity"`
	EntityType string  `json:"entity_type,omitempty"`
	Attribute  string  `json:"attribute,omitempty"` // empty: the claim never replaces another
	Value      string  `json:"value,omitempty"`
	FactType   string  `json:"fact_type"`
	Content    string  `json:"content"`
	Confidence float64 `json:"confidence"`
	MemoryIDs  []int64 `json:"memory_ids"`
}

// Entity is an entity of the day and in how many memories it appears.
type Entity struct {
	Text  string `json:"text"`
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// Insight is a connection between memories: what links them and which they are.
type Insight struct {
	Text      string   `json:"text"`
	Entities  []string `json:"entities"`
	Topics    []string `json:"topics,omitempty"`
	MemoryIDs []int64  `json:"memory_ids"`
}

// Partial is what a consolidator makes of a chunk of memories, and what
// reducing partials makes of a whole day.
type Partial struct {
	Summary  string    `json:"summary"`
	KeyFacts []KeyFact `json:"key_facts"`
	Entities []Entity  `json:"entities"`
	Topics   []string  `json:"topics"` // most important first
	Insights []Insight `json:"insights"`
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
