package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// Forgetting that sticks. Deleting a memory (Delete, which forgets its
// shared copies in other agents too: share.go) or rejecting a fact
// (RejectFact) records the SHA-256 of its normalised content in the
// forgotten table: never the text. A new memory whose normalised content has
// that hash is stored flagged: listed, never recalled, consolidated by
// nothing. Deleting a memory also takes apart the day record that cited it
// (the record is deleted and the day's other memories are unconsolidated
// again, so the next consolidation rebuilds the day without it) and removes
// it from the facts it supports; a fact it alone supported is dropped.

// Kinds of forgotten content.
const (
	ForgottenMemory = "memory"
	ForgottenFact   = "fact"
)

// normHash is the hash under which content is remembered as forgotten, and
// false for content with no words (nothing to recognise it by).
func normHash(content string) (string, bool) {
	n := claim.Normal(content)
	if n == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(n))
	return hex.EncodeToString(sum[:]), true
}

// anyForgotten reports whether anything was ever forgotten: a write that
// inserts many memories asks once, and looks each one up only then.
func anyForgotten(ctx context.Context, c *conn) (bool, error) {
	some := false
	if err := c.query(ctx, `SELECT 1 FROM forgotten LIMIT 1`, nil, func(*sqlite3.Stmt) error {
		some = true
		return nil
	}); err != nil {
		return false, fmt.Errorf("look for forgotten content: %w", err)
	}
	return some, nil
}

// isForgotten reports whether content, normalised, was forgotten or
// rejected before.
func isForgotten(ctx context.Context, c *conn, content string) (bool, error) {
	some, err := anyForgotten(ctx, c)
	if err != nil || !some {
		return false, err
	}
	return isForgottenHash(ctx, c, content)
}

// isForgottenHash looks content's normalised hash up.
func isForgottenHash(ctx context.Context, c *conn, content string) (bool, error) {
	h, ok := normHash(content)
	if !ok {
		return false, nil
	}
	return forgottenHash(ctx, c, h)
}

