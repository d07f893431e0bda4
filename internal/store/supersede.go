package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Superseded memories: when a fact of an attribute that holds one value
// (the phone, the address) is superseded, the memories that stated the old
// value name the memory that stated the new one (superseded_by). They are
// kept, listed and shown with their successor, and recall offers them as
// current only to a question asked before the successor was said.

// retireStatedValues marks superseded the memories behind the facts that r
// (the outcome of storing a fact) made history of: the facts it superseded,
// or the fact itself when it went into the history of a newer one.
func retireStatedValues(ctx context.Context, c *conn, r FactResult) error {
	var old, successor string
	switch r.Outcome {
	case FactSuperseded:
		old, successor = `SELECT id FROM facts WHERE superseded_by = ?1`, `?1`
	case FactHistorical:
		old, successor = `SELECT ?1`, `(SELECT superseded_by FROM facts WHERE id = ?1)`
	default:
		return nil
	}
	facts := `SELECT j.value FROM facts f, json_each(f.source_memory_ids) j WHERE f.id `
	if err := retireMemories(ctx, c, facts+`IN (`+old+`)`, facts+`= (`+successor+`)`, r.ID); err != nil {
		return fmt.Errorf("mark the memories fact %d made history of superseded: %w", r.ID, err)
	}
	return nil
}

// retireLineMemories marks superseded the memories behind profile line old
// that line by (a newer value of its claim) replaced, as retireStatedValues
// does for facts: "I'm a junior designer at Pixelworks" once "I got
// promoted to lead designer" wrote the newer title line.
func retireLineMemories(ctx context.Context, c *conn, old, by int64) error {
	lines := `SELECT j.value FROM profile_lines l, json_each(l.source_memory_ids) j WHERE l.id = `
	if err := retireMemories(ctx, c, lines+`?1`, lines+`?2`, old, by); err != nil {
		return fmt.Errorf("mark the memories of profile line %d superseded: %w", old, err)
	}
	return nil
}

// retireMemories marks the memories oldIDs selects superseded by the
// earliest memory newIDs selects, those said before it: a memory stating
// both (a "from X to Y") states the new value and stays current.
func retireMemories(ctx context.Context, c *conn, oldIDs, newIDs string, args ...any) error {
	return c.execArgs(ctx, `WITH
		news(id) AS (`+newIDs+`),
		first(id, ts) AS (SELECT m.id, m.ts FROM daily_memories m WHERE m.id IN (SELECT id FROM news) ORDER BY m.ts, m.id LIMIT 1)
		UPDATE daily_memories SET superseded_by = (SELECT id FROM first)
		WHERE superseded_by IS NULL
		AND id IN (`+oldIDs+`)
		AND id NOT IN (SELECT id FROM news)
		AND ts < (SELECT ts FROM first)`, args...)
}

// supersededFilter leaves out of a query over daily_memories m the memories
// whose successor was said by until (zero: now): past questions still see
// what was current then.
func supersededFilter(sql string, args []any, until time.Time) (string, []any) {
	sql += ` AND (m.superseded_by IS NULL OR NOT EXISTS (SELECT 1 FROM daily_memories n WHERE n.id = m.superseded_by AND n.ts <= ?))`
	return sql, append(args, successorBound(until))
}

// withoutSuperseded leaves out of a query over memories_fts the memories
// whose successor was said by until (zero: now), found by the partial
// index, so the full-text index alone still answers the rest.
func withoutSuperseded(sql string, args []any, until time.Time) (string, []any) {
	sql += ` AND rowid NOT IN (SELECT m.id FROM daily_memories m WHERE m.superseded_by IS NOT NULL` +
		` AND EXISTS (SELECT 1 FROM daily_memories n WHERE n.id = m.superseded_by AND n.ts <= ?))`
	return sql, append(args, successorBound(until))
}

// successorBound is the time a successor must be said by to retire what it
// superseded: until, or any time when until is zero.
func successorBound(until time.Time) int64 {
	if until.IsZero() {
		return math.MaxInt64
	}
	return until.UnixMilli()
}

