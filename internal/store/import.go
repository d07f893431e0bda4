package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// ImportOptions say what an import may do.
type ImportOptions struct {
	// Merge adds the records to an agent that holds something already; a
	// record whose ID the agent has is then an error. Without it an import
	// into such an agent is ErrNotEmpty.
	Merge bool
	// CheckMemory holds each memory record to the rules a new memory meets
	// (capture's); nil checks the records against the schema alone.
	CheckMemory func(Memory) error
}

// ErrNotEmpty is an import without Merge into an agent that holds
// something.
var ErrNotEmpty = errors.New("the agent is not empty: import into a new agent, or merge")

// ImportError is a bad line of an import: nothing was imported.
type ImportError struct {
	Line int // 1-based
	Msg  string
}

func (e *ImportError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// importRecord is one line of an import, checked, ready to insert.
type importRecord struct {
	line    int
	t       *exportTable
	cols    []string
	vals    []any
	content string // of a memory record, for the full-text indexes
}

// Import reads an export (Export's format) and adds every record to the
// agent in one transaction: all of it, or on any bad record nothing, with
// the line that was wrong (*ImportError). It returns the records imported
// per kind.
func (a *Agent) Import(ctx context.Context, r io.Reader, o ImportOptions) (map[string]int, error) {
	recs, err := readImport(r, o)
	if err != nil {
		return nil, fmt.Errorf("import into agent %q: %w", a.name, err)
	}
	return a.importRecords(ctx, recs, o)
}

// ImportResult is what Store.Import did.
type ImportResult struct {
	Created bool           // the agent did not exist
	Records map[string]int // imported, per kind
}

// Import reads an export and imports it into the agent name, creating it
// when it does not exist (an import is asking for it, whatever
// Options.ExplicitCreate says). The whole export is checked before any
// agent is made; should the import fail anyway, an agent it made is
// removed again.
func (s *Store) Import(ctx context.Context, name string, r io.Reader, o ImportOptions) (ImportResult, error) {
	if err := ValidateAgentName(name); err != nil {
		return ImportResult{}, err
	}
	recs, err := readImport(r, o)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import into agent %q: %w", name, err)
	}
	created, err := s.Create(ctx, name)
	if err != nil {
		return ImportResult{}, err
	}
	var counts map[string]int
	err = s.With(ctx, name, false, func(a *Agent) error {
		counts, err = a.importRecords(ctx, recs, o)
		return err
	})
	if err != nil && created {
		if _, rerr := s.remove(ctx, name, refuseIfUsed, noTombstone); rerr != nil {
			err = errors.Join(err, fmt.Errorf("remove the agent the import made: %w", rerr))
		}
	}
	return ImportResult{Created: created, Records: counts}, err
}

// refuseIfUsed keeps an agent something was stored in meanwhile.
func refuseIfUsed(a *Agent) error {
	st, err := a.Stats(context.Background())
	if err == nil && st.Memories > 0 {
		err = errors.New("memories were stored in it meanwhile")
	}
	return err
}

// readImport parses and checks a whole export against this schema.
func readImport(r io.Reader, o ImportOptions) ([]importRecord, error) {
	tables, err := schemaTables()
	if err != nil {
		return nil, err
	}
	return parseImport(r, tables, o.CheckMemory)
}

// schemaTables are the exported tables as this build's schema has them,
// read once from a database in memory.
var schemaTables = sync.OnceValues(func() ([]*exportTable, error) {
	ctx := context.Background()
	db, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, fmt.Errorf("open the schema: %w", err)
	}
	c := &conn{db: db, stmts: map[string]*sqlite3.Stmt{}}
	defer c.close()
	if err := registerExtensions(c, nil, nil); err != nil { // the schema only: no rows to index
		return nil, err
	}
	if err := migrate(ctx, c, len(migrations)); err != nil {
		return nil, err
	}
	return exportTables(ctx, c)
})

func (a *Agent) importRecords(ctx context.Context, recs []importRecord, o ImportOptions) (map[string]int, error) {
	tables, err := schemaTables()
	if err != nil {
		return nil, err
	}
	var counts map[string]int
	err = a.writeSolo(ctx, func(ctx context.Context, c *conn) error {
		counts = map[string]int{}
		if !o.Merge {
			if err := refuseNonEmpty(ctx, c, tables); err != nil {
				return err
			}
		}
		return insertRecords(ctx, c, recs, o.Merge, counts)
	})
	if err != nil {
		return nil, fmt.Errorf("import into agent %q: %w", a.name, err)
	}
	return counts, nil
}

