package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/claim"
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

// PutFact stores a fact with its history, as the ledger decides
// (claim.Decide):
//   - a claim matching a rejected fact (same normalised content, or same
//     entity, attribute and value) is not stored;
//   - the same claim current, or valid at the fact's time, is reinforced:
//     its confidence rises a little and the new provenance is added, no
//     new row;
//   - otherwise a new row, which supersedes the fact of the same entity and
//     attribute valid at its time (when the attribute is not empty): the
//     old one gets valid_to and superseded_by and stays queryable. Older
//     than a newer value, it goes into the history, superseded by that.
func (a *Agent) PutFact(ctx context.Context, f Fact) (FactResult, error) {
	now := time.Now()
	res, err := writeValue(ctx, a, func(ctx context.Context, c *conn) (FactResult, error) { return putFact(ctx, c, f, now) })
	if err != nil {
		return FactResult{}, fmt.Errorf("add fact about %q: %w", f.Entity, err)
	}
	return res, nil
}

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

// putFact puts f through the ledger (putClaim): a fact's claim is its
// entity's attribute, known also by its words (content); an attribute
// holds one value at a time unless the vocabulary says it holds many
// (claim.Many: "kids", "allergies"), and a fact without attribute
// supersedes nothing. A rejected fact is stored as it is.
func putFact(ctx context.Context, c *conn, f Fact, now time.Time) (FactResult, error) {
	if f.ValidFrom.IsZero() {
		f.ValidFrom = now
	}
	p := &factPut{f: f, now: now}
	if f.Rejected {
		id, err := p.insert(ctx, c, claim.Decision{Action: claim.Insert})
		return FactResult{ID: id, Outcome: FactCreated}, err
	}
	d, id, err := putClaim(ctx, c, p)
	if err != nil {
		return FactResult{}, err
	}
	switch {
	case d.Action == claim.Refuse:
		return FactResult{ID: d.Row, Outcome: FactRejected}, nil
	case d.Action == claim.Insert && len(d.Ends) > 0:
		return FactResult{ID: id, Outcome: FactSuperseded}, nil
	}
	return FactResult{ID: id, Outcome: factOutcomes[d.Action]}, nil
}

// factOutcomes are the outcomes of the ledger's other actions for a fact.
var factOutcomes = map[claim.Action]string{claim.Reinforce: FactReinforced, claim.InsertHistory: FactHistorical, claim.Insert: FactCreated}

// factPut is a fact as the ledger's layer.
type factPut struct {
	f   Fact
	now time.Time
}

func (p *factPut) table() table { return factsTable }
func (p *factPut) claim() claim.Claim {
	return claim.Claim{Subject: p.f.Entity, Key: p.f.Attribute, Value: p.f.Value}
}
func (p *factPut) statement() claim.Statement {
	single := p.f.Attribute != "" && !claim.Many(p.f.Attribute)
	return claim.Statement{Value: p.f.Value, Words: p.f.Content, At: p.f.ValidFrom, Single: single}
}

// refused finds the rejected facts worded as f (of any entity), and
// whether f's words or claim were forgotten: none of those is stored again.
func (p *factPut) refused(ctx context.Context, c *conn) ([]claim.Row, bool, error) {
	var rows []claim.Row
	norm := claim.Normal(p.f.Content)
	err := c.query(ctx, `SELECT id, content FROM facts WHERE rejected = 1`, nil, func(s *sqlite3.Stmt) error {
		if norm != "" && claim.Normal(s.ColumnText(1)) == norm {
			rows = append(rows, claim.Row{ID: s.ColumnInt64(0), Words: s.ColumnText(1), Refused: true})
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("look for rejected claims: %w", err)
	}
	if forgotten, err := isForgotten(ctx, c, p.f.Content); err != nil || forgotten {
		return rows, forgotten, err
	}
	forgotten, err := isForgottenClaim(ctx, c, p.claim())
	return rows, forgotten, err
}

// reinforceStep is how much of the remaining doubt one more source removes.
const reinforceStep = 0.1

// reinforce adds f's sources to fact id, which says the same; new memories
// raise its confidence.
func (p *factPut) reinforce(ctx context.Context, c *conn, id int64) error {
	var conf float64
	var srcM, srcC []int64
	err := c.query(ctx, `SELECT confidence, source_memory_ids, source_consolidation_ids FROM facts WHERE id = ?`, []any{id},
		func(s *sqlite3.Stmt) error { conf = s.ColumnFloat(0); return decodeSources(s, 1, id, &srcM, &srcC) })
	if err != nil {
		return fmt.Errorf("read fact %d: %w", id, err)
	}
	srcM, addedM := union(srcM, p.f.SourceMemoryIDs)
	srcC, addedC := union(srcC, p.f.SourceConsolidationIDs)
	if !addedM && !addedC {
		return nil
	}
	if addedM {
		// Only new evidence counts: re-running a day must not raise it again.
		conf = max(conf+(1-conf)*reinforceStep, p.f.Confidence)
	}
	bm, _ := json.Marshal(srcM)
	bc, _ := json.Marshal(srcC)
	err = c.execArgs(ctx, `UPDATE facts SET confidence = ?, source_memory_ids = ?, source_consolidation_ids = ?
		WHERE id = ?`, min(conf, 1), string(bm), string(bc), id)
	if err != nil {
		return fmt.Errorf("reinforce fact %d: %w", id, err)
	}
	return nil
}

// insert stores f as a new fact where d places it.
func (p *factPut) insert(ctx context.Context, c *conn, d claim.Decision) (int64, error) {
	f := p.f
	srcM, err := json.Marshal(nonNil(f.SourceMemoryIDs))
	if err != nil {
		return 0, err
	}
	srcC, err := json.Marshal(nonNil(f.SourceConsolidationIDs))
	if err != nil {
		return 0, err
	}
	validTo, by := placement(d)
	err = c.execArgs(ctx, `INSERT INTO facts (entity, entity_type, attribute, value, fact_type, content,
		confidence, source_memory_ids, source_consolidation_ids, valid_from, valid_to, superseded_by,
		rejected, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.Entity, f.EntityType, f.Attribute, f.Value, f.FactType, f.Content, f.Confidence,
		string(srcM), string(srcC), f.ValidFrom.UnixMilli(), validTo, by, f.Rejected, p.now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("insert fact: %w", err)
	}
	return c.db.LastInsertRowID(), nil
}

// superseded: the memories behind a superseded fact are retired by the
// consolidation's commit, for the keys that hold one value
// (Commit.Retires), not here.
func (p *factPut) superseded(context.Context, *conn, int64, int64) error { return nil }

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
