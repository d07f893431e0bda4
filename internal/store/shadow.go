package store

import (
	"errors"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// shadow reads what FTS5 records of a full-text table in its shadow
// tables, on the connection whose query is being scored: the table's row
// count and token total (the averages record, %_data row 1) and a row's
// size (%_docsize), which bm25 weighs. They are the values FTS5's
// xRowCount, xColumnTotalSize and xColumnSize return, read without them
// (givenBM25 says why). A statement run from inside a query's function
// sees the same snapshot as the query.
type shadow struct{ c *conn }

func shadowOf(c *conn) shadow { return shadow{c} }

// averagesRow is the rowid of FTS5's averages record in %_data.
const averagesRow = 1

// shadowSQL is each full-text table's two queries, made once: the row
// size is read for every row a search scores.
var shadowSQL = func() map[string]struct{ totals, size string } {
	out := map[string]struct{ totals, size string }{}
	for table := range contentOf {
		out[table] = struct{ totals, size string }{
			"SELECT block FROM " + table + "_data WHERE id = ?",
			"SELECT sz FROM " + table + "_docsize WHERE id = ?",
		}
	}
	return out
}()

// totals is table's row count and its rows' tokens, all columns together.
func (sh shadow) totals(table string) (rows, tokens int64, err error) {
	vs, err := sh.varints(table, shadowSQL[table].totals, averagesRow)
	if err == nil && (len(vs) == 0 || vs[0] <= 0) {
		err = fmt.Errorf("no rows in the averages record %v", vs)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read %s's totals: %w", table, err)
	}
	for _, v := range vs[1:] {
		tokens += v
	}
	return vs[0], tokens, nil
}

// rowSize is row's size in tokens in table, all columns together.
func (sh shadow) rowSize(table string, row int64) (int, error) {
	vs, err := sh.varints(table, shadowSQL[table].size, row)
	if err != nil {
		return 0, fmt.Errorf("read the size of %s row %d: %w", table, row, err)
	}
	var n int64
	for _, v := range vs {
		n += v
	}
	return int(n), nil
}

var errNoShadowRow = errors.New("no such row")

// varints are those of the one blob query (one of shadowSQL[table], by
// id) returns.
func (sh shadow) varints(table, query string, id int64) ([]int64, error) {
	if query == "" {
		return nil, fmt.Errorf("not a full-text table: %q", table)
	}
	s, err := sh.c.prepare(query)
	if err != nil {
		return nil, err
	}
	defer s.Reset()
	if err := s.BindInt64(1, id); err != nil {
		return nil, err
	}
	if !s.Step() {
		if err := s.Err(); err != nil {
			return nil, err
		}
		return nil, errNoShadowRow
	}
	if s.ColumnType(0) != sqlite3.BLOB {
		return nil, fmt.Errorf("not a blob: %v", s.ColumnType(0))
	}
	return varints(s.ColumnRawBlob(0)) // before the Reset that frees it
}

// varints decodes b, a run of SQLite varints (FTS5's sqlite3Fts5GetVarint:
// big-endian groups of 7 bits, a 9th byte of 8).
func varints(b []byte) ([]int64, error) {
	var out []int64
	for len(b) > 0 {
		v, n := varint(b)
		if n == 0 {
			return nil, fmt.Errorf("truncated varint in %x", b)
		}
		out = append(out, int64(v))
		b = b[n:]
	}
	return out, nil
}

// varint is the varint b starts with and its length, 0 when b ends first.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8 && i < len(b); i++ {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}
