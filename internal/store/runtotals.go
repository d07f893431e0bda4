package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// RunTotals sums an agent's consolidation runs since its file began, for
// /metrics: the runs table is the record of every run, whichever process
// (daemon or nightly job) ran it.
type RunTotals struct {
	ByStatus  map[string]int64 // runs per status (ok, failed, partial)
	TokensIn  int64
	TokensOut int64
	// Duration histogram: Count runs took SumMS in all; Buckets[i] of them
	// took at most BoundsMS[i] (cumulative, as Prometheus wants).
	Count    int64
	SumMS    int64
	BoundsMS []int64
	Buckets  []int64
}

// RunTotals counts the agent's runs by status, their tokens, and their
// durations into the histogram buckets boundsMS (ascending).
func (a *Agent) RunTotals(ctx context.Context, boundsMS []int64) (RunTotals, error) {
	t := RunTotals{ByStatus: map[string]int64{}, BoundsMS: boundsMS, Buckets: make([]int64, len(boundsMS))}
	var sb strings.Builder
	sb.WriteString("SELECT count(*), coalesce(sum(duration_ms), 0)")
	args := make([]any, len(boundsMS))
	for i, b := range boundsMS {
		sb.WriteString(", coalesce(sum(duration_ms <= ?), 0)")
		args[i] = b
	}
	sb.WriteString(" FROM consolidation_runs")
	err := a.read(ctx, func(c *conn) error {
		err := c.query(ctx, `SELECT status, count(*), coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0)
			FROM consolidation_runs GROUP BY status`, nil, func(s *sqlite3.Stmt) error {
			t.ByStatus[s.ColumnText(0)] = s.ColumnInt64(1)
			t.TokensIn += s.ColumnInt64(2)
			t.TokensOut += s.ColumnInt64(3)
			return nil
		})
		if err != nil {
			return err
		}
		return c.query(ctx, sb.String(), args, func(s *sqlite3.Stmt) error {
			t.Count, t.SumMS = s.ColumnInt64(0), s.ColumnInt64(1)
			for i := range boundsMS {
				t.Buckets[i] = s.ColumnInt64(2 + i)
			}
			return nil
		})
	})
	if err != nil {
		return RunTotals{}, fmt.Errorf("run totals of agent %q: %w", a.name, err)
	}
	return t, nil
}
