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
}

// SearchOptions narrow a full-text search. Terms are matched with OR.
type SearchOptions struct {
	Terms   []string
	Since   time.Time // zero: open
	Until   time.Time // zero: open; recall passes as_of here
	Session string
	Limit   int
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

// SearchMemories returns up to Limit memories matching any term, with their
// BM25 scores. To keep the cost bounded for common words, it takes the most
// recently stored matches (descending rowid, which FTS5 walks without
// ranking every match) rather than ranking all of them.
func (a *Agent) SearchMemories(ctx context.Context, o SearchOptions) ([]Hit, error) {
	if len(o.Terms) == 0 {
		return nil, nil
	}
	sql := `SELECT m.id, m.ts, m.session_id, m.role, m.content, m.importance, bm25(memories_fts)
		FROM memories_fts JOIN daily_memories m ON m.id = memories_fts.rowid
		WHERE memories_fts MATCH ?`
	args := []any{matchAny(o.Terms)}
	sql, args = memoryFilters(sql, args, o)
	sql += ` ORDER BY memories_fts.rowid DESC LIMIT ?`
	args = append(args, max(o.Limit, 1))
	return a.hits(ctx, "memory", sql, args)
}

// RecentMemories returns the newest memories and the newest important ones
// (importance >= 0.8) within the filters: what recall offers when a query has
// no searchable words.
func (a *Agent) RecentMemories(ctx context.Context, o SearchOptions) ([]Hit, error) {
	base := `SELECT m.id, m.ts, m.session_id, m.role, m.content, m.importance, 0 FROM daily_memories m WHERE 1=1`
	sql, args := memoryFilters(base, nil, o)
	recent, err := a.hits(ctx, "memory", sql+` ORDER BY m.ts DESC LIMIT ?`, append(args, max(o.Limit, 1)))
	if err != nil {
		return nil, err
	}
	// Important memories (the partial index's condition, so it is used),
	// newest first, however old: a profile of what must not be forgotten.
	important, err := a.hits(ctx, "memory", sql+` AND m.importance >= 0.8 ORDER BY m.ts DESC LIMIT ?`, append(args, max(o.Limit, 1)))
	if err != nil {
		return nil, err
	}
	seen := make(map[int64]bool, len(recent))
	for _, h := range recent {
		seen[h.ID] = true
	}
	for _, h := range important {
		if !seen[h.ID] {
			recent = append(recent, h)
		}
	}
	return recent, nil
}

func memoryFilters(sql string, args []any, o SearchOptions) (string, []any) {
	// Forgetting: a flagged memory (a forgotten claim said again) is never
	// a recall candidate. See forget.go.
	sql += ` AND m.flagged = 0`
	sql += ` AND m.retired_at IS NULL` // watched files: a retired memory is never recalled
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
	return sql, args
}

// SearchConsolidations returns day records matching any term. Until bounds
// the record's last update, so a question asked "as of" a time never sees a
// summary written later.
func (a *Agent) SearchConsolidations(ctx context.Context, o SearchOptions) ([]Hit, error) {
	sql := `SELECT c.id, c.updated_at, '', '', c.summary, 0.5, `
	var args []any
	if len(o.Terms) > 0 {
		sql += `bm25(consolidations_fts) FROM consolidations_fts
			JOIN consolidated_memories c ON c.id = consolidations_fts.rowid WHERE consolidations_fts MATCH ?`
		args = append(args, matchAny(o.Terms))
	} else {
		sql += `0 FROM consolidated_memories c WHERE 1=1`
	}
	if !o.Until.IsZero() {
		sql += ` AND c.updated_at <= ?`
		args = append(args, o.Until.UnixMilli())
	}
	if !o.Since.IsZero() {
		sql += ` AND c.date >= ?`
		args = append(args, o.Since.In(a.opts.Location).Format(time.DateOnly))
	}
	sql += ` ORDER BY c.date DESC LIMIT ?`
	args = append(args, max(o.Limit, 1))
	return a.hits(ctx, "consolidation", sql, args)
}

// SearchFacts returns facts current at o.Until (or now) matching any term:
// never a superseded or rejected one.
func (a *Agent) SearchFacts(ctx context.Context, o SearchOptions) ([]Hit, error) {
	asOf := o.Until
	if asOf.IsZero() {
		asOf = time.Now()
	}
	sql := `SELECT f.id, f.valid_from, '', '', f.entity || ': ' || f.content, f.confidence, `
	var args []any
	if len(o.Terms) > 0 {
		sql += `bm25(facts_fts) FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid WHERE facts_fts MATCH ?`
		args = append(args, matchAny(o.Terms))
	} else {
		sql += `0 FROM facts f WHERE 1=1`
	}
	sql += ` AND f.rejected = 0 AND f.valid_from <= ? AND (f.valid_to IS NULL OR f.valid_to > ?)
		ORDER BY f.confidence DESC, f.valid_from DESC LIMIT ?`
	args = append(args, asOf.UnixMilli(), asOf.UnixMilli(), max(o.Limit, 1))
	return a.hits(ctx, "fact", sql, args)
}

func (a *Agent) hits(ctx context.Context, kind, sql string, args []any) ([]Hit, error) {
	var out []Hit
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, sql, args, func(s *sqlite3.Stmt) error {
			out = append(out, Hit{
				Kind:       kind,
				ID:         s.ColumnInt64(0),
				Timestamp:  storedTime(s.ColumnInt64(1)),
				SessionID:  s.ColumnText(2),
				Role:       s.ColumnText(3),
				Text:       s.ColumnText(4),
				Importance: s.ColumnFloat(5),
				BM25:       s.ColumnFloat(6),
			})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("search %ss: %w", kind, err)
	}
	return out, nil
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
