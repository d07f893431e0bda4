package store

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// Every full-text search first read what only a write changes: whether
// any memory is left out of recall (flagged, retired or superseded), the
// newest memory's time and each content table's largest id (for the kept
// document counts). That was four statements a memory search, half of a
// question's. A read connection keeps them with the PRAGMA data_version
// they were read under, which changes whenever another connection, of
// this process or another, commits; read connections never write, so one
// statement tells whether the kept state still holds.

// searchState is what a connection read last of the state searches check.
type searchState struct {
	version              int64 // PRAGMA data_version when read
	excluded, superseded bool  // some memory flagged or retired; some superseded
	newest               int64 // the newest memory's ts
	largest              map[string]int64
	roles                []string // the memories' distinct roles, ASCII lowercased, once read (rolesRead)
	rolesRead            bool
	none                 map[string]bool        // "table term": whether no row of table held term, once counted (bm25.go)
	important            map[string][]MemoryHit // ImportantMemories by their query and arguments
}

// maxRoles is the most distinct roles conn.roles keeps; past it, none.
const maxRoles = 1000

// roles are the distinct roles of all memories as of the latest commit,
// ASCII lowercased (asciiLower), read at most once a data version; nil
// when there are more than maxRoles.
func (c *conn) roles(ctx context.Context) ([]string, error) {
	st, err := c.searchState(ctx)
	if err != nil {
		return nil, err
	}
	if st.rolesRead {
		return st.roles, nil
	}
	var roles []string
	err = c.query(ctx, `SELECT DISTINCT role FROM daily_memories LIMIT ?`, []any{maxRoles + 1}, func(s *sqlite3.Stmt) error {
		roles = append(roles, asciiLower(s.ColumnText(0)))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the roles: %w", err)
	}
	if len(roles) > maxRoles {
		roles = nil
	}
	st.roles, st.rolesRead = roles, true
	return roles, nil
}

// searchState is the state as of the latest commit, kept while no other
// connection has committed since it was read.
func (c *conn) searchState(ctx context.Context) (*searchState, error) {
	var v int64
	err := c.query(ctx, `PRAGMA data_version`, nil, func(s *sqlite3.Stmt) error {
		v = s.ColumnInt64(0)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("data version: %w", err)
	}
	if c.state != nil && c.state.version == v {
		return c.state, nil
	}
	// Read after the version: a commit in between makes the state newer
	// than its version, and the next look reads it again.
	st := &searchState{version: v}
	err = c.query(ctx, `SELECT
		EXISTS (SELECT 1 FROM daily_memories WHERE flagged = 1 OR retired_at IS NOT NULL),
		EXISTS (SELECT 1 FROM daily_memories WHERE superseded_by IS NOT NULL), -- partial indexes answer both at once
		(SELECT coalesce(max(ts), 0) FROM daily_memories),
		(SELECT coalesce(max(id), 0) FROM daily_memories),
		(SELECT coalesce(max(id), 0) FROM facts),
		(SELECT coalesce(max(id), 0) FROM consolidated_memories)`, nil, func(s *sqlite3.Stmt) error {
		st.excluded, st.superseded, st.newest = s.ColumnBool(0), s.ColumnBool(1), s.ColumnInt64(2)
		st.largest = map[string]int64{
			"daily_memories": s.ColumnInt64(3), "facts": s.ColumnInt64(4), "consolidated_memories": s.ColumnInt64(5),
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the search state: %w", err)
	}
	c.state = st
	return st, nil
}

// searchRows reads on one read connection, with read, the rows of the
// search build makes with the connection's search state; none when the
// content table is empty (nothing of it can match), and none when build
// makes no SQL (no term left to search).
func searchRows[T any](ctx context.Context, a *Agent, what, content string,
	build func(c *conn, st *searchState) (string, []any, error), read rowReader[T]) ([]T, error) {
	var out []T
	err := a.read(ctx, func(c *conn) error {
		st, err := c.searchState(ctx)
		if err != nil || st.largest[content] == 0 {
			return err
		}
		sql, args, err := build(c, st)
		if err != nil || sql == "" {
			return err
		}
		out, err = read(ctx, c, sql, args)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// rowReader reads the rows of sql on a connection.
type rowReader[T any] func(ctx context.Context, c *conn, sql string, args []any) ([]T, error)

// scanning is the rowReader scanning each row with scan.
func scanning[T any](scan func(*sqlite3.Stmt) (T, error)) rowReader[T] {
	return func(ctx context.Context, c *conn, sql string, args []any) ([]T, error) {
		return scanRows(ctx, c, sql, args, scan)
	}
}
