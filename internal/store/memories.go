package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Entity is a named thing found in a memory's text.
type Entity struct {
	Text string
	Type string
}

// Memory is a raw, timestamped record: layer 1.
type Memory struct {
	ID              int64
	SessionID       string
	Timestamp       time.Time
	InteractionType string
	Role            string
	Content         string
	Context         json.RawMessage
	Importance      float64
	Source          string
	ContentHash     string
	Summary         string
	Entities        []Entity
	Topics          []string
	Consolidated    bool
	ConsolidationID *int64
	CreatedAt       time.Time
	// Flagged: the content was forgotten or rejected before (see Forget).
	// A flagged memory is kept and listed, never recalled or consolidated.
	Flagged bool
	// SupersededBy is the memory that stated a new value of what this one
	// stated (see supersede.go); nil while current.
	SupersededBy *int64
	// SharedFrom is the memory this one is a shared copy of (see
	// share.go); nil for the agent's own.
	SharedFrom *Provenance
}

// Inserted reports the id a new memory got, or the id of the identical
// memory already stored.
type Inserted struct {
	ID        int64
	Duplicate bool
}

// ErrNotFound is returned for a memory, fact or consolidation id that does not exist.
var ErrNotFound = errors.New("not found")

const memoryColumns = `id, session_id, ts, interaction_type, role, content, context, importance,
	source, content_hash, summary, entities, topics, consolidated, consolidation_id, created_at, flagged, superseded_by,
	shared_from_agent, shared_from_id`

