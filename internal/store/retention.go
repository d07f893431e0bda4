package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Retention. Prune deletes the raw memories of old days once their day is
// consolidated; the day records and facts stay. Provenance stays
// explainable: a pruned day's record keeps every source id, and pruned_days
// keeps a copy of that record with when and how many memories were pruned,
// so a fact citing a pruned memory leads to the day that summarised it
// (Pruned). The copy is also the base of any later rebuild of the day (a
// memory arriving late for it, or one forgotten): the rebuild merges it with
// the memories still there rather than losing what was pruned.

// PrunedDay is what retention kept of a day whose raw memories it deleted.
type PrunedDay struct {
	Record   Consolidation
	Pruned   int
	PrunedAt time.Time
}

// PruneResult is what one Prune did.
type PruneResult struct {
	Days     int
	Memories int
}

func prunedBase(ctx context.Context, c *conn, date string) (Consolidation, bool, error) {
	var rec Consolidation
	found := false
	err := c.query(ctx, `SELECT 0, date, summary, key_facts, entities, topics, insights, source_ids, model,
		pruned_at, pruned_at FROM pruned_days WHERE date = ?`, []any{date}, func(s *sqlite3.Stmt) error {
		var err error
		rec, err = scanConsolidation(s)
		found = true
		return err
	})
	if err != nil {
		return Consolidation{}, false, fmt.Errorf("read the pruned record of %s: %w", date, err)
	}
	return rec, found, nil
}

// PrunedDay returns what retention kept of day, and false when retention
// never pruned it.
func (a *Agent) PrunedDay(ctx context.Context, day string) (PrunedDay, bool, error) {
	var p PrunedDay
	var found bool
	err := a.read(ctx, func(c *conn) error {
		var err error
		p.Record, found, err = prunedBase(ctx, c, day)
		if err != nil || !found {
			return err
		}
		return c.query(ctx, `SELECT pruned, pruned_at FROM pruned_days WHERE date = ?`, []any{day}, func(s *sqlite3.Stmt) error {
			p.Pruned, p.PrunedAt = s.ColumnInt(0), time.UnixMilli(s.ColumnInt64(1)).UTC()
			return nil
		})
	})
	if err != nil {
		return PrunedDay{}, false, err
	}
	return p, found, nil
}

// Pruned says where a memory that retention deleted went: the pruned day
// whose record cites it, and false when no pruned day does.
func (a *Agent) Pruned(ctx context.Context, id int64) (PrunedDay, bool, error) {
	var day string
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT date FROM pruned_days WHERE EXISTS (SELECT 1 FROM json_each(source_ids) WHERE value = ?)`,
			[]any{id}, func(s *sqlite3.Stmt) error { day = s.ColumnText(0); return nil })
	})
	if err != nil || day == "" {
		return PrunedDay{}, false, err
	}
	return a.PrunedDay(ctx, day)
}

// Prune deletes the raw memories of every day before the day before (a
// local date) that is wholly consolidated and has its record, one day per
// transaction, oldest first. Facts and records are kept (see above).
// Flagged memories of those days go too.
func (a *Agent) Prune(ctx context.Context, before string) (PruneResult, error) {
	var days []string
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT d.day FROM (SELECT day, sum(consolidated = 0) AS open FROM daily_memories
			WHERE day < ? GROUP BY day) d JOIN consolidated_memories c ON c.date = d.day
			WHERE d.open = 0 ORDER BY d.day`, []any{before}, func(s *sqlite3.Stmt) error {
			days = append(days, s.ColumnText(0))
			return nil
		})
	})
	if err != nil {
		return PruneResult{}, fmt.Errorf("find days to prune: %w", err)
	}
	var res PruneResult
	for _, day := range days {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		n, err := writeValue(ctx, a, func(ctx context.Context, c *conn) (int, error) { return pruneDay(ctx, c, day, time.Now()) })
		if err != nil {
			return res, fmt.Errorf("prune %s: %w", day, err)
		}
		if n > 0 {
			res.Days++
			res.Memories += n
		}
	}
	return res, nil
}

// pruneDay copies day's record into pruned_days and deletes its memories,
// if they are all still consolidated (checked again inside the write).
func pruneDay(ctx context.Context, c *conn, day string, now time.Time) (int, error) {
	open := 0
	err := c.query(ctx, `SELECT count(*) FROM daily_memories WHERE day = ? AND consolidated = 0`, []any{day},
		func(s *sqlite3.Stmt) error { open = s.ColumnInt(0); return nil })
	if err != nil || open > 0 {
		return 0, err
	}
	var rec *Consolidation
	err = c.query(ctx, `SELECT `+consolidationColumns+` FROM consolidated_memories WHERE date = ?`, []any{day},
		func(s *sqlite3.Stmt) error {
			r, err := scanConsolidation(s)
			rec = &r
			return err
		})
	if err != nil || rec == nil {
		return 0, err
	}
	n := 0
	err = c.query(ctx, `DELETE FROM daily_memories WHERE day = ? AND consolidated = 1 RETURNING id`, []any{day},
		func(s *sqlite3.Stmt) error {
			c.sizes.changed(s.ColumnInt64(0)) // an import may store its id again
			n++
			return nil
		})
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	src, err := json.Marshal(nonNil(rec.SourceIDs))
	if err != nil {
		return 0, err
	}
	raw := func(r json.RawMessage) string {
		if len(r) == 0 {
			return "[]"
		}
		return string(r)
	}
	err = c.execArgs(ctx, `INSERT INTO pruned_days (date, summary, key_facts, entities, topics, insights,
		source_ids, model, pruned, pruned_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(date) DO UPDATE SET summary = excluded.summary, key_facts = excluded.key_facts,
		entities = excluded.entities, topics = excluded.topics, insights = excluded.insights,
		source_ids = excluded.source_ids, model = excluded.model, pruned = pruned_days.pruned + excluded.pruned,
		pruned_at = excluded.pruned_at`,
		day, rec.Summary, raw(rec.KeyFacts), raw(rec.Entities), raw(rec.Topics), raw(rec.Insights),
		string(src), rec.Model, n, now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("keep the record of %s: %w", day, err)
	}
	return n, nil
}