// refuseNonEmpty is ErrNotEmpty when any exported table holds a row (the
// sequence aside: it outlives the rows it numbered).
func refuseNonEmpty(ctx context.Context, c *conn, tables []*exportTable) error {
	for _, t := range tables {
		if t.kind == "sequence" {
			continue
		}
		any := false
		err := c.query(ctx, "SELECT 1 FROM "+t.table+" LIMIT 1", nil, func(*sqlite3.Stmt) error {
			any = true
			return nil
		})
		if err != nil {
			return err
		}
		if any {
			return fmt.Errorf("%w (it has %s records)", ErrNotEmpty, t.kind)
		}
	}
	return nil
}

// insertRecords inserts recs, foreign keys checked at the end (a fact may
// name the later fact that superseded it).
func insertRecords(ctx context.Context, c *conn, recs []importRecord, merge bool, counts map[string]int) error {
	if err := c.exec("PRAGMA defer_foreign_keys = ON"); err != nil {
		return err
	}
	for _, rec := range recs {
		if err := insertRecord(ctx, c, rec, merge); err != nil {
			return &ImportError{Line: rec.line, Msg: fmt.Sprintf("%s record: %v", rec.t.kind, err)}
		}
		counts[rec.t.kind]++
	}
	return checkForeignKeys(ctx, c)
}

func insertRecord(ctx context.Context, c *conn, rec importRecord, merge bool) error {
	if rec.t.kind == "sequence" {
		return raiseSequence(ctx, c, rec)
	}
	verb := "INSERT"
	if merge && rec.t.kind == "forgotten" {
		verb = "INSERT OR IGNORE" // forgotten already: the same hash
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(rec.cols)), ", ")
	q := verb + " INTO " + rec.t.table + " (" + strings.Join(rec.cols, ", ") + ") VALUES (" + marks + ")"
	if err := c.execArgs(ctx, q, rec.vals...); err != nil {
		return err
	}
	if rec.t.kind == "memory" {
		return index(ctx, c, c.db.LastInsertRowID(), rec.content, c.kinds(rec.content))
	}
	return nil
}

// raiseSequence sets an AUTOINCREMENT counter to the record's, unless the
// rows already took it further.
func raiseSequence(ctx context.Context, c *conn, rec importRecord) error {
	var name string
	var seq int64
	for i, col := range rec.cols {
		switch v := rec.vals[i].(type) {
		case string:
			if col == "name" {
				name = v
			}
		case int64:
			if col == "seq" {
				seq = v
			}
		}
	}
	if !slices.ContainsFunc(exported, func(e struct{ kind, table string }) bool { return e.table == name }) {
		return fmt.Errorf("name %q is not a table the export holds", name)
	}
	if err := c.execArgs(ctx, `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?`, seq, name); err != nil {
		return err
	}
	if c.db.Changes() > 0 {
		return nil
	}
	return c.execArgs(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, name, seq)
}

// checkForeignKeys names the first record that refers to a row that is
// neither in the agent nor in the import.
func checkForeignKeys(ctx context.Context, c *conn) error {
	var msg string
	err := c.query(ctx, `SELECT "table", rowid, parent FROM pragma_foreign_key_check LIMIT 1`, nil,
		func(s *sqlite3.Stmt) error {
			msg = fmt.Sprintf("the %s row with id %d refers to a %s row that neither the agent nor the import holds",
				s.ColumnText(0), s.ColumnInt64(1), s.ColumnText(2))
			return nil
		})
	if err != nil {
		return err
	}
	if msg != "" {
		return errors.New(msg)
	}
	return nil
}

// maxImportLine bounds one record's line.
const maxImportLine = 64 << 20

