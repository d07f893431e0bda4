package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Run statuses.
const (
	RunOK      = "ok"
	RunFailed  = "failed"
	RunPartial = "partial"
)

// Run is one consolidation of one day: who did it, what it cost and how it
// ended.
type Run struct {
	ID              int64
	Day             string
	StartedAt       time.Time
	FinishedAt      time.Time
	Provider        string
	Model           string
	Calls           int
	TokensIn        int
	TokensOut       int
	DurationMS      int64
	Status          string
	Error           string
	ConsolidationID *int64
	Memories        int
	Facts           int
	// Holder is the process that ran it (its lease holder name), so a
	// budget can count what other processes spent (see budget.go).
	Holder string
}

const runColumns = `id, day, started_at, finished_at, provider, model, calls, tokens_in, tokens_out,
	duration_ms, status, error, consolidation_id, memories, facts, holder`

func scanRun(s *sqlite3.Stmt) Run {
	r := Run{
		ID:         s.ColumnInt64(0),
		Day:        s.ColumnText(1),
		StartedAt:  time.UnixMilli(s.ColumnInt64(2)).UTC(),
		FinishedAt: time.UnixMilli(s.ColumnInt64(3)).UTC(),
		Provider:   s.ColumnText(4),
		Model:      s.ColumnText(5),
		Calls:      s.ColumnInt(6),
		TokensIn:   s.ColumnInt(7),
		TokensOut:  s.ColumnInt(8),
		DurationMS: s.ColumnInt64(9),
		Status:     s.ColumnText(10),
		Error:      s.ColumnText(11),
		Memories:   s.ColumnInt(13),
		Facts:      s.ColumnInt(14),
		Holder:     s.ColumnText(15),
	}
	if s.ColumnType(12) != sqlite3.NULL {
		id := s.ColumnInt64(12)
		r.ConsolidationID = &id
	}
	return r
}