// forgottenHash is the one lookup of the forgotten table: content (normHash) and claims (claimHash)
// are remembered there under their hashes.
func forgottenHash(ctx context.Context, c *conn, h string) (bool, error) {
	found := false
	err := c.query(ctx, `SELECT 1 FROM forgotten WHERE norm_hash = ?`, []any{h}, func(*sqlite3.Stmt) error {
		found = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("look for forgotten content: %w", err)
	}
	return found, nil
}

// remember records content as forgotten.
func remember(ctx context.Context, c *conn, kind string, id int64, content string, now time.Time) error {
	h, ok := normHash(content)
	if !ok {
		return nil
	}
	return rememberHash(ctx, c, h, kind, id, now)
}

// rememberHash records hash h (normHash or claimHash) as forgotten, of id of kind.
func rememberHash(ctx context.Context, c *conn, h, kind string, id int64, now time.Time) error {
	err := c.execArgs(ctx, `INSERT INTO forgotten (norm_hash, kind, source_id, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT(norm_hash) DO NOTHING`, h, kind, id, now.UnixMilli())
	if err != nil {
		return fmt.Errorf("remember forgotten %s %d: %w", kind, id, err)
	}
	return nil
}

// IsForgotten reports whether content, normalised, is that of a forgotten
// memory or a rejected fact: a new memory saying it would be flagged.
func (a *Agent) IsForgotten(ctx context.Context, content string) (bool, error) {
	var found bool
	err := a.read(ctx, func(c *conn) error {
		var err error
		found, err = isForgotten(ctx, c, content)
		return err
	})
	return found, err
}

// forgetMemory deletes memory id inside the caller's transaction and undoes
// what was derived from it.
func forgetMemory(ctx context.Context, c *conn, id int64, now time.Time) error {
	var content string
	found := false
	err := c.query(ctx, `SELECT content FROM daily_memories WHERE id = ?`, []any{id}, func(s *sqlite3.Stmt) error {
		content, found = s.ColumnText(0), true
		return nil
	})
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	// The records citing it: its own, and any other whose sources name it.
	var recs []int64
	err = c.query(ctx, `SELECT id FROM consolidated_memories
		WHERE id = (SELECT consolidation_id FROM daily_memories WHERE id = ?1)
		OR EXISTS (SELECT 1 FROM json_each(source_ids) WHERE value = ?1)`, []any{id},
		func(s *sqlite3.Stmt) error {
			recs = append(recs, s.ColumnInt64(0))
			return nil
		})
	if err != nil {
		return fmt.Errorf("find records citing memory %d: %w", id, err)
	}
	c.sizes.changed(id) // an import may store its id again
	if err := c.execArgs(ctx, `DELETE FROM daily_memories WHERE id = ?`, id); err != nil {
		return err
	}
	if err := forgetSuccessor(ctx, c, id); err != nil {
		return err
	}
	if err := remember(ctx, c, ForgottenMemory, id, content, now); err != nil {
		return err
	}
	if err := queueShareForgets(ctx, c, id, now); err != nil {
		return err
	}
	for _, r := range recs {
		if err := takeApart(ctx, c, r, now); err != nil {
			return err
		}
	}
	if err := dropMemorySource(ctx, c, id, now); err != nil {
		return fmt.Errorf("remove memory %d from its facts: %w", id, err)
	}
	return nil
}

// takeApart deletes day record rec and unconsolidates the day's memories it
// covered, so the next consolidation of the day rebuilds it from them. A day
// whose raw memories retention pruned gets back the record it had then.
func takeApart(ctx context.Context, c *conn, rec int64, now time.Time) error {
	var date string
	err := c.query(ctx, `SELECT date FROM consolidated_memories WHERE id = ?`, []any{rec},
		func(s *sqlite3.Stmt) error { date = s.ColumnText(0); return nil })
	if err != nil {
		return fmt.Errorf("take apart record %d: %w", rec, err)
	}
	if date == "" {
		return nil
	}
	err = c.execArgs(ctx, `UPDATE daily_memories SET consolidated = 0, consolidation_id = NULL
		WHERE (consolidation_id = ? OR day = ?) AND flagged = 0`, rec, date)
	if err != nil {
		return fmt.Errorf("take apart record of %s: %w", date, err)
	}
	if err := c.execArgs(ctx, `DELETE FROM consolidated_memories WHERE id = ?`, rec); err != nil {
		return fmt.Errorf("take apart record of %s: %w", date, err)
	}
	if err := dropConsolidationSource(ctx, c, rec); err != nil {
		return fmt.Errorf("take apart record of %s: %w", date, err)
	}
	// With nothing left to rebuild from, a pruned day's base is its record.
	left := 0
	err = c.query(ctx, `SELECT count(*) FROM daily_memories WHERE day = ? AND flagged = 0 AND retired_at IS NULL`, []any{date},
		func(s *sqlite3.Stmt) error { left = s.ColumnInt(0); return nil })
	if err != nil {
		return err
	}
	if left > 0 {
		return nil
	}
	base, ok, err := prunedBase(ctx, c, date)
	if err != nil || !ok {
		return err
	}
	if _, err := putConsolidation(ctx, c, base, now); err != nil {
		return fmt.Errorf("restore the pruned record of %s: %w", date, err)
	}
	return nil
}

// consolidationsCiting are the facts citing consolidation record rec,
// with their source records.
func consolidationsCiting(ctx context.Context, c *conn, rec int64) ([]factSources, error) {
	return scanRows(ctx, c, `SELECT id, source_consolidation_ids FROM facts
		WHERE EXISTS (SELECT 1 FROM json_each(source_consolidation_ids) WHERE value = ?)`, []any{rec},
		func(s *sqlite3.Stmt) (factSources, error) {
			f := factSources{id: s.ColumnInt64(0)}
			return f, json.Unmarshal(s.ColumnRawText(1), &f.cons)
		})
}

// factSources is a fact's source records, as dropConsolidationSource
// rewrites them.
type factSources struct {
	id   int64
	cons []int64
}

// dropMemorySource removes memory id from every fact's and profile line's
// provenance (dropRowSources): a fact left with no source memory is
// dropped, its content and claim remembered as forgotten.
func dropMemorySource(ctx context.Context, c *conn, id int64, now time.Time) error {
	return dropSource(ctx, c, id, now, true)
}

// dropSource is dropMemorySource, for profile lines too; forget says
// whether a fact or line dropped for want of sources is remembered as
// forgotten (a deleted memory) or not (a retired one: the file changed, and
// the old claim may honestly come back).
func dropSource(ctx context.Context, c *conn, id int64, now time.Time, forget bool) error {
	if err := dropLineSource(ctx, c, id, now, forget); err != nil {
		return err
	}
	return dropRowSources(ctx, c, factsTable, id, func(fact int64) error {
		var content string
		err := c.query(ctx, `SELECT content FROM facts WHERE id = ?`, []any{fact},
			func(s *sqlite3.Stmt) error { content = s.ColumnText(0); return nil })
		if err == nil && forget {
			err = remember(ctx, c, ForgottenFact, fact, content, now)
		}
		if err != nil {
			return err
		}
		return rememberClaim(ctx, c, fact, now)
	})
}

// dropConsolidationSource removes record rec from every fact's provenance;
// the rebuilt record adds its own id back to the facts it still yields.
func dropConsolidationSource(ctx context.Context, c *conn, rec int64) error {
	fs, err := consolidationsCiting(ctx, c, rec)
	if err != nil {
		return err
	}
	for _, f := range fs {
		cons := slices.DeleteFunc(f.cons, func(x int64) bool { return x == rec })
		b, _ := json.Marshal(nonNil(cons))
		if err := c.execArgs(ctx, `UPDATE facts SET source_consolidation_ids = ? WHERE id = ?`, string(b), f.id); err != nil {
			return err
		}
	}
	return nil
}

// rejectFact marks fact id rejected and remembers its content as forgotten.
func rejectFact(ctx context.Context, c *conn, id int64, now time.Time) error {
	var content string
	found := false
	err := c.query(ctx, `UPDATE facts SET rejected = 1 WHERE id = ? RETURNING content`, []any{id},
		func(s *sqlite3.Stmt) error { content, found = s.ColumnText(0), true; return nil })
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("fact %d: %w", id, ErrNotFound)
	}
	if err := rememberClaim(ctx, c, id, now); err != nil {
		return err
	}
	return remember(ctx, c, ForgottenFact, id, content, now)
}

