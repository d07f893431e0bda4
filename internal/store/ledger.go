package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// The one put path of claims. Facts and profile lines are two layers of
// one ledger: a claim (a subject's key) has a history of rows, and what a
// new statement does to it is claim.Decide's decision. putClaim reads the
// history from the layer's table, asks for the decision and carries it
// out; a layer says only how its rows are refused outside the history,
// reinforced and inserted. RetireClaim ends a claim in both layers with no
// successor.

// table is where a layer keeps its rows: the columns the ledger reads.
// Both tables share value, valid_from, valid_to and superseded_by.
type table struct {
	name, subject, key string
	words              string // the column a claim is also known by, or '' for none
	refused            string // the column that says the user refused the row
}

var (
	factsTable = table{name: "facts", subject: "entity", key: "attribute", words: "content", refused: "rejected"}
	linesTable = table{name: "profile_lines", subject: "subject", key: "key", words: "''", refused: "removed"}
)

// layer is one statement to put, in its layer's terms.
type layer interface {
	table() table
	claim() claim.Claim
	statement() claim.Statement
	// refused finds the statement refused outside its claim's history:
	// rows to add to it, and whether it was forgotten with its memory.
	refused(ctx context.Context, c *conn) (rows []claim.Row, forgotten bool, err error)
	// reinforce adds the statement's evidence to row id, which says the same.
	reinforce(ctx context.Context, c *conn, id int64) error
	// insert stores the statement as a new row placed as d says.
	insert(ctx context.Context, c *conn, d claim.Decision) (int64, error)
	// superseded follows row old ending, superseded by row by.
	superseded(ctx context.Context, c *conn, old, by int64) error
}

// putClaim puts l's statement through the ledger and returns the decision
// and the row it stored or reinforced (0 when none).
func putClaim(ctx context.Context, c *conn, l layer) (claim.Decision, int64, error) {
	t, cl, s := l.table(), l.claim(), l.statement()
	s.At = time.UnixMilli(s.At.UnixMilli()) // as stored
	rows, err := claimRows(ctx, c, t, cl.Subject, cl.Key)
	if err != nil {
		return claim.Decision{}, 0, err
	}
	if !s.Retire {
		more, forgotten, err := l.refused(ctx, c)
		if err != nil {
			return claim.Decision{}, 0, err
		}
		rows, s.Forgotten = append(more, rows...), forgotten
	}
	if cl.Key == "" { // a claim without key is known by its words alone
		s.Value = ""
		for i := range rows {
			rows[i].Value = ""
		}
	}
	d := claim.Decide(rows, s)
	switch d.Action {
	case claim.Reinforce:
		return d, d.Row, l.reinforce(ctx, c, d.Row)
	case claim.Insert, claim.InsertHistory:
		id, err := l.insert(ctx, c, d)
		if err != nil {
			return d, 0, err
		}
		if d.Action == claim.InsertHistory {
			if err := l.superseded(ctx, c, id, d.Successor); err != nil {
				return d, 0, err
			}
		}
		if err := endRows(ctx, c, t, d.Ends, s.At, id); err != nil {
			return d, 0, err
		}
		for _, old := range d.Ends {
			if err := l.superseded(ctx, c, old, id); err != nil {
				return d, 0, err
			}
		}
		return d, id, nil
	case claim.Retire:
		return d, 0, endRows(ctx, c, t, d.Ends, s.At, 0)
	}
	return d, 0, nil
}