// SupersededValues returns the values that facts stated by the given
// memories held before a newer value superseded them, for the memories
// superseded by as_of: the stale values a day record made of those
// memories may still state. by are the memories that superseded them: they
// say what is true now, and may name an ended value to end it ("not
// allergic to naproxen after all"). Cheap when none is superseded (by
// primary key).
func (a *Agent) SupersededValues(ctx context.Context, memoryIDs []int64, asOf time.Time) (values []string, by []int64, err error) {
	if len(memoryIDs) == 0 {
		return nil, nil, nil
	}
	ids, err := json.Marshal(memoryIDs)
	if err != nil {
		return nil, nil, err
	}
	at := successorBound(asOf)
	type pair struct{ old, by int64 }
	olds, err := readRows(ctx, a, "superseded memories", `SELECT m.id, m.superseded_by FROM daily_memories m
		WHERE m.id IN (SELECT value FROM json_each(?1)) AND m.superseded_by IS NOT NULL
		AND EXISTS (SELECT 1 FROM daily_memories n WHERE n.id = m.superseded_by AND n.ts <= ?2)`,
		[]any{string(ids), at}, func(s *sqlite3.Stmt) (pair, error) { return pair{s.ColumnInt64(0), s.ColumnInt64(1)}, nil })
	if err != nil || len(olds) == 0 {
		return nil, nil, err
	}
	old := make([]int64, len(olds))
	for i, p := range olds {
		old[i] = p.old
		by = append(by, p.by)
	}
	oldIDs, err := json.Marshal(old)
	if err != nil {
		return nil, nil, err
	}
	values, err = readRows(ctx, a, "superseded values", `SELECT DISTINCT f.value FROM facts f
		WHERE f.valid_to IS NOT NULL AND f.valid_to <= ?2 AND f.rejected = 0 AND f.value != ''
		AND EXISTS (SELECT 1 FROM json_each(f.source_memory_ids) j WHERE j.value IN (SELECT value FROM json_each(?1)))`,
		[]any{string(oldIDs), at}, func(s *sqlite3.Stmt) (string, error) { return s.ColumnText(0), nil })
	return values, by, err
}

