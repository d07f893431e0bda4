package store

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// memoryIndexes are the full-text indexes every memory search reads.
var memoryIndexes = []string{"memories_fts", "memory_kinds"}

// mergeStep is the pages one background write of MergeIndexes merges
// (~2 MB): captures wait behind a step, never behind the whole merge.
const mergeStep = 500

// MergeIndexes merges the memory indexes' segments that FTS5's automerge
// leaves (it merges a level only at 4 segments): every level of 2 or more
// becomes one (FTS5's usermerge 2), a step of mergeStep pages a background
// write, until a step does no work. A search seeks each of its terms in
// every segment, and a term read newest first walks its doclist to the
// end in each, so a topic's or a question's dozens of words cost recall a
// share that grows with the segments (10 at 100,000 LoCoMo turns,
// BenchmarkRecall100k: 2 after, the slowest queries' CPU ~15% less).
// Each memory is rewritten about once a level it climbs, not once a call:
// what the nightly cycle runs after an agent's days. Results of a search
// do not change. It returns the memories index's segments before and after.
func (a *Agent) MergeIndexes(ctx context.Context) (before, after int, err error) {
	if before, err = a.segments(ctx, memoryIndexes[0]); err != nil {
		return 0, 0, err
	}
	for _, t := range memoryIndexes {
		if err := a.mergeLevels(ctx, t); err != nil {
			return before, 0, fmt.Errorf("merge %s of agent %q: %w", t, a.name, err)
		}
	}
	after, err = a.segments(ctx, memoryIndexes[0])
	return before, after, err
}

// mergeLevels sets table's usermerge to 2 (kept in its config, so once)
// and merges a step at a time until a step does no work.
func (a *Agent) mergeLevels(ctx context.Context, table string) error {
	um := 0
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT v FROM `+table+`_config WHERE k = 'usermerge'`, nil,
			func(s *sqlite3.Stmt) error { um = s.ColumnInt(0); return nil })
	})
	if err == nil && um != 2 {
		err = a.writeBackground(ctx, func(_ context.Context, c *conn) error {
			return c.exec(`INSERT INTO ` + table + `(` + table + `, rank) VALUES ('usermerge', 2)`)
		})
	}
	if err != nil {
		return err
	}
	return mergeSteps(ctx, a, table, mergeStep)
}

// mergeSteps runs FTS5's 'merge' of pages on table, a background write
// each, until one does no work (changes no more than the structure row).
func mergeSteps(ctx context.Context, a *Agent, table string, pages int) error {
	for worked := true; worked; {
		if err := a.writeBackground(ctx, func(_ context.Context, c *conn) error {
			before := c.db.TotalChanges()
			if err := c.exec(fmt.Sprintf(`INSERT INTO %s(%s, rank) VALUES ('merge', %d)`, table, table, pages)); err != nil {
				return err
			}
			worked = c.db.TotalChanges()-before > 1
			return nil
		}); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// segments is how many segments table's index holds.
func (a *Agent) segments(ctx context.Context, table string) (int, error) {
	n := 0
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT count(DISTINCT segid) FROM `+table+`_idx`, nil,
			func(s *sqlite3.Stmt) error { n = s.ColumnInt(0); return nil })
	})
	return n, err
}