// forgottenSince is the schema version that brought the forgotten table
// (found, not written down, so renumbering the migrations cannot break it).
var forgottenSince = func() int {
	for i, m := range migrations {
		if strings.Contains(m, "CREATE TABLE forgotten") {
			return i + 1
		}
	}
	panic("no migration creates the forgotten table")
}()

// backfillForgotten remembers the content of the facts rejected before the
// file had a forgotten table (schema version from < 4), so a new memory
// saying a claim rejected then is flagged too. It runs once, right after the
// migration (again, harmlessly, if two processes migrated at once).
func backfillForgotten(ctx context.Context, c *conn, from int) error {
	if from == 0 || from >= forgottenSince {
		return nil
	}
	type rejected struct {
		id      int64
		content string
	}
	var rs []rejected
	err := c.query(ctx, `SELECT id, content FROM facts WHERE rejected = 1`, nil, func(s *sqlite3.Stmt) error {
		rs = append(rs, rejected{s.ColumnInt64(0), s.ColumnText(1)})
		return nil
	})
	if err != nil || len(rs) == 0 {
		return err
	}
	if err := c.exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("remember rejected facts: %w", err)
	}
	now := time.Now()
	for _, r := range rs {
		if err := remember(ctx, c, ForgottenFact, r.id, r.content, now); err != nil {
			_ = c.exec("ROLLBACK")
			return err
		}
	}
	if err := c.exec("COMMIT"); err != nil {
		_ = c.exec("ROLLBACK")
		return fmt.Errorf("remember rejected facts: %w", err)
	}
	return nil
}