// rekeyFacts names the attribute of every fact as key says (facts stored
// before the claim keys: "phone number" is now the phone), and where that
// leaves an entity with several current values of one attribute, the newest
// supersedes the others (history kept). Facts already keyed are left alone.
func rekeyFacts(ctx context.Context, c *conn, key func(attribute, value string) string) error {
	type rekey struct {
		id   int64
		attr string
	}
	var todo []rekey
	err := c.query(ctx, `SELECT id, attribute, value FROM facts WHERE attribute != ''`, nil, func(s *sqlite3.Stmt) error {
		if k := key(s.ColumnText(1), s.ColumnText(2)); k != s.ColumnText(1) {
			todo = append(todo, rekey{s.ColumnInt64(0), k})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read fact attributes: %w", err)
	}
	attrs := map[string]bool{}
	for _, r := range todo {
		if err := c.execArgs(ctx, `UPDATE facts SET attribute = ? WHERE id = ?`, r.attr, r.id); err != nil {
			return fmt.Errorf("rekey fact %d: %w", r.id, err)
		}
		attrs[r.attr] = true
	}
	for attr := range attrs {
		err := c.execArgs(ctx, `UPDATE facts SET superseded_by = n.id, valid_to = n.valid_from
			FROM (SELECT id, lower(entity) AS entity, valid_from, row_number() OVER
				(PARTITION BY lower(entity) ORDER BY valid_from DESC, id DESC) AS rn
				FROM facts WHERE attribute = ?1 AND valid_to IS NULL AND superseded_by IS NULL AND rejected = 0) n
			WHERE n.rn = 1 AND lower(facts.entity) = n.entity AND facts.attribute = ?1 AND facts.id != n.id
			AND facts.valid_to IS NULL AND facts.superseded_by IS NULL AND facts.rejected = 0`, attr)
		if err != nil {
			return fmt.Errorf("supersede rekeyed facts of %q: %w", attr, err)
		}
	}
	return nil
}

// forgetSuccessor makes current again the memories the forgotten memory id
// had superseded: what replaced their value is gone.
func forgetSuccessor(ctx context.Context, c *conn, id int64) error {
	if err := c.execArgs(ctx, `UPDATE daily_memories SET superseded_by = NULL WHERE superseded_by = ?`, id); err != nil {
		return fmt.Errorf("memories superseded by memory %d: %w", id, err)
	}
	return nil
}

// Replaced is a superseded memory a search matched and the memory that was
// current in its place by the search's Until.
type Replaced struct {
	Old, New MemoryHit
}

// maxReplaced bounds the superseded memories one search matches, and
// successorHops the chain followed from each to the current value.
const maxReplaced, successorHops = 20, 8

// replacedSQL selects the superseded memories matching ?2 whose successor
// was said by ?1, newest first. INDEXED BY: without it the planner walked
// every memory newest first to spare a sort, matching each by rowid (five
// times the cost of a whole recall at 100,000 memories).
// The kinds index (o.Kinds) is matched instead of the words by
// replacedKindsSQL.
const (
	replacedSQL      = replacedHead + `memories_fts WHERE memories_fts MATCH ?2 AND memories_fts.rowid = m.id)` + replacedTail
	replacedKindsSQL = replacedHead + `memory_kinds WHERE memory_kinds MATCH ?2 AND memory_kinds.rowid = m.id)` + replacedTail
	replacedHead     = `SELECT ` + memoryHitColumns + `, 0, m.superseded_by
		FROM daily_memories m INDEXED BY daily_memories_superseded
		WHERE m.superseded_by IS NOT NULL AND m.flagged = 0 AND m.retired_at IS NULL
		AND EXISTS (SELECT 1 FROM daily_memories n WHERE n.id = m.superseded_by AND n.ts <= ?1)
		AND EXISTS (SELECT 1 FROM `
	replacedTail = `
		ORDER BY m.ts DESC LIMIT ?3`
)

// ReplacedMatching returns the superseded memories holding any of o.Terms
// (with o.Kinds, indexed under any of them as kinds) whose successor was
// said by o.Until, each with what replaced it then (the end of its chain),
// within o's filters: "use it for the grocery deliveries" said with the old
// address finds the new address, which names no groceries. The superseded are few (a partial index), so each is
// matched by its rowid rather than the terms' whole posting lists.
func (a *Agent) ReplacedMatching(ctx context.Context, o SearchOptions) ([]Replaced, error) {
	if len(o.Terms) == 0 {
		return nil, nil
	}
	at := successorBound(o.Until)
	type old struct {
		hit MemoryHit
		by  int64
	}
	sql := replacedSQL
	if o.Kinds {
		sql = replacedKindsSQL
	}
	olds, err := readRows(ctx, a, "superseded memories matching", sql, []any{at, matchAny(o.Terms), maxReplaced},
		func(s *sqlite3.Stmt) (old, error) {
			h, err := scanMemoryHit(s)
			return old{h, s.ColumnInt64(memoryHitScore + 1)}, err
		})
	if err != nil || len(olds) == 0 {
		return nil, err
	}
	curs := make([]int64, len(olds))
	for i, o1 := range olds {
		if curs[i], err = a.currentSuccessor(ctx, o1.by, at); err != nil {
			return nil, err
		}
	}
	hits, err := a.MemoryHits(ctx, curs, o) // one read for all: within o's filters
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]MemoryHit, len(hits))
	for _, h := range hits {
		byID[h.ID] = h
	}
	var out []Replaced
	for i, o1 := range olds {
		if h, ok := byID[curs[i]]; ok {
			out = append(out, Replaced{Old: o1.hit, New: h})
		}
	}
	return out, nil
}

// currentSuccessor follows the superseded_by chain from id while the next
// successor was said by at (successorBound).
func (a *Agent) currentSuccessor(ctx context.Context, id, at int64) (int64, error) {
	for range successorHops {
		next, err := readRows(ctx, a, "successor", `SELECT n.id FROM daily_memories m JOIN daily_memories n
			ON n.id = m.superseded_by WHERE m.id = ? AND n.ts <= ?`, []any{id, at},
			func(s *sqlite3.Stmt) (int64, error) { return s.ColumnInt64(0), nil })
		if err != nil || len(next) == 0 {
			return id, err
		}
		id = next[0]
	}
	return id, nil
}
