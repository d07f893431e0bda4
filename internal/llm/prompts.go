package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// Record is the consolidation schema a model answers with: for one chunk
// of a day (map) or for the whole day (reduce).
type Record struct {
	Summary  string    `json:"summary"`
	KeyFacts []KeyFact `json:"key_facts"`
	Entities []Entity  `json:"entities"`
	Topics   []string  `json:"topics"`
	Insights []Insight `json:"insights"`
	// Profile is optional: an older answer, or a day stating nothing
	// durable, has none.
	Profile []ProfileEntry `json:"profile,omitempty"`
}

// KeyFact is a durable claim and the memories that state it.
type KeyFact struct {
	Entity     string  `json:"entity"`
	EntityType string  `json:"entity_type,omitempty"`
	Attribute  string  `json:"attribute,omitempty"`
	Value      string  `json:"value,omitempty"`
	FactType   string  `json:"fact_type"`
	Content    string  `json:"content"`
	Confidence float64 `json:"confidence"`
	MemoryIDs  []int64 `json:"memory_ids"`
}

// Entity is a person, place, project or thing of the day.
type Entity struct {
	Text  string `json:"text"`
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// Insight connects memories.
type Insight struct {
	Text      string   `json:"text"`
	Entities  []string `json:"entities"`
	Topics    []string `json:"topics,omitempty"`
	MemoryIDs []int64  `json:"memory_ids"`
}

// FactTypes are the fact_type values a key fact may have.
var FactTypes = []string{"preference", "attribute", "relation", "decision", "event"}

// Validate checks what the rest of Dormouse relies on and tidies what a
// model may reasonably get slightly wrong (case, confidence range).
func (r *Record) Validate() error {
	r.Summary = strings.TrimSpace(r.Summary)
	if r.Summary == "" {
		return errors.New(`"summary" is missing or empty`)
	}
	for i := range r.KeyFacts {
		k := &r.KeyFacts[i]
		k.FactType = strings.ToLower(strings.TrimSpace(k.FactType))
		switch {
		case strings.TrimSpace(k.Entity) == "":
			return fmt.Errorf(`key_facts[%d] has no "entity"`, i)
		case strings.TrimSpace(k.Content) == "":
			return fmt.Errorf(`key_facts[%d] has no "content"`, i)
		case len(k.MemoryIDs) == 0:
			return fmt.Errorf(`key_facts[%d] has no "memory_ids"; cite the ids of the memories that state it`, i)
		case !slices.Contains(FactTypes, k.FactType):
			return fmt.Errorf(`key_facts[%d] has fact_type %q; want one of %s`, i, k.FactType, strings.Join(FactTypes, ", "))
		}
		if k.Confidence <= 0 || k.Confidence > 1 {
			k.Confidence = 0.7
		}
	}
	for i, e := range r.Entities {
		if strings.TrimSpace(e.Text) == "" {
			return fmt.Errorf(`entities[%d] has no "text"`, i)
		}
	}
	for i, in := range r.Insights {
		if strings.TrimSpace(in.Text) == "" {
			return fmt.Errorf(`insights[%d] has no "text"`, i)
		}
	}
	r.Profile = wellFormed(r.Profile)
	return nil
}

// parseRecord decodes and validates a Record.
func parseRecord(dst *Record) func([]byte) error {
	return func(raw []byte) error {
		var r Record
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("the JSON does not match the schema: %v", err)
		}
		if err := r.Validate(); err != nil {
			return err
		}
		*dst = r
		return nil
	}
}

// Record asks for a Record: JSON mode, extraction from prose or fences,
// validation, and at most one repair request.
func (c *Client) Record(ctx context.Context, req Request) (Record, Usage, error) {
	var r Record
	u, err := c.JSON(ctx, req, parseRecord(&r))
	return r, u, err
}

