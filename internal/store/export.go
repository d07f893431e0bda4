package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"
)

// An export is an agent's whole content as JSON lines: a header
// ({"type":"dormouse-export","format":1,"schema":N,"agent":NAME}), then one
// record per row of every table that holds something no other table can
// rebuild, each {"type":KIND, COLUMN: VALUE, ...} with the table's own
// column names and every column, and an end line (exportEnd). The records are the rows, so nothing the
// schema holds is dropped and an import puts back the very IDs
// (memory:12 still cites the same memory). Derived tables (the full-text
// and kinds indexes, leases) are rebuilt or left out; exportTest checks
// that every table of the schema is one or the other.

// ExportFormat is the header's "format": a change that an older importer
// would misread is a new number.
const ExportFormat = 1

// exportHeader is the header's "type"; exportEnd is the last line's,
// {"type":"dormouse-export-end","records":N}, so an export cut short (a
// dropped connection) is told from a whole one.
const (
	exportHeader = "dormouse-export"
	exportEnd    = "dormouse-export-end"
)

// exported are the tables an export holds, in the order it writes and an
// import inserts them: what others refer to first, sqlite_sequence last (so
// an import's inserts do not lower it and a deleted memory's ID is never
// handed out again).
var exported = []struct{ kind, table string }{
	{"day", "consolidated_memories"},
	{"memory", "daily_memories"},
	{"embedding", "memory_embeddings"},
	{"fact", "facts"},
	{"profile_line", "profile_lines"},
	{"run", "consolidation_runs"},
	{"forgotten", "forgotten"},
	{"pruned_day", "pruned_days"},
	{"tracked_file", "tracked_files"},
	{"rebuild_day", "file_rebuild_days"},
	{"shared_to", "shared_to"},        // so forgetting after a restore still finds the copies
	{"share_forget", "share_forgets"}, // copies still owed a forget
	{"sequence", "sqlite_sequence"},
}

// derived are the tables an export leaves out, and why. The full-text
// tables' shadow tables (NAME_data, NAME_idx, ...) go with them.
var derived = map[string]string{
	"memories_fts":       "rebuilt from daily_memories on import",
	"memory_kinds":       "rebuilt from daily_memories on import",
	"kinds_version":      "the lexicon memory_kinds was built with: this build's on import",
	"consolidations_fts": "kept by the insert trigger of consolidated_memories",
	"facts_fts":          "kept by the insert trigger of facts",
	"leases":             "a running job's lock: nothing to keep",
}

// column is one column of an exported table.
type column struct {
	name string
	typ  string // declared type: INTEGER, REAL, TEXT or BLOB
}

// exportTable is an exported table as this schema has it.
type exportTable struct {
	kind, table string
	cols        []column
	order       string // ORDER BY: the primary key, or every column
	// autoincrement: the table's ids are counted in sqlite_sequence, and one
	// is never given out twice.
	autoincrement bool
}

func (t *exportTable) column(name string) (column, bool) {
	for _, c := range t.cols {
		if c.name == name {
			return c, true
		}
	}
	return column{}, false
}

