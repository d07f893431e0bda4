package store

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// DayActivity is one local day of an agent as the page's activity picture
// draws it: the memories of the day, those still waiting for
// consolidation, and the consolidation runs of the day.
type DayActivity struct {
	Day          string
	Memories     int
	Waiting      int // not yet consolidated (and not retired)
	Runs, Failed int // runs that consolidated the day, and those of them that failed
}

// Activity lists the days from since to until (dates, both included) that
// have a memory or a run, oldest first. Both counts come from the day
// indexes, so a long history costs only the range asked for.
func (a *Agent) Activity(ctx context.Context, since, until string) ([]DayActivity, error) {
	var out []DayActivity
	err := a.read(ctx, func(c *conn) error {
		out = out[:0]
		return c.query(ctx, activitySQL, []any{since, until}, func(s *sqlite3.Stmt) error {
			out = append(out, DayActivity{Day: s.ColumnText(0), Memories: s.ColumnInt(1), Waiting: s.ColumnInt(2),
				Runs: s.ColumnInt(3), Failed: s.ColumnInt(4)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("activity of agent %q from %s to %s: %w", a.name, since, until, err)
	}
	return out, nil
}

// activitySQL counts by day from the day indexes (daily_memories_day,
// consolidation_runs_day), so it reads only the range asked for.
const activitySQL = `SELECT day, sum(n), sum(w), sum(r), sum(f) FROM (
			SELECT day, count(*) AS n, coalesce(sum(consolidated = 0 AND retired_at IS NULL), 0) AS w, 0 AS r, 0 AS f
			FROM daily_memories WHERE day BETWEEN ?1 AND ?2 GROUP BY day
			UNION ALL
			SELECT day, 0, 0, count(*), coalesce(sum(status = 'failed'), 0)
			FROM consolidation_runs WHERE day BETWEEN ?1 AND ?2 GROUP BY day)
		GROUP BY day ORDER BY day`