// Auto-vacuum modes as PRAGMA auto_vacuum reports them.
const (
	autoVacuumNone        = 0
	autoVacuumIncremental = 2
)

// VacuumResult is what Vacuum did.
type VacuumResult struct {
	Converted   bool // the file was rewritten once to allow incremental vacuum
	FreedPages  int64
	BytesBefore int64
	BytesAfter  int64
}

// ErrNoRoom means the disk has no room for the one full VACUUM that turns
// an existing file into one that can be vacuumed incrementally.
var ErrNoRoom = errors.New("not enough free disk space to rewrite the file")

// Vacuum gives the file's free pages back to the file system. Files created
// since schema 4 are incremental-vacuum from the start; an older file is
// rewritten once with VACUUM (which needs free space of about twice its size
// and holds the write lock while it runs: a few seconds on a Pi for tens of
// megabytes), and only when there is that much room, otherwise ErrNoRoom and
// nothing changes. It runs on the writer's connection between its
// transactions, so this process's writes queue behind it instead of timing
// out on the lock.
func (a *Agent) Vacuum(ctx context.Context) (VacuumResult, error) {
	var res VacuumResult
	err := a.submit(&writeReq{ctx: ctx, done: make(chan error, 1), solo: true, noTx: true,
		fn: func(ctx context.Context, c *conn) error {
			var err error
			res, err = a.vacuum(ctx, c)
			return err
		}})
	return res, err
}

func (a *Agent) vacuum(ctx context.Context, c *conn) (VacuumResult, error) {
	var res VacuumResult
	res.BytesBefore = fileSize(a.path) + fileSize(a.path+"-wal")
	mode, free := 0, int64(0)
	if err := c.query(ctx, `PRAGMA auto_vacuum`, nil, func(s *sqlite3.Stmt) error { mode = s.ColumnInt(0); return nil }); err != nil {
		return res, fmt.Errorf("vacuum agent %q: %w", a.name, err)
	}
	if err := c.query(ctx, `PRAGMA freelist_count`, nil, func(s *sqlite3.Stmt) error { free = s.ColumnInt64(0); return nil }); err != nil {
		return res, fmt.Errorf("vacuum agent %q: %w", a.name, err)
	}
	if mode != autoVacuumIncremental {
		if avail, ok := freeBytes(filepath.Dir(a.path)); ok && avail < 2*res.BytesBefore {
			return res, fmt.Errorf("vacuum agent %q: %w (%d bytes free, the rewrite needs about %d)", a.name, ErrNoRoom, avail, 2*res.BytesBefore)
		}
		// The rewrite's temporary copy goes to a file, not to memory.
		if err := c.exec(`PRAGMA temp_store = FILE; PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
			return res, fmt.Errorf("vacuum agent %q: %w", a.name, err)
		}
		err := c.exec(`VACUUM`)
		if rerr := c.exec(`PRAGMA temp_store = MEMORY`); err == nil && rerr != nil {
			err = rerr
		}
		if err != nil {
			return res, fmt.Errorf("vacuum agent %q: rewrite: %w", a.name, err)
		}
		res.Converted, res.FreedPages = true, free
	} else {
		if err := c.query(ctx, `PRAGMA incremental_vacuum`, nil, nil); err != nil {
			return res, fmt.Errorf("vacuum agent %q: %w", a.name, err)
		}
		res.FreedPages = free
	}
	// The freed pages leave the file only once the WAL is copied back; a
	// read in flight (the background checkpoint) may hold it up a moment.
	// With LeaveCheckpoints that is the other process's next checkpoint.
	for try := 0; !a.opts.LeaveCheckpoints; try++ {
		busy := false
		err := c.query(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`, nil, func(s *sqlite3.Stmt) error {
			busy = s.ColumnInt(0) != 0
			return nil
		})
		if err != nil && !isBusy(err) {
			return res, fmt.Errorf("vacuum agent %q: checkpoint: %w", a.name, err)
		}
		if (err == nil && !busy) || try == 20 {
			break
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	res.BytesAfter = fileSize(a.path) + fileSize(a.path+"-wal")
	return res, nil
}

// AutoVacuum reports the file's auto_vacuum mode: 0 none, 1 full, 2 incremental.
func (a *Agent) AutoVacuum(ctx context.Context) (int, error) {
	mode := 0
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `PRAGMA auto_vacuum`, nil, func(s *sqlite3.Stmt) error { mode = s.ColumnInt(0); return nil })
	})
	return mode, err
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func freeBytes(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