// exportTables reads the exported tables' columns from the schema on c.
func exportTables(ctx context.Context, c *conn) ([]*exportTable, error) {
	out := make([]*exportTable, 0, len(exported))
	for _, e := range exported {
		t := &exportTable{kind: e.kind, table: e.table}
		var pk []string
		err := c.query(ctx, `SELECT name, upper(type), pk FROM pragma_table_info(?) ORDER BY cid`, []any{e.table},
			func(s *sqlite3.Stmt) error {
				col := column{name: s.ColumnText(0), typ: s.ColumnText(1)}
				switch col.typ {
				case "", "INTEGER", "REAL", "TEXT", "BLOB":
				default:
					return fmt.Errorf("column %s.%s has type %s, which the export does not know", e.table, col.name, col.typ)
				}
				t.cols = append(t.cols, col)
				if n := s.ColumnInt(2); n > 0 {
					pk = append(pk, col.name)
				}
				return nil
			})
		if err != nil {
			return nil, fmt.Errorf("read the columns of %s: %w", e.table, err)
		}
		if len(t.cols) == 0 {
			return nil, fmt.Errorf("read the columns of %s: no such table", e.table)
		}
		if len(pk) == 0 {
			for _, col := range t.cols {
				pk = append(pk, col.name)
			}
		}
		t.order = strings.Join(pk, ", ")
		err = c.query(ctx, `SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ? AND sql LIKE '%AUTOINCREMENT%'`,
			[]any{e.table}, func(*sqlite3.Stmt) error { t.autoincrement = true; return nil })
		if err != nil {
			return nil, fmt.Errorf("read the schema of %s: %w", e.table, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// Export writes the agent's export to w, from one read transaction: a
// consistent snapshot while writes go on.
func (a *Agent) Export(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	err := a.read(ctx, func(c *conn) error {
		if err := c.exec("BEGIN"); err != nil {
			return err
		}
		defer func() { _ = c.exec("COMMIT") }()
		tables, err := exportTables(ctx, c)
		if err != nil {
			return err
		}
		if err := a.writeHeader(bw); err != nil {
			return err
		}
		n := 0
		for _, t := range tables {
			rows, err := exportRows(ctx, c, t, bw)
			if err != nil {
				return err
			}
			n += rows
		}
		_, err = fmt.Fprintf(bw, `{"type":%q,"records":%d}`+"\n", exportEnd, n)
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("export agent %q: %w", a.name, err)
	}
	return nil
}

func (a *Agent) writeHeader(w *bufio.Writer) error {
	h, err := json.Marshal(struct {
		Type   string `json:"type"`
		Format int    `json:"format"`
		Schema int    `json:"schema"`
		Agent  string `json:"agent"`
	}{exportHeader, ExportFormat, SchemaVersion, a.name})
	if err != nil {
		return err
	}
	_, err = w.Write(append(h, '\n'))
	return err
}

// exportRows writes one record per row of t, in primary key order, and
// returns how many.
func exportRows(ctx context.Context, c *conn, t *exportTable, w *bufio.Writer) (int, error) {
	names := make([]string, len(t.cols))
	keys := make([][]byte, len(t.cols))
	for i, col := range t.cols {
		names[i] = `"` + col.name + `"`
		k, _ := json.Marshal(col.name)
		keys[i] = append(k, ':')
	}
	q := "SELECT " + strings.Join(names, ", ") + " FROM " + t.table + " ORDER BY " + t.order
	kind, _ := json.Marshal(t.kind)
	line := make([]byte, 0, 1024)
	n := 0
	err := c.query(ctx, q, nil, func(s *sqlite3.Stmt) error {
		n++
		line = append(append(line[:0], `{"type":`...), kind...)
		for i, col := range t.cols {
			v, err := exportValue(s, i, col, t.table == namesTable)
			if err != nil {
				return fmt.Errorf("%s row: %w", t.table, err)
			}
			line = append(append(append(line, ','), keys[i]...), v...)
		}
		_, err := w.Write(append(line, '}', '\n'))
		return err
	})
	return n, err
}

// namesTable holds file names as the file system gave them (and its errors naming them): a Linux
// name is any bytes and JSON holds only UTF-8, so its text is exported with U+FFFD for what is not
// UTF-8. An import tracks that name, which no file has: the next scan finds the file under its own
// name, its content the same memories. Text anywhere else that is not UTF-8 fails the export.
const namesTable = "tracked_files"

// exportValue is column i of the row as JSON: a number, a string, null, or
// for a BLOB column the bytes in standard base64. names: text that is not UTF-8 is made so.
func exportValue(s *sqlite3.Stmt, i int, col column, names bool) ([]byte, error) {
	switch s.ColumnType(i) {
	case sqlite3.NULL:
		return []byte("null"), nil
	case sqlite3.INTEGER:
		return strconv.AppendInt(nil, s.ColumnInt64(i), 10), nil
	case sqlite3.FLOAT:
		return json.Marshal(s.ColumnFloat(i))
	case sqlite3.BLOB:
		if col.typ != "BLOB" {
			return nil, fmt.Errorf("column %s holds bytes, which only a BLOB column may", col.name)
		}
		return json.Marshal(base64.StdEncoding.EncodeToString(s.ColumnRawBlob(i)))
	default:
		v := s.ColumnText(i)
		if names {
			v = strings.ToValidUTF8(v, "\uFFFD")
		}
		if !utf8.ValidString(v) {
			return nil, fmt.Errorf("column %s holds text that is not UTF-8", col.name)
		}
		return jsonString(v)
	}
}

// jsonString is v as a JSON string with <, > and & as they are: an export
// is read by people and programs, never put in a page.
func jsonString(v string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
