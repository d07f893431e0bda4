package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// Day is one local day of an agent: how many memories it holds, how many
// wait for consolidation, and whether it has a consolidation record.
type Day struct {
	Day            string
	Memories       int
	Unconsolidated int
	Consolidated   bool // a record exists for the day
}

// Days lists the days that have memories or a record, newest first, only
// those before the day before when it is not "" (the next page's cursor is
// the last day returned).
func (a *Agent) Days(ctx context.Context, before string, limit int) ([]Day, error) {
	if limit <= 0 {
		limit = 60
	}
	if before == "" {
		before = "9999-12-32" // after every date: one range query either way
	}
	var out []Day
	err := a.read(ctx, func(c *conn) error {
		out = out[:0]
		return c.query(ctx, daysSQL, []any{before, limit}, func(s *sqlite3.Stmt) error {
			out = append(out, Day{Day: s.ColumnText(0), Memories: s.ColumnInt(1),
				Unconsolidated: s.ColumnInt(2), Consolidated: s.ColumnBool(3)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list days: %w", err)
	}
	return out, nil
}

// daysSQL picks the page's days first, walking the day indexes down from
// the cursor (daily_memories_day, the records' unique date) and stopping at
// the limit, then counts only those days: a page costs its own days, not
// the agent's whole history.
const daysSQL = `WITH page AS (
		SELECT day FROM (SELECT DISTINCT day FROM daily_memories WHERE day < ?1 ORDER BY day DESC LIMIT ?2)
		UNION
		SELECT day FROM (SELECT date AS day FROM consolidated_memories WHERE date < ?1 ORDER BY date DESC LIMIT ?2)
		ORDER BY day DESC LIMIT ?2)
	SELECT page.day,
		(SELECT count(*) FROM daily_memories m WHERE m.day = page.day),
		(SELECT count(*) FROM daily_memories m WHERE m.day = page.day AND m.consolidated = 0),
		EXISTS (SELECT 1 FROM consolidated_memories c WHERE c.date = page.day)
	FROM page ORDER BY page.day DESC`

// Fact returns one fact, whatever its state.
func (a *Agent) Fact(ctx context.Context, id int64) (Fact, error) {
	return readRow(ctx, a, fmt.Sprintf("get fact %d", id), fmt.Sprintf("fact %d", id),
		`SELECT `+factColumns+` FROM facts WHERE id = ?`, []any{id}, scanFact)
}

// Consolidation returns one day record.
func (a *Agent) Consolidation(ctx context.Context, id int64) (Consolidation, error) {
	return readRow(ctx, a, fmt.Sprintf("get consolidation %d", id), fmt.Sprintf("consolidation %d", id),
		`SELECT `+consolidationColumns+` FROM consolidated_memories WHERE id = ?`, []any{id}, scanConsolidation)
}

// Correction is a user's new wording (and value) for a current fact.
type Correction struct {
	Content string // the statement; required
	Value   string // the attribute's value; "" keeps none
}

// MaxCorrectionBytes bounds a correction's content and value.
const MaxCorrectionBytes = 4096

// Errors of CorrectFact that a caller should show the user.
var (
	ErrNotCurrent = errors.New("only a current fact can be corrected: this one is superseded or rejected")
	ErrUnchanged  = errors.New("the correction says what the fact already says")
)

// CorrectionError is a correction that cannot be stored as given.
type CorrectionError struct{ Msg string }

func (e *CorrectionError) Error() string { return e.Msg }

// ErrCorrectionNotUTF8 refuses a correction whose text is not UTF-8. A JSON decoder would have
// made such bytes U+FFFD, so the API refuses a body that is not UTF-8 with it before decoding.
var ErrCorrectionNotUTF8 error = &CorrectionError{"the correction is not valid UTF-8"}

// CorrectFact stores a user's correction of fact id as a new fact about the
// same entity and attribute, with full confidence and no source memories (a
// person said so), which supersedes the old one: the old value stays in the
// history with valid_to and superseded_by. A correction to a claim the user
// rejected before is refused with ErrRejected, as any other such claim is.
func (a *Agent) CorrectFact(ctx context.Context, id int64, corr Correction) (FactResult, error) {
	switch {
	case corr.Content == "":
		return FactResult{}, &CorrectionError{"the corrected statement is empty"}
	case len(corr.Content) > MaxCorrectionBytes || len(corr.Value) > MaxCorrectionBytes:
		return FactResult{}, &CorrectionError{fmt.Sprintf("a correction is limited to %d bytes", MaxCorrectionBytes)}
	case !utf8.ValidString(corr.Content) || !utf8.ValidString(corr.Value):
		return FactResult{}, ErrCorrectionNotUTF8
	}
	var res FactResult
	now := time.Now()
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		res = FactResult{}
		var old Fact
		found := false
		err := c.query(ctx, `SELECT `+factColumns+` FROM facts WHERE id = ?`, []any{id}, func(s *sqlite3.Stmt) error {
			var err error
			old, err = scanFact(s)
			found = true
			return err
		})
		switch {
		case err != nil:
			return err
		case !found:
			return fmt.Errorf("fact %d: %w", id, ErrNotFound)
		case old.Rejected || old.ValidTo != nil || old.SupersededBy != nil:
			return fmt.Errorf("fact %d: %w", id, ErrNotCurrent)
		case claim.Normal(corr.Content) == claim.Normal(old.Content) && claim.Normal(corr.Value) == claim.Normal(old.Value):
			return fmt.Errorf("fact %d: %w", id, ErrUnchanged)
		}
		validFrom := now
		if !validFrom.After(old.ValidFrom) { // a fact dated in the future by its source
			validFrom = old.ValidFrom.Add(time.Millisecond)
		}
		// The old fact leaves the current set first, so the new claim is
		// never taken for a reinforcement of the claim it corrects.
		if err := c.execArgs(ctx, `UPDATE facts SET valid_to = ? WHERE id = ?`, validFrom.UnixMilli(), id); err != nil {
			return err
		}
		res, err = putFact(ctx, c, Fact{
			Entity: old.Entity, EntityType: old.EntityType, Attribute: old.Attribute, Value: corr.Value,
			FactType: old.FactType, Content: corr.Content, Confidence: 1, ValidFrom: validFrom,
		}, now)
		switch {
		case err != nil:
			return err
		case res.Outcome == FactRejected: // the error rolls the valid_to back
			return fmt.Errorf("%w (fact %d)", ErrRejected, res.ID)
		}
		return c.execArgs(ctx, `UPDATE facts SET superseded_by = ? WHERE id = ?`, res.ID, id)
	})
	if err != nil {
		return FactResult{}, fmt.Errorf("correct fact %d: %w", id, err)
	}
	return res, nil
}

// ConsolidationDates maps consolidation record ids to their days; ids
// with no record (none should be missing) are left out.
func (a *Agent) ConsolidationDates(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	err = a.read(ctx, func(c *conn) error {
		clear(out)
		return c.query(ctx, `SELECT id, date FROM consolidated_memories WHERE id IN (SELECT value FROM json_each(?))`,
			[]any{string(b)}, func(s *sqlite3.Stmt) error {
				out[s.ColumnInt64(0)] = s.ColumnText(1)
				return nil
			})
	})
	if err != nil {
		return nil, fmt.Errorf("look up consolidation days: %w", err)
	}
	return out, nil
}