// claimRows is the history of subject's key in t, oldest first: by the
// tables' claim indexes (facts_entity, profile_lines_claim).
func claimRows(ctx context.Context, c *conn, t table, subject, key string) ([]claim.Row, error) {
	out, err := scanRows(ctx, c, claimRowsSQL(t), []any{subject, key}, func(s *sqlite3.Stmt) (claim.Row, error) {
		r := claim.Row{ID: s.ColumnInt64(0), Value: s.ColumnText(1), Words: s.ColumnText(2),
			Refused: s.ColumnBool(3), ValidFrom: time.UnixMilli(s.ColumnInt64(4))}
		if s.ColumnType(5) != sqlite3.NULL {
			r.ValidTo = time.UnixMilli(s.ColumnInt64(5))
		}
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the history of %q %q: %w", subject, key, err)
	}
	return out, nil
}

func claimRowsSQL(t table) string {
	return `SELECT id, value, ` + t.words + `, ` + t.refused + `, valid_from, valid_to FROM ` + t.name +
		` WHERE ` + t.subject + ` = ? COLLATE NOCASE AND ` + t.key + ` = ? ORDER BY valid_from, id`
}

// endRows ends the rows ids of t at at, superseded by row by (0: none).
func endRows(ctx context.Context, c *conn, t table, ids []int64, at time.Time, by int64) error {
	for _, id := range ids {
		err := c.execArgs(ctx, `UPDATE `+t.name+` SET valid_to = ?, superseded_by = ? WHERE id = ?`, at.UnixMilli(), nullID(by), id)
		if err != nil {
			return fmt.Errorf("end %s row %d: %w", t.name, id, err)
		}
	}
	return nil
}

// placement is where d puts a new row: its valid_to and superseded_by,
// NULL for a current row.
func placement(d claim.Decision) (validTo, by any) {
	if d.Action != claim.InsertHistory {
		return nil, nil
	}
	return d.Until.UnixMilli(), d.Successor
}

// nullID is id for a column where 0 means none: NULL.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// dropRowSources removes memory mem from the sources of every row of t
// citing it. A row left with none is dropped (gone is called first), and
// the rows it had ended take over its validity: the value it replaced is
// current again when it was. A refused row is kept whatever its sources:
// the refusal must stick.
func dropRowSources(ctx context.Context, c *conn, t table, mem int64, gone func(id int64) error) error {
	type citing struct {
		id      int64
		refused bool
		sources []int64
	}
	rows, err := scanRows(ctx, c, `SELECT id, `+t.refused+`, source_memory_ids FROM `+t.name+`
		WHERE EXISTS (SELECT 1 FROM json_each(source_memory_ids) WHERE value = ?)`, []any{mem},
		func(s *sqlite3.Stmt) (citing, error) {
			r := citing{id: s.ColumnInt64(0), refused: s.ColumnBool(1)}
			return r, json.Unmarshal(s.ColumnRawText(2), &r.sources)
		})
	if err != nil {
		return fmt.Errorf("find the %s citing memory %d: %w", t.name, mem, err)
	}
	for _, r := range rows {
		srcs := slices.DeleteFunc(r.sources, func(m int64) bool { return m == mem })
		if len(srcs) > 0 || r.refused {
			b, _ := json.Marshal(nonNil(srcs))
			if err := c.execArgs(ctx, `UPDATE `+t.name+` SET source_memory_ids = ? WHERE id = ?`, string(b), r.id); err != nil {
				return fmt.Errorf("remove memory %d from %s row %d: %w", mem, t.name, r.id, err)
			}
			continue
		}
		if err := gone(r.id); err != nil {
			return err
		}
		if err := dropRow(ctx, c, t, r.id); err != nil {
			return err
		}
	}
	return nil
}

// dropRow deletes row id of t, handing its validity to the rows it ended.
func dropRow(ctx context.Context, c *conn, t table, id int64) error {
	// Read at the update, not before the loop: an earlier drop may have
	// handed this row a new validity.
	err := c.execArgs(ctx, `UPDATE `+t.name+` SET (valid_to, superseded_by) =
		(SELECT valid_to, superseded_by FROM `+t.name+` WHERE id = ?1) WHERE superseded_by = ?1`, id)
	if err != nil {
		return fmt.Errorf("hand %s row %d's validity to the rows it superseded: %w", t.name, id, err)
	}
	if err := c.execArgs(ctx, `DELETE FROM `+t.name+` WHERE id = ?`, id); err != nil {
		return fmt.Errorf("drop %s row %d: %w", t.name, id, err)
	}
	return nil
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

// Retirement is a claim that stopped being true with no successor: "I no
// longer eat meat", "we sold the Golf".
type Retirement struct {
	Subject, Key string // the claim: a fact's entity and attribute, a profile line's subject and key
	Value        string // the value that ended; "" for whatever is current
	At           time.Time
	// Memory, when not 0, is the memory that said so: the memories that
	// stated the retired value before it are marked superseded by it, so
	// recall no longer offers them as current (an as_of before it still does).
	Memory int64
}

// Retired is what RetireClaim ended.
type Retired struct {
	Facts, Lines []int64
}

// RetireClaim ends the claim r names in both layers, as the ledger decides
// for a retirement (claim.Decide): the current facts and profile lines of
// r's value (of any value when r.Value is empty) stated by r.At end then,
// with no successor; a value stated after r.At stands. Nothing is deleted:
// an as_of before r.At still sees the claim current. Retiring what is not
// current does nothing.
func (a *Agent) RetireClaim(ctx context.Context, r Retirement) (Retired, error) {
	if r.At.IsZero() {
		r.At = time.Now()
	}
	r.At = time.UnixMilli(r.At.UnixMilli()) // as stored
	out, err := writeValue(ctx, a, func(ctx context.Context, c *conn) (out Retired, err error) {
		if out.Facts, err = retireRows(ctx, c, factsTable, r, ""); err != nil {
			return out, err
		}
		out.Lines, err = retireRows(ctx, c, linesTable, r, "")
		return out, err
	})
	if err != nil {
		return Retired{}, fmt.Errorf("retire %q %q: %w", r.Subject, r.Key, err)
	}
	return out, nil
}

// retireRows ends the rows of t that r retires (of these words too, when
// not ""), and with r's memory the memories that stated them before it,
// and returns their ids.
func retireRows(ctx context.Context, c *conn, t table, r Retirement, words string) ([]int64, error) {
	rows, err := claimRows(ctx, c, t, r.Subject, r.Key)
	if err != nil {
		return nil, err
	}
	d := claim.Decide(rows, claim.Statement{Value: r.Value, Words: words, At: r.At, Retire: true})
	if err := endRows(ctx, c, t, d.Ends, r.At, 0); err != nil || r.Memory == 0 {
		return d.Ends, err
	}
	sources := `SELECT j.value FROM ` + t.name + ` x, json_each(x.source_memory_ids) j WHERE x.id = ?1`
	for _, id := range d.Ends {
		if err := retireMemories(ctx, c, sources, `SELECT ?2`, id, r.Memory); err != nil {
			return nil, fmt.Errorf("mark the memories of %s row %d superseded by memory %d: %w", t.name, id, r.Memory, err)
		}
	}
	return d.Ends, nil
}