// parseImport reads and checks every line of an export against tables.
func parseImport(r io.Reader, tables []*exportTable, check func(Memory) error) ([]importRecord, error) {
	byKind := map[string]*exportTable{}
	for _, t := range tables {
		byKind[t.kind] = t
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxImportLine)
	var p importParse
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := p.line(n, line, byKind, check); err != nil {
			if rerr := sc.Err(); rerr != nil { // the line was cut by a failed read: say why
				return nil, fmt.Errorf("read the import: %w", rerr)
			}
			return nil, &ImportError{Line: n, Msg: err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the import: %w", err)
	}
	switch {
	case !p.header:
		return nil, &ImportError{Line: 1, Msg: `the import is empty: want a Dormouse export, whose first line is {"type":"dormouse-export",...}`}
	case !p.ended:
		return nil, &ImportError{Line: p.last + 1, Msg: "the export ends early, without its end line: it was cut short; export it again"}
	}
	return p.recs, nil
}

// importParse is parseImport's progress through the lines.
type importParse struct {
	header, ended bool
	last          int // the last line read
	recs          []importRecord
}

func (p *importParse) line(n int, line []byte, byKind map[string]*exportTable, check func(Memory) error) error {
	p.last = n
	fields, err := decodeLine(line)
	switch {
	case err != nil:
		return err
	case p.ended:
		return errors.New("a line after the export's end line")
	case !p.header:
		p.header = true
		return checkHeader(fields)
	case fields["type"] == exportEnd:
		p.ended = true
		if got := fields["records"]; got != json.Number(strconv.Itoa(len(p.recs))) {
			return fmt.Errorf("the end line counts %v records, but %d came before it: the export is damaged", got, len(p.recs))
		}
		return nil
	}
	rec, err := parseRecord(n, fields, byKind, check)
	if err == nil {
		p.recs = append(p.recs, rec)
	}
	return err
}

// decodeLine reads a line's one JSON object, numbers kept as written.
func decodeLine(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	if fields == nil {
		return nil, errors.New("not a JSON object: null")
	}
	return fields, nil
}

func checkHeader(fields map[string]any) error {
	if fields["type"] != exportHeader {
		return fmt.Errorf(`want the export's header first, {"type":"dormouse-export",...}; got type %v`, fields["type"])
	}
	format, _ := fields["format"].(json.Number)
	if format.String() != strconv.Itoa(ExportFormat) {
		return fmt.Errorf("export format %v is not one this dormouse reads (%d)", fields["format"], ExportFormat)
	}
	sv, _ := fields["schema"].(json.Number)
	schema, err := sv.Int64()
	if err != nil || schema < 1 || schema > int64(SchemaVersion) {
		return fmt.Errorf("schema %v is not one this dormouse knows (1 to %d): upgrade dormouse", fields["schema"], SchemaVersion)
	}
	return nil
}

// parseRecord checks one record: a known kind, its table's columns only,
// each value of its column's type, and a memory by check.
func parseRecord(n int, fields map[string]any, byKind map[string]*exportTable, check func(Memory) error) (importRecord, error) {
	kind, _ := fields["type"].(string)
	t := byKind[kind]
	if t == nil {
		return importRecord{}, fmt.Errorf("unknown record type %v", fields["type"])
	}
	rec := importRecord{line: n, t: t}
	for _, col := range t.cols { // in column order: the same SQL for the same shape
		v, ok := fields[col.name]
		if !ok {
			continue
		}
		val, err := importValue(col, v)
		if err != nil {
			return importRecord{}, fmt.Errorf("%s record: %s: %v", kind, col.name, err)
		}
		rec.cols = append(rec.cols, col.name)
		rec.vals = append(rec.vals, val)
	}
	for name := range fields {
		if _, ok := t.column(name); !ok && name != "type" {
			return importRecord{}, fmt.Errorf("%s record: unknown field %q", kind, name)
		}
	}
	if kind == "memory" {
		m := recordMemory(rec)
		rec.content = m.Content
		if check != nil {
			if err := check(m); err != nil {
				return importRecord{}, fmt.Errorf("memory record: %v", err)
			}
		}
	}
	return rec, nil
}

// importValue is v as column col stores it.
func importValue(col column, v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.Number:
		if col.typ == "TEXT" || col.typ == "BLOB" {
			return nil, fmt.Errorf("want a string, got the number %s", v)
		}
		if i, err := v.Int64(); err == nil && col.typ != "REAL" {
			return i, nil
		}
		f, err := v.Float64()
		if err != nil || col.typ == "" {
			return nil, fmt.Errorf("%s is not a number this column can hold", v)
		}
		return f, nil
	case string:
		switch col.typ {
		case "TEXT", "":
			return v, nil
		case "BLOB":
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				return nil, fmt.Errorf("want standard base64: %v", err)
			}
			return blob(b), nil
		}
		return nil, fmt.Errorf("want a number, got a string")
	}
	return nil, fmt.Errorf("want a number, a string or null, got %T", v)
}

// recordMemory is the memory a memory record describes, for the checks of
// capture.
func recordMemory(rec importRecord) Memory {
	var m Memory
	for i, col := range rec.cols {
		s, _ := rec.vals[i].(string)
		switch col {
		case "session_id":
			m.SessionID = s
		case "ts":
			ms, _ := rec.vals[i].(int64)
			m.Timestamp = time.UnixMilli(ms).UTC()
		case "interaction_type":
			m.InteractionType = s
		case "role":
			m.Role = s
		case "content":
			m.Content = s
		case "context":
			m.Context = json.RawMessage(s)
		case "importance":
			m.Importance, _ = rec.vals[i].(float64)
		case "source":
			m.Source = s
		}
	}
	return m
}
