package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// Consolidation is one day's summary record: layer 2.
type Consolidation struct {
	ID        int64
	Date      string // YYYY-MM-DD, local
	Summary   string
	KeyFacts  json.RawMessage
	Entities  json.RawMessage
	Topics    json.RawMessage
	Insights  json.RawMessage
	SourceIDs []int64
	Model     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Fact is a piece of long-term knowledge with provenance and a validity
// interval: layer 3.
type Fact struct {
	ID                     int64
	Entity                 string
	EntityType             string
	Attribute              string
	Value                  string
	FactType               string
	Content                string
	Confidence             float64
	SourceMemoryIDs        []int64
	SourceConsolidationIDs []int64
	ValidFrom              time.Time
	ValidTo                *time.Time
	SupersededBy           *int64
	Rejected               bool
	CreatedAt              time.Time
	LastAccessed           *time.Time
	AccessCount            int64
}

const factColumns = `id, entity, entity_type, attribute, fact_type, content, confidence,
	source_memory_ids, source_consolidation_ids, valid_from, valid_to, superseded_by, rejected,
	created_at, last_accessed, access_count, value`

func scanFact(s *sqlite3.Stmt) (Fact, error) {
	f := Fact{
		ID:          s.ColumnInt64(0),
		Entity:      s.ColumnText(1),
		EntityType:  s.ColumnText(2),
		Attribute:   s.ColumnText(3),
		FactType:    s.ColumnText(4),
		Content:     s.ColumnText(5),
		Confidence:  s.ColumnFloat(6),
		ValidFrom:   storedTime(s.ColumnInt64(9)),
		Rejected:    s.ColumnBool(12),
		CreatedAt:   storedTime(s.ColumnInt64(13)),
		AccessCount: s.ColumnInt64(15),
		Value:       s.ColumnText(16),
	}
	if err := decodeSources(s, 7, f.ID, &f.SourceMemoryIDs, &f.SourceConsolidationIDs); err != nil {
		return f, err
	}
	if s.ColumnType(10) != sqlite3.NULL {
		t := storedTime(s.ColumnInt64(10))
		f.ValidTo = &t
	}
	if s.ColumnType(11) != sqlite3.NULL {
		id := s.ColumnInt64(11)
		f.SupersededBy = &id
	}
	if s.ColumnType(14) != sqlite3.NULL {
		t := storedTime(s.ColumnInt64(14))
		f.LastAccessed = &t
	}
	return f, nil
}

// Fact outcomes: what PutFact did with a fact.
const (
	FactCreated    = "created"    // a new current fact
	FactSuperseded = "superseded" // a new current fact that replaced the current value
	FactHistorical = "historical" // a new fact already superseded by a newer current one
	FactReinforced = "reinforced" // the same claim was current: confidence raised, provenance added
	FactRejected   = "rejected"   // the same claim was rejected by the user: nothing stored
)

// FactResult says what PutFact did and with which fact.
type FactResult struct {
	ID      int64
	Outcome string
}

// ErrRejected is returned by AddFact for a claim the user has rejected.
var ErrRejected = errors.New("the user rejected this fact")

// AddFact stores a fact as PutFact does and returns its id. A claim the user
// rejected is ErrRejected.
func (a *Agent) AddFact(ctx context.Context, f Fact) (int64, error) {
	r, err := a.PutFact(ctx, f)
	if err != nil {
		return 0, err
	}
	if r.Outcome == FactRejected {
		return r.ID, fmt.Errorf("add fact about %q: %w (fact %d)", f.Entity, ErrRejected, r.ID)
	}
	return r.ID, nil
}

// PutFact stores a fact with its history:
//   - a claim matching a rejected fact (same normalised content, or same
//     entity, attribute and value) is not stored;
//   - the same claim already current is reinforced: its confidence rises a
//     little and the new provenance is added, no new row;
//   - otherwise a new row, which supersedes the current fact with the same
//     entity and attribute (when the attribute is not empty): the old one
//     gets valid_to and superseded_by and stays queryable.
func (a *Agent) PutFact(ctx context.Context, f Fact) (FactResult, error) {
	now := time.Now()
	res, err := writeValue(ctx, a, func(ctx context.Context, c *conn) (FactResult, error) { return putFact(ctx, c, f, now) })
	if err != nil {
		return FactResult{}, fmt.Errorf("add fact about %q: %w", f.Entity, err)
	}
	return res, nil
}

// normalise is the form in which two claims count as the same: lowercased
// words separated by single spaces, punctuation dropped.
func normalise(s string) string { return strings.Join(text.Words(s), " ") }

// decodeSources reads a fact row's source memory and consolidation ids, JSON
// in columns i and i+1.
func decodeSources(s *sqlite3.Stmt, i int, id int64, mems, cons *[]int64) error {
	if err := json.Unmarshal(s.ColumnRawText(i), mems); err != nil {
		return fmt.Errorf("fact %d: decode source memories: %w", id, err)
	}
	if err := json.Unmarshal(s.ColumnRawText(i+1), cons); err != nil {
		return fmt.Errorf("fact %d: decode source consolidations: %w", id, err)
	}
	return nil
}

// reinforceStep is how much of the remaining doubt one more source removes.
const reinforceStep = 0.1

// putFact stores a claim: not at all when the user rejected or forgot it;
// as more evidence for a current fact that says the same; else as a new
// fact, which supersedes the current value of its attribute or, when older,
// goes into its history.
func putFact(ctx context.Context, c *conn, f Fact, now time.Time) (FactResult, error) {
	if f.ValidFrom.IsZero() {
		f.ValidFrom = now
	}
	norm, nval := normalise(f.Content), normalise(f.Value)
	var cur []currentFact
	if !f.Rejected {
		if res, refused, err := refusedClaim(ctx, c, f, norm, nval); err != nil || refused {
			return res, err
		}
		var err error
		if cur, err = currentFacts(ctx, c, f, norm, nval); err != nil {
			return FactResult{}, err
		}
	}
	for _, x := range cur {
		if x.same {
			return reinforceFact(ctx, c, x, f)
		}
	}
	id, historical, err := insertFact(ctx, c, f, cur, now)
	switch {
	case err != nil:
		return FactResult{}, err
	case historical:
		return FactResult{ID: id, Outcome: FactHistorical}, nil
	case f.Attribute == "" || f.Rejected || len(cur) == 0:
		return FactResult{ID: id, Outcome: FactCreated}, nil
	}
	err = c.execArgs(ctx, supersedeFactsSQL, f.ValidFrom.UnixMilli(), id, f.Entity, f.Attribute, id)
	if err != nil {
		return FactResult{}, fmt.Errorf("supersede facts about %q %q: %w", f.Entity, f.Attribute, err)
	}
	return FactResult{ID: id, Outcome: FactSuperseded}, nil
}

// refusedClaim reports whether f is a claim the user rejected (the same
// words, or the same value of the same attribute), or one worded as a
// forgotten memory or fact, or the claim of a fact dropped with its
// forgotten memory: none of those is stored again.
func refusedClaim(ctx context.Context, c *conn, f Fact, norm, nval string) (FactResult, bool, error) {
	var rejected int64
	err := c.query(ctx, `SELECT id, entity, attribute, value, content FROM facts WHERE rejected = 1`, nil,
		func(s *sqlite3.Stmt) error {
			if rejected != 0 {
				return nil
			}
			sameValue := nval != "" && strings.EqualFold(s.ColumnText(1), f.Entity) &&
				s.ColumnText(2) == f.Attribute && normalise(s.ColumnText(3)) == nval
			if sameValue || normalise(s.ColumnText(4)) == norm {
				rejected = s.ColumnInt64(0)
			}
			return nil
		})
	if err != nil {
		return FactResult{}, false, fmt.Errorf("look for rejected claims: %w", err)
	}
	if rejected != 0 {
		return FactResult{ID: rejected, Outcome: FactRejected}, true, nil
	}
	if forgotten, err := isForgotten(ctx, c, f.Content); err != nil || forgotten {
		return FactResult{Outcome: FactRejected}, forgotten, err
	}
	if forgotten, err := isForgottenClaim(ctx, c, Claim{f.Entity, f.Attribute, f.Value}); err != nil || forgotten {
		return FactResult{Outcome: FactRejected}, forgotten, err
	}
	return FactResult{}, false, nil
}

// currentFact is a current fact about the claim's entity and attribute.
type currentFact struct {
	id         int64
	same       bool // says what the claim says
	confidence float64
	validFrom  int64
	srcM, srcC []int64
}

// currentFactsSQL and supersedeFactsSQL find an entity's current facts of
// one attribute, the entity in any case: by the index facts_entity, which
// compares entities case-blind so that they can (migration 14).
const (
	currentFactsSQL = `SELECT id, content, value, confidence, source_memory_ids, source_consolidation_ids, valid_from
		FROM facts WHERE entity = ? COLLATE NOCASE AND attribute = ?
		AND valid_to IS NULL AND superseded_by IS NULL AND rejected = 0`
	supersedeFactsSQL = `UPDATE facts SET valid_to = ?, superseded_by = ?
		WHERE entity = ? COLLATE NOCASE AND attribute = ? AND id != ? AND valid_to IS NULL
		AND superseded_by IS NULL AND rejected = 0`
)

func currentFacts(ctx context.Context, c *conn, f Fact, norm, nval string) ([]currentFact, error) {
	var cur []currentFact
	err := c.query(ctx, currentFactsSQL, []any{f.Entity, f.Attribute}, func(s *sqlite3.Stmt) error {
		x := currentFact{id: s.ColumnInt64(0), confidence: s.ColumnFloat(3), validFrom: s.ColumnInt64(6)}
		x.same = normalise(s.ColumnText(1)) == norm ||
			(f.Attribute != "" && nval != "" && normalise(s.ColumnText(2)) == nval)
		if err := decodeSources(s, 4, x.id, &x.srcM, &x.srcC); err != nil {
			return err
		}
		cur = append(cur, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look for current facts: %w", err)
	}
	return cur, nil
}

// reinforceFact adds f's sources to x, which says the same; new memories
// raise its confidence.
func reinforceFact(ctx context.Context, c *conn, x currentFact, f Fact) (FactResult, error) {
	srcM, addedM := union(x.srcM, f.SourceMemoryIDs)
	srcC, addedC := union(x.srcC, f.SourceConsolidationIDs)
	if !addedM && !addedC {
		return FactResult{ID: x.id, Outcome: FactReinforced}, nil
	}
	conf := x.confidence
	if addedM {
		// Only new evidence counts: re-running a day must not raise it again.
		conf = max(conf+(1-conf)*reinforceStep, f.Confidence)
	}
	bm, _ := json.Marshal(srcM)
	bc, _ := json.Marshal(srcC)
	err := c.execArgs(ctx, `UPDATE facts SET confidence = ?, source_memory_ids = ?, source_consolidation_ids = ?
		WHERE id = ?`, min(conf, 1), string(bm), string(bc), x.id)
	if err != nil {
		return FactResult{}, fmt.Errorf("reinforce fact %d: %w", x.id, err)
	}
	return FactResult{ID: x.id, Outcome: FactReinforced}, nil
}

// insertFact stores f as a new fact. A claim older than the current value
// (a past day consolidated late) goes into the history, superseded by the
// newer value, not over it: historical says so.
func insertFact(ctx context.Context, c *conn, f Fact, cur []currentFact, now time.Time) (id int64, historical bool, err error) {
	srcM, err := json.Marshal(nonNil(f.SourceMemoryIDs))
	if err != nil {
		return 0, false, err
	}
	srcC, err := json.Marshal(nonNil(f.SourceConsolidationIDs))
	if err != nil {
		return 0, false, err
	}
	var validTo, supersededBy *int64
	if f.Attribute != "" {
		for _, x := range cur {
			if x.validFrom > f.ValidFrom.UnixMilli() && (validTo == nil || x.validFrom < *validTo) {
				vf, id := x.validFrom, x.id
				validTo, supersededBy = &vf, &id
			}
		}
	}
	err = c.execArgs(ctx, `INSERT INTO facts (entity, entity_type, attribute, value, fact_type, content,
		confidence, source_memory_ids, source_consolidation_ids, valid_from, valid_to, superseded_by,
		rejected, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.Entity, f.EntityType, f.Attribute, f.Value, f.FactType, f.Content, f.Confidence,
		string(srcM), string(srcC), f.ValidFrom.UnixMilli(), validTo, supersededBy, f.Rejected, now.UnixMilli())
	if err != nil {
		return 0, false, err
	}
	return c.db.LastInsertRowID(), supersededBy != nil, nil
}

// union returns a with the ids of b it lacks appended, and whether any were.
func union(a, b []int64) ([]int64, bool) {
	out := slices.Clone(nonNil(a))
	added := false
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
			added = true
		}
	}
	return out, added
}

// RejectFact marks a fact as rejected by the user: it is never offered as
// current again, and stays stored so the same claim is recognised later; a
// new memory with its normalised content is flagged (see forget.go).
func (a *Agent) RejectFact(ctx context.Context, id int64) error {
	return a.write(ctx, func(ctx context.Context, c *conn) error {
		return rejectFact(ctx, c, id, time.Now())
	})
}

// FactFilter selects facts.
type FactFilter struct {
	Entity  string    // exact entity, case-insensitive; "" for all
	History bool      // include superseded and rejected facts
	AsOf    time.Time // facts valid at this time; zero means now
	Limit   int
}

// Facts lists facts, newest first. Without History only facts current at
// AsOf are returned: not superseded by then, not rejected.
func (a *Agent) Facts(ctx context.Context, ff FactFilter) ([]Fact, error) {
	sql := `SELECT ` + factColumns + ` FROM facts WHERE 1=1`
	var args []any
	if ff.Entity != "" {
		sql += ` AND entity = ? COLLATE NOCASE`
		args = append(args, ff.Entity)
	}
	if !ff.History {
		asOf := ff.AsOf
		if asOf.IsZero() {
			asOf = time.Now()
		}
		sql += ` AND rejected = 0 AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)`
		args = append(args, asOf.UnixMilli(), asOf.UnixMilli())
	}
	limit := ff.Limit
	if limit <= 0 {
		limit = 1000
	}
	sql += ` ORDER BY valid_from DESC, id DESC LIMIT ?`
	args = append(args, limit)
	return readRows(ctx, a, "list facts", sql, args, scanFact)
}

const consolidationColumns = `id, date, summary, key_facts, entities, topics, insights, source_ids,
	model, created_at, updated_at`

func scanConsolidation(s *sqlite3.Stmt) (Consolidation, error) {
	c := Consolidation{
		ID:        s.ColumnInt64(0),
		Date:      s.ColumnText(1),
		Summary:   s.ColumnText(2),
		KeyFacts:  json.RawMessage(s.ColumnText(3)),
		Entities:  json.RawMessage(s.ColumnText(4)),
		Topics:    json.RawMessage(s.ColumnText(5)),
		Insights:  json.RawMessage(s.ColumnText(6)),
		Model:     s.ColumnText(8),
		CreatedAt: storedTime(s.ColumnInt64(9)),
		UpdatedAt: storedTime(s.ColumnInt64(10)),
	}
	if err := json.Unmarshal(s.ColumnRawText(7), &c.SourceIDs); err != nil {
		return c, fmt.Errorf("consolidation %d: decode source ids: %w", c.ID, err)
	}
	return c, nil
}

// PutConsolidation creates or replaces the record for c.Date and marks its
// source memories consolidated by it, in one transaction. Re-running a day
// replaces its record; it never creates a second one.
func (a *Agent) PutConsolidation(ctx context.Context, c Consolidation) (int64, error) {
	now := time.Now()
	id, err := writeValue(ctx, a, func(ctx context.Context, cn *conn) (int64, error) { return putConsolidation(ctx, cn, c, now) })
	if err != nil {
		return 0, fmt.Errorf("store consolidation of %s: %w", c.Date, err)
	}
	return id, nil
}

func putConsolidation(ctx context.Context, cn *conn, c Consolidation, now time.Time) (int64, error) {
	raw := func(r json.RawMessage) string {
		if len(r) == 0 {
			return "[]"
		}
		return string(r)
	}
	src, err := json.Marshal(nonNil(c.SourceIDs))
	if err != nil {
		return 0, err
	}
	var id int64
	err = cn.query(ctx, `INSERT INTO consolidated_memories (date, summary, key_facts, entities, topics,
		insights, source_ids, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(date) DO UPDATE SET summary = excluded.summary, key_facts = excluded.key_facts,
		entities = excluded.entities, topics = excluded.topics, insights = excluded.insights,
		source_ids = excluded.source_ids, model = excluded.model, updated_at = excluded.updated_at
		RETURNING id`,
		[]any{c.Date, c.Summary, raw(c.KeyFacts), raw(c.Entities), raw(c.Topics), raw(c.Insights),
			string(src), c.Model, now.UnixMilli(), now.UnixMilli()},
		func(s *sqlite3.Stmt) error { id = s.ColumnInt64(0); return nil })
	if err != nil {
		return 0, err
	}
	// One statement for the whole day, however many memories it has.
	err = cn.execArgs(ctx, `UPDATE daily_memories SET consolidated = 1, consolidation_id = ?
		WHERE id IN (SELECT value FROM json_each(?))`, id, string(src))
	if err != nil {
		return 0, fmt.Errorf("mark memories consolidated: %w", err)
	}
	return id, nil
}

// Consolidations lists day records, newest day first.
func (a *Agent) Consolidations(ctx context.Context, since, until string, limit int) ([]Consolidation, error) {
	if limit <= 0 {
		limit = 100
	}
	sql := `SELECT ` + consolidationColumns + ` FROM consolidated_memories WHERE 1=1`
	var args []any
	if since != "" {
		sql += ` AND date >= ?`
		args = append(args, since)
	}
	if until != "" {
		sql += ` AND date <= ?`
		args = append(args, until)
	}
	sql += ` ORDER BY date DESC LIMIT ?`
	args = append(args, limit)
	return readRows(ctx, a, "list consolidations", sql, args, scanConsolidation)
}

// TouchFacts records that the facts ids were offered in answer to a
// question at at: their access_count grows by one and last_accessed is at.
// Ids that no longer exist are ignored.
func (a *Agent) TouchFacts(ctx context.Context, ids []int64, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	b, _ := json.Marshal(ids)
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		return c.execArgs(ctx, `UPDATE facts SET access_count = access_count + 1, last_accessed = ?
			WHERE id IN (SELECT value FROM json_each(?))`, at.UnixMilli(), string(b))
	})
	if err != nil {
		return fmt.Errorf("count the use of facts %v: %w", ids, err)
	}
	return nil
}
