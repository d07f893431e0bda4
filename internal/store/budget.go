package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Spent is what runs cost.
type Spent struct {
	Calls  int
	Tokens int // in and out
}

// SpentBy sums the calls and tokens of the runs of provider that started in
// [from, to), leaving out those run by holder: what other processes (the
// nightly timer's job, the daemon, an admin's CLI) spent of a night's LLM
// budget. A run that was killed before it could write its row is not
// counted.
func (a *Agent) SpentBy(ctx context.Context, provider, notHolder string, from, to time.Time) (Spent, error) {
	var sp Spent
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT coalesce(sum(calls), 0), coalesce(sum(tokens_in + tokens_out), 0)
			FROM consolidation_runs WHERE started_at >= ? AND started_at < ? AND provider = ? AND holder != ?`,
			[]any{from.UnixMilli(), to.UnixMilli(), provider, notHolder}, func(s *sqlite3.Stmt) error {
				sp.Calls, sp.Tokens = s.ColumnInt(0), s.ColumnInt(1)
				return nil
			})
	})
	if err != nil {
		return Spent{}, fmt.Errorf("sum the runs of %s: %w", provider, err)
	}
	return sp, nil
}