const schema = `{
  "summary": "string: what happened this day, in a few sentences",
  "key_facts": [{
    "entity": "who or what the fact is about",
    "entity_type": "person | place | organization | project | thing | ...",
    "attribute": "the property that may later change, e.g. role, employer, favourite_food; empty if none",
    "value": "the attribute's value, e.g. team lead",
    "fact_type": "preference | attribute | relation | decision | event",
    "content": "the fact as one self-contained sentence",
    "confidence": 0.9,
    "memory_ids": [123]
  }],
  "entities": [{"text": "Alice", "type": "person", "count": 3}],
  "topics": ["most important topic first"],
  "insights": [{"text": "a connection across memories", "entities": ["Alice"], "memory_ids": [123, 456]}]`

const rules = `Rules:
- Answer with one JSON object only, exactly in this schema, no prose and no code fence.
- key_facts are durable: preferences, attributes such as roles and addresses, relations, decisions, dated events; not small talk.
- memory_ids must be ids given in the input, in [id N] form; cite every memory that states a fact.
- Use the people's own names and the input's language. Do not invent anything the input does not say.
- Empty lists are [], never null.`

var mapSystem = "You consolidate one day of an AI agent's memories, like sleep turns a day into long-term memory.\n" +
	"Schema:\n" + schema + profileSchema + "\n" + rules + "\n" + profileRules()

var reduceSystem = "You merge partial consolidations of the same day, in order, into one record for the day.\n" +
	"Keep every durable key fact (later ones win when they disagree), merge entities and add up their counts, " +
	"rank topics for the whole day, keep insights that connect memories, keep the profile statements (later ones win), and write one summary of the whole day.\n" +
	"Schema:\n" + schema + profileSchema + "\n" + rules + "\n" + profileRules()

// Note is one memory as a prompt shows it.
type Note struct {
	ID      int64
	Time    time.Time
	Role    string
	Content string
}

// NoteOverhead is what a note costs in a prompt beside its content.
const NoteOverhead = 12

// MapRequest asks for the Record of a chunk of a day's notes.
func MapRequest(day string, notes []Note) Request {
	var b strings.Builder
	fmt.Fprintf(&b, "Day: %s. Memories, oldest first:\n", day)
	writeNotes(&b, notes)
	b.WriteString("\nConsolidate these memories into the JSON record.")
	return Request{System: mapSystem, Prompt: b.String(), JSON: true}
}

// writeNotes writes notes a line each, with the ids an answer cites.
func writeNotes(b *strings.Builder, notes []Note) {
	for _, n := range notes {
		role := n.Role
		if role == "" {
			role = "note"
		}
		fmt.Fprintf(b, "[id %d] %s %s: %s\n", n.ID, n.Time.Format("15:04"), role, oneLine(n.Content))
	}
}

// ReduceRequest asks for the day's Record from the partial Records of its
// chunks, in order.
func ReduceRequest(day string, parts []Record) (Request, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Day: %s. Partial records, in order:\n", day)
	for i, p := range parts {
		j, err := json.Marshal(p)
		if err != nil {
			return Request{}, fmt.Errorf("encode partial record %d: %w", i+1, err)
		}
		fmt.Fprintf(&b, "Part %d: %s\n", i+1, j)
	}
	b.WriteString("\nMerge them into one JSON record for the day.")
	return Request{System: reduceSystem, Prompt: b.String(), JSON: true}, nil
}

// PromptOverhead is the estimated tokens of a map request without its
// notes: what a chunk's budget must leave for the instructions.
func PromptOverhead() int {
	return MapRequest("2006-01-02", nil).EstimateIn()
}

// ChunkTokens is how many tokens of notes fit in one call to this model:
// its context window less the answer, the instructions and a tenth for
// the estimate's error.
func (c *Client) ChunkTokens() int {
	n := c.cfg.ContextWindow - c.cfg.MaxTokens - PromptOverhead() - c.cfg.ContextWindow/10
	return max(n, 256)
}

// oneLine keeps a note on its line, so ids stay at line starts.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// EstimateNotes is the estimated tokens of notes in a prompt.
func EstimateNotes(notes []Note) int {
	n := 0
	for _, x := range notes {
		n += text.EstimateTokens(x.Content) + NoteOverhead
	}
	return n
}