// Insert stores mems in one transaction: all of them or none. A memory whose
// content hash and session match one stored within the dedup window is not
// stored again; its existing id is returned.
func (a *Agent) Insert(ctx context.Context, mems []Memory) ([]Inserted, error) {
	out := make([]Inserted, len(mems))
	now := a.opts.Now()
	rows, err := a.rowsOf(mems)
	if err != nil {
		return nil, err
	}
	err = a.write(ctx, func(ctx context.Context, c *conn) error {
		check, err := anyForgotten(ctx, c)
		if err != nil {
			return err
		}
		for i := range mems {
			m := &mems[i]
			ins, err := a.insertOne(ctx, c, m, rows[i], now, check)
			if err != nil {
				return fmt.Errorf("insert memory %d of %d: %w", i+1, len(mems), err)
			}
			out[i] = ins
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	a.opts.captured.mark()
	a.profileAtCapture(ctx, mems, out)
	return out, nil
}

// row is what a memory's insert binds beyond its own fields: its kinds
// (for the kinds index), its day and its JSON columns.
type row struct {
	kinds, day, entities, topics string
	context                      any
}

// rowsOf works out the rows of mems on the caller's goroutine, before the
// write: the writer, which every write waits for, then only binds them
// (kinds.Of was a fifth of the writer's time on dense text when the kinds
// index's SQL function ran it inside the transaction).
func (a *Agent) rowsOf(mems []Memory) ([]row, error) {
	kindsOf := kindsOrNone(a.opts.Kinds)
	out := make([]row, len(mems))
	for i := range mems {
		m := &mems[i]
		entities, topics, context, err := derivedColumns(m)
		if err != nil {
			return nil, fmt.Errorf("encode memory %d: %w", i+1, err)
		}
		out[i] = row{kinds: kindsOf(m.Content), day: m.Timestamp.In(a.opts.Location).Format(time.DateOnly),
			entities: entities, topics: topics, context: context}
	}
	return out, nil
}

// rowsChunk is a chunk of InsertChunks with its rows (rowsOf).
type rowsChunk struct {
	mems []Memory
	rows []row
	err  error
}

// InsertChunks stores the memories that arrive on chunks, in order, in one
// transaction: all of them or none. It lets the caller derive the next chunk
// while the previous one is being inserted; the transaction stays open until
// chunks is closed, so the producer must keep up (or cancel ctx).
func (a *Agent) InsertChunks(ctx context.Context, chunks <-chan []Memory) ([]Inserted, error) {
	var out []Inserted
	var important []Memory // for the profile, after the commit
	now := a.opts.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the rows stage if the write gives up first
	withRows := a.withRows(ctx, chunks)
	err := a.writeSolo(ctx, func(ctx context.Context, c *conn) error {
		check, err := anyForgotten(ctx, c)
		if err != nil {
			return err
		}
		for {
			var chunk rowsChunk
			var ok bool
			select {
			case chunk, ok = <-withRows:
			case <-ctx.Done():
				return ctx.Err()
			}
			if !ok {
				return nil
			}
			if chunk.err != nil {
				return chunk.err
			}
			for i := range chunk.mems {
				ins, err := a.insertOne(ctx, c, &chunk.mems[i], chunk.rows[i], now, check)
				if err != nil {
					return fmt.Errorf("insert memory %d: %w", len(out)+1, err)
				}
				out = append(out, ins)
				important = a.appendImportant(important, chunk.mems[i], ins)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	a.opts.captured.mark()
	a.putCaptureProfile(ctx, important)
	return out, nil
}

// withRows passes on the chunks with their rows (rowsOf), worked out on a
// goroutine of its own while the writer inserts the chunk before. It
// closes its channel when chunks closes or ctx ends.
func (a *Agent) withRows(ctx context.Context, chunks <-chan []Memory) <-chan rowsChunk {
	out := make(chan rowsChunk, 1)
	go func() {
		defer close(out)
		for {
			var chunk []Memory
			var ok bool
			select {
			case chunk, ok = <-chunks:
			case <-ctx.Done():
				return
			}
			if !ok {
				return
			}
			rows, err := a.rowsOf(chunk)
			select {
			case out <- rowsChunk{chunk, rows, err}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// duplicateSQL finds an identical memory of the same session within the
// dedup window. It goes by the content hash, which few rows share, through
// the index of each UTC day's first 8 digits (migration 16), one day of the
// window at a time: the unary + keeps SQLite off the (session_id, ts) index,
// which it would pick otherwise and which, for clients that send no session,
// holds every memory of the window, making each insert scan all of the
// day's rows.
const duplicateSQL = `WITH RECURSIVE days(d) AS (
		SELECT ?3 / 86400000 UNION ALL SELECT d + 1 FROM days WHERE d < ?4 / 86400000)
	SELECT id FROM daily_memories
	WHERE ts / 86400000 IN days AND substr(content_hash, 1, 8) = substr(?1, 1, 8) AND content_hash = ?1
	AND +session_id = ?2 AND +ts BETWEEN ?3 AND ?4 LIMIT 1`

// insertOne stores m as r (rowsOf); checkForgotten says whether anything
// was ever forgotten, so its content must be looked up (forget.go).
func (a *Agent) insertOne(ctx context.Context, c *conn, m *Memory, r row, now time.Time, checkForgotten bool) (Inserted, error) {
	ts := m.Timestamp.UnixMilli()
	// A copy is always its own row: forgetting its original must find it.
	if w := a.opts.DedupWindow.Milliseconds(); w > 0 && m.SharedFrom == nil {
		var dup int64
		err := c.query(ctx, duplicateSQL,
			[]any{m.ContentHash, m.SessionID, ts - w, ts + w}, func(s *sqlite3.Stmt) error {
				dup = s.ColumnInt64(0)
				return nil
			})
		if err != nil {
			return Inserted{}, err
		}
		if dup != 0 {
			return Inserted{ID: dup, Duplicate: true}, nil
		}
	}
	// A forgotten claim said again is kept but flagged, and counts as
	// consolidated (by nothing): no day record or fact will carry it.
	flagged := m.SharedFrom != nil && m.Flagged // a copy of a flagged memory
	if checkForgotten && !flagged {
		var err error
		if flagged, err = isForgottenHash(ctx, c, m.Content); err != nil {
			return Inserted{}, err
		}
	}
	err := c.execArgs(ctx, `INSERT INTO daily_memories (session_id, ts, day, interaction_type, role,
		content, context, importance, source, content_hash, summary, entities, topics, created_at,
		flagged, consolidated, shared_from_agent, shared_from_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.SessionID, ts, r.day, m.InteractionType, m.Role, m.Content, r.context, m.Importance,
		m.Source, m.ContentHash, m.Summary, r.entities, r.topics, now.UnixMilli(),
		flagged, flagged, m.SharedFrom.agentOrNil(), m.SharedFrom.idOrNil())
	if err != nil {
		return Inserted{}, err
	}
	id := c.db.LastInsertRowID()
	if err := index(ctx, c, id, m.Content, r.kinds); err != nil {
		return Inserted{}, fmt.Errorf("index memory %d: %w", id, err)
	}
	return Inserted{ID: id}, nil
}

// index adds a new memory to the full-text indexes: its words and kinds,
// the text c.kinds made of them. (Deletes and updates are indexed by
// triggers, with the SQL function dormouse_kinds; see schema.go.)
func index(ctx context.Context, c *conn, id int64, content, kinds string) error {
	if err := c.execArgs(ctx, `INSERT INTO memories_fts(rowid, content) VALUES (?, ?)`, id, content); err != nil {
		return err
	}
	return c.execArgs(ctx, `INSERT INTO memory_kinds(rowid, kinds) VALUES (?, ?)`, id, kinds)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// storedTime is a time read back from a row's milliseconds, clamped to the years 0 to 9999 that
// JSON (RFC 3339) can write: a row stored before capture checked timestamps in UTC can hold year
// 10000, and one such row made every list, get and stats of its agent fail to encode.
func storedTime(ms int64) time.Time {
	return time.UnixMilli(min(max(ms, minStoredMilli), maxStoredMilli)).UTC()
}

var (
	minStoredMilli = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	maxStoredMilli = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC).UnixMilli()
)

func scanMemory(s *sqlite3.Stmt) (Memory, error) {
	m := Memory{
		ID:              s.ColumnInt64(0),
		SessionID:       s.ColumnText(1),
		Timestamp:       storedTime(s.ColumnInt64(2)),
		InteractionType: s.ColumnText(3),
		Role:            s.ColumnText(4),
		Content:         s.ColumnText(5),
		Importance:      s.ColumnFloat(7),
		Source:          s.ColumnText(8),
		ContentHash:     s.ColumnText(9),
		Summary:         s.ColumnText(10),
		Consolidated:    s.ColumnBool(13),
		CreatedAt:       storedTime(s.ColumnInt64(15)),
		Flagged:         s.ColumnBool(16),
	}
	if s.ColumnType(6) != sqlite3.NULL {
		m.Context = json.RawMessage(s.ColumnText(6))
	}
	if err := json.Unmarshal(s.ColumnRawText(11), &m.Entities); err != nil {
		return m, fmt.Errorf("memory %d: decode entities: %w", m.ID, err)
	}
	if err := json.Unmarshal(s.ColumnRawText(12), &m.Topics); err != nil {
		return m, fmt.Errorf("memory %d: decode topics: %w", m.ID, err)
	}
	if s.ColumnType(14) != sqlite3.NULL {
		id := s.ColumnInt64(14)
		m.ConsolidationID = &id
	}
	if s.ColumnType(17) != sqlite3.NULL {
		id := s.ColumnInt64(17)
		m.SupersededBy = &id
	}
	m.SharedFrom = scanProvenance(s, 18)
	return m, nil
}

// Get returns one memory.
func (a *Agent) Get(ctx context.Context, id int64) (Memory, error) {
	return readRow(ctx, a, fmt.Sprintf("get memory %d", id), fmt.Sprintf("memory %d", id),
		`SELECT `+memoryColumns+` FROM daily_memories WHERE id = ?`, []any{id}, scanMemory)
}

// Delete forgets a memory: it is removed (with its full-text entry), the
// day record citing it is taken apart for a rebuild, facts lose it as a
// source, and the same content arriving again is flagged (see forgetMemory);
// its shared copies in other agents are forgotten too (share.go).
// It reports ErrNotFound when there was nothing to delete.
func (a *Agent) Delete(ctx context.Context, id int64) error {
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		return forgetMemory(ctx, c, id, time.Now())
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("delete memory %d: %w", id, err)
	}
	if err == nil {
		a.settleShares(ctx)
	}
	return err
}

// ListOptions select a page of memories, newest first.
type ListOptions struct {
	Since, Until time.Time // inclusive bounds on the timestamp; zero means open
	Session      string
	Limit        int
	Cursor       string // from a previous page's next cursor
}

// ErrBadCursor is returned for a cursor this store did not produce.
var ErrBadCursor = errors.New("invalid cursor")

// List returns one page of memories, newest first, and the cursor of the next
// page ("" on the last page).
func (a *Agent) List(ctx context.Context, o ListOptions) ([]Memory, string, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = 50
	}
	where := []string{"retired_at IS NULL"} // watched files: retired memories are not listed
	var args []any
	if !o.Since.IsZero() {
		where = append(where, "ts >= ?")
		args = append(args, o.Since.UnixMilli())
	}
	if !o.Until.IsZero() {
		where = append(where, "ts <= ?")
		args = append(args, o.Until.UnixMilli())
	}
	if o.Session != "" {
		where = append(where, "session_id = ?")
		args = append(args, o.Session)
	}
	if o.Cursor != "" {
		ts, id, err := decodeCursor(o.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "(ts < ? OR (ts = ? AND id < ?))")
		args = append(args, ts, ts, id)
	}
	args = append(args, limit+1)
	sql := `SELECT ` + memoryColumns + ` FROM daily_memories WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY ts DESC, id DESC LIMIT ?`
	out, err := readRows(ctx, a, "list memories", sql, args, scanMemory)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		last := out[limit-1]
		next = encodeCursor(last.Timestamp.UnixMilli(), last.ID)
	}
	return out, next, nil
}

func encodeCursor(ts, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(ts, 10) + ":" + strconv.FormatInt(id, 10)))
}

func decodeCursor(c string) (ts, id int64, err error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, 0, ErrBadCursor
	}
	t, i, ok := strings.Cut(string(b), ":")
	if !ok {
		return 0, 0, ErrBadCursor
	}
	ts, err1 := strconv.ParseInt(t, 10, 64)
	id, err2 := strconv.ParseInt(i, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, ErrBadCursor
	}
	return ts, id, nil
}
