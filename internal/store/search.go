package store

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Hit is a search candidate: the fields ranking needs, not the whole record.
type Hit struct {
	Kind       string // memory, consolidation or fact
	ID         int64
	Timestamp  time.Time
	SessionID  string
	Role       string
	Text       string
	Importance float64 // memories: importance; facts: confidence; consolidations: 0.5
	BM25       float64 // FTS5 bm25(): lower is better, 0 when not from a text match
	// Consolidated: a memory a night has read (its claims are facts by now).
	Consolidated bool
	// Origin is a shared copy's original as a citation ("assistant/memory:12"),
	// "" for everything else.
	Origin string
}

// SearchOptions narrow the searches recall ranks. Terms are matched with
// OR; the time bounds apply to every layer, the rest to memories only.
type SearchOptions struct {
	Terms   []string
	Since   time.Time // zero: open
	Until   time.Time // zero: open; recall passes as_of here
	Session string
	Limit   int
	Role    string // only memories with this role (case-insensitive); "" any
	Source  string // only memories from this source; "" any
	Entity  string // only memories naming this entity (case-insensitive); "" any
	// Window bounds the cost of common words: only the Window most recently
	// stored matches are scored (0: all of them).
	Window int
	// MaxShare leaves out the terms that more than this share of the
	// memories hold, and more than Window when there is one (0: none left
	// out): the agent's own stop words, whose newest matches would fill
	// the window.
	MaxShare float64
	// Kinds searches the memories' kinds (internal/kinds) rather than their
	// words: "cities" finds "Chicago".
	Kinds bool
}

// matchAny builds an FTS5 query matching any of terms. Each term is quoted,
// so no user input is ever parsed as FTS5 syntax.
func matchAny(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// memoryFilters adds o's filters (all but Terms) to a query over
// daily_memories m.
func memoryFilters(sql string, args []any, o SearchOptions) (string, []any) {
	// Forgetting: a flagged memory (a forgotten claim said again) is never
	// a recall candidate. See forget.go.
	sql += ` AND m.flagged = 0`
	sql += ` AND m.retired_at IS NULL` // watched files: a retired memory is never recalled
	sql, args = supersededFilter(sql, args, o.Until)
	if !o.Since.IsZero() {
		sql += ` AND m.ts >= ?`
		args = append(args, o.Since.UnixMilli())
	}
	if !o.Until.IsZero() {
		sql += ` AND m.ts <= ?`
		args = append(args, o.Until.UnixMilli())
	}
	if o.Session != "" {
		sql += ` AND m.session_id = ?`
		args = append(args, o.Session)
	}
	if o.Role != "" {
		sql += ` AND m.role = ? COLLATE NOCASE`
		args = append(args, o.Role)
	}
	if o.Source != "" {
		sql += ` AND m.source = ?`
		args = append(args, o.Source)
	}
	if o.Entity != "" {
		sql += ` AND EXISTS (SELECT 1 FROM json_each(m.entities) e WHERE json_extract(e.value, '$.text') = ? COLLATE NOCASE)`
		args = append(args, o.Entity)
	}
	return sql, args
}

// Stats describe one agent's file.
type Stats struct {
	Agent            string
	Memories         int64
	Unconsolidated   int64
	Consolidations   int64
	Facts            int64
	CurrentFacts     int64
	Oldest           *time.Time
	Newest           *time.Time
	LastConsolidated string
	DBBytes          int64
	WALBytes         int64
	SchemaVersion    int
}

// Stats counts an agent's records and measures its files.
func (a *Agent) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Agent: a.name}
	err := a.read(ctx, func(c *conn) error {
		err := c.query(ctx, `SELECT count(*), coalesce(sum(consolidated = 0 AND retired_at IS NULL), 0), min(ts), max(ts) FROM daily_memories`, nil,
			func(s *sqlite3.Stmt) error {
				st.Memories = s.ColumnInt64(0)
				st.Unconsolidated = s.ColumnInt64(1)
				if s.ColumnType(2) != sqlite3.NULL {
					o, n := storedTime(s.ColumnInt64(2)), storedTime(s.ColumnInt64(3))
					st.Oldest, st.Newest = &o, &n
				}
				return nil
			})
		if err != nil {
			return err
		}
		err = c.query(ctx, `SELECT count(*), coalesce(max(date), '') FROM consolidated_memories`, nil, func(s *sqlite3.Stmt) error {
			st.Consolidations = s.ColumnInt64(0)
			st.LastConsolidated = s.ColumnText(1)
			return nil
		})
		if err != nil {
			return err
		}
		err = c.query(ctx, `SELECT count(*), coalesce(sum(valid_to IS NULL AND superseded_by IS NULL AND rejected = 0), 0) FROM facts`, nil,
			func(s *sqlite3.Stmt) error {
				st.Facts = s.ColumnInt64(0)
				st.CurrentFacts = s.ColumnInt64(1)
				return nil
			})
		if err != nil {
			return err
		}
		st.SchemaVersion, err = c.userVersion()
		return err
	})
	if err != nil {
		return Stats{}, fmt.Errorf("stats of agent %q: %w", a.name, err)
	}
	if fi, err := os.Stat(a.path); err == nil {
		st.DBBytes = fi.Size()
	}
	if fi, err := os.Stat(a.path + "-wal"); err == nil {
		st.WALBytes = fi.Size()
	}
	return st, nil
}