func insertRun(ctx context.Context, c *conn, r Run) (int64, error) {
	err := c.execArgs(ctx, `INSERT INTO consolidation_runs (day, started_at, finished_at, provider, model,
		calls, tokens_in, tokens_out, duration_ms, status, error, consolidation_id, memories, facts, holder)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Day, r.StartedAt.UnixMilli(), r.FinishedAt.UnixMilli(), r.Provider, r.Model, r.Calls,
		r.TokensIn, r.TokensOut, r.DurationMS, r.Status, r.Error, r.ConsolidationID, r.Memories, r.Facts, r.Holder)
	if err != nil {
		return 0, fmt.Errorf("record run: %w", err)
	}
	return c.db.LastInsertRowID(), nil
}

// RecordRun stores a run that committed nothing else: a failed one.
func (a *Agent) RecordRun(ctx context.Context, r Run) (Run, error) {
	id, err := writeValue(ctx, a, func(ctx context.Context, c *conn) (int64, error) { return insertRun(ctx, c, r) })
	if err != nil {
		return Run{}, fmt.Errorf("record %s run of %s: %w", r.Status, r.Day, err)
	}
	r.ID = id
	return r, nil
}

// Runs lists the most recent runs, newest first; day "" means every day.
func (a *Agent) Runs(ctx context.Context, day string, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = 100
	}
	sql := `SELECT ` + runColumns + ` FROM consolidation_runs`
	var args []any
	if day != "" {
		sql += ` WHERE day = ?`
		args = append(args, day)
	}
	sql += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit)
	return readRows(ctx, a, "list runs", sql, args, func(s *sqlite3.Stmt) (Run, error) { return scanRun(s), nil })
}

// Commit is everything one consolidation of a day writes.
type Commit struct {
	Record Consolidation
	// Facts get the record's id added to their consolidation provenance.
	Facts []Fact
	Run   Run
	// Lease, when set, must still be held by Holder when the transaction
	// runs, so a run whose lease expired and was taken over commits nothing.
	Lease, Holder string
	// Now is the consolidation's clock: the lease's (the one AcquireLease
	// was given) and the time the record and facts are written at, which
	// as_of compares with; zero is time.Now.
	Now time.Time
	// Memories are the ids the record was made from: if one was forgotten
	// (or pruned) meanwhile, nothing is committed (ErrSourceGone), so a
	// forgotten memory never reaches a record through a run in flight.
	Memories []int64
	// Flag are memories of the day that state a claim the user rejected:
	// flagged (see FlagMemories), in the same transaction.
	Flag []int64
	// Retires says which attributes hold one value: when a fact of one is
	// superseded, the memories that stated the old value are marked
	// superseded by the memory stating the new one (see supersede.go).
	// Nil: none.
	Retires func(attribute string) bool
	// Rekey, when set, is the attribute a stored fact (with its value)
	// should have: facts keyed otherwise are renamed first, and the newest
	// of an entity's current values of the new key supersedes the others.
	Rekey func(attribute, value string) string
	// Profile are the day's profile lines, stored as PutProfileLines does;
	// each must pass CheckProfileLine.
	Profile []ProfileLine
}

// ErrSourceGone is returned when a memory a consolidation read was deleted
// before it could commit.
var ErrSourceGone = errors.New("a memory of the day was forgotten during the consolidation")

// Committed is what a Commit wrote.
type Committed struct {
	Run   Run
	Facts []FactResult
	// ProfileAdded and ProfileSuperseded count the profile lines the commit
	// added and the ones they ended.
	ProfileAdded, ProfileSuperseded int
}

// ErrLeaseLost is returned when a lease is no longer held by the caller.
var ErrLeaseLost = errors.New("lease lost")

// CommitConsolidation writes a day's consolidation in one transaction: the
// day's record (created or replaced), its facts, the memories marked
// consolidated by it and the run row. It all commits or none of it does.
// It is background work: it waits for the captures queued before it, and
// those that arrive while it waits, rather than hold them for the
// milliseconds a day's commit takes.
func (a *Agent) CommitConsolidation(ctx context.Context, cm Commit) (Committed, error) {
	var out Committed
	err := a.writeBackground(ctx, func(ctx context.Context, c *conn) error {
		now := cm.Now
		if now.IsZero() {
			now = time.Now()
		}
		if cm.Lease != "" {
			held, err := holds(ctx, c, cm.Lease, cm.Holder, now)
			if err != nil {
				return err
			}
			if !held {
				return fmt.Errorf("%w: %q is no longer held by %s", ErrLeaseLost, cm.Lease, cm.Holder)
			}
		}
		if len(cm.Memories) > 0 {
			ids, err := json.Marshal(cm.Memories)
			if err != nil {
				return err
			}
			n := 0
			err = c.query(ctx, `SELECT count(*) FROM daily_memories WHERE id IN (SELECT value FROM json_each(?))`,
				[]any{string(ids)}, func(s *sqlite3.Stmt) error { n = s.ColumnInt(0); return nil })
			if err != nil {
				return fmt.Errorf("check the day's memories: %w", err)
			}
			if n != len(cm.Memories) {
				return fmt.Errorf("%w: %d of its %d memories are gone", ErrSourceGone, len(cm.Memories)-n, len(cm.Memories))
			}
		}
		if err := flagMemories(ctx, c, cm.Flag); err != nil {
			return err
		}
		if cm.Rekey != nil {
			if err := rekeyFacts(ctx, c, cm.Rekey); err != nil {
				return err
			}
		}
		id, err := putConsolidation(ctx, c, cm.Record, now)
		if err != nil {
			return err
		}
		results := make([]FactResult, 0, len(cm.Facts))
		stored := 0
		for i, f := range cm.Facts {
			f.SourceConsolidationIDs = append(f.SourceConsolidationIDs[:len(f.SourceConsolidationIDs):len(f.SourceConsolidationIDs)], id)
			r, err := putFact(ctx, c, f, now)
			if err != nil {
				return fmt.Errorf("fact %d of %d: %w", i+1, len(cm.Facts), err)
			}
			if r.Outcome != FactRejected {
				stored++
			}
			if cm.Retires != nil && cm.Retires(f.Attribute) {
				if err := retireStatedValues(ctx, c, r); err != nil {
					return err
				}
			}
			results = append(results, r)
		}
		run := cm.Run
		run.ConsolidationID = &id
		run.Memories = len(cm.Record.SourceIDs)
		run.Facts = stored
		run.ID, err = insertRun(ctx, c, run)
		if err != nil {
			return err
		}
		n, err := putProfileLines(ctx, c, cm.Profile, now)
		if err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		out = Committed{Run: run, Facts: results, ProfileAdded: n.added, ProfileSuperseded: n.superseded}
		return nil
	})
	if err != nil {
		return Committed{}, fmt.Errorf("commit consolidation of %s: %w", cm.Record.Date, err)
	}
	return out, nil
}

// DayCount is a day and how many of its memories are unconsolidated.
type DayCount struct {
	Day            string
	Unconsolidated int
}

// UnconsolidatedDays lists the days (oldest first) that have unconsolidated
// memories, only those before the day before when it is not "".
func (a *Agent) UnconsolidatedDays(ctx context.Context, before string) ([]DayCount, error) {
	sql := `SELECT day, count(*) FROM daily_memories WHERE consolidated = 0 AND retired_at IS NULL` // watched files: retired ones wait for nothing
	var args []any
	if before != "" {
		sql += ` AND day < ?`
		args = append(args, before)
	}
	sql += ` GROUP BY day ORDER BY day`
	var out []DayCount
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, sql, args, func(s *sqlite3.Stmt) error {
			out = append(out, DayCount{Day: s.ColumnText(0), Unconsolidated: s.ColumnInt(1)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list unconsolidated days: %w", err)
	}
	return out, nil
}

// WaitingDay is a day with unconsolidated memories and when the first of
// them arrived (was stored), whatever date the memories themselves carry.
type WaitingDay struct {
	Day          string
	FirstArrival time.Time
}

// WaitingDays lists the days (oldest first) that have unconsolidated
// memories, with the arrival of each day's first: health measures how long
// memories have waited from it, as a note dated weeks ago only starts
// waiting when it is ingested.
func (a *Agent) WaitingDays(ctx context.Context) ([]WaitingDay, error) {
	var out []WaitingDay
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT day, min(created_at) FROM daily_memories
			WHERE consolidated = 0 AND retired_at IS NULL GROUP BY day ORDER BY day`, nil,
			func(s *sqlite3.Stmt) error {
				out = append(out, WaitingDay{Day: s.ColumnText(0), FirstArrival: storedTime(s.ColumnInt64(1))})
				return nil
			})
	})
	if err != nil {
		return nil, fmt.Errorf("list waiting days: %w", err)
	}
	return out, nil
}

// DayMemories returns every memory of a local day, consolidated or not,
// oldest first: re-running a day rebuilds its record from all of them.
func (a *Agent) DayMemories(ctx context.Context, day string) ([]Memory, error) {
	return readRows(ctx, a, "memories of "+day, `SELECT `+memoryColumns+` FROM daily_memories
		WHERE day = ? AND retired_at IS NULL ORDER BY ts, id`, []any{day}, scanMemory)
}
