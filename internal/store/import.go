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
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/durable"
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
// per kind. The export is checked as it is copied to a spool file beside
// the agent's, then inserted from there: the agent's other writes never
// wait for the upload, and no import is held in memory.
func (a *Agent) Import(ctx context.Context, r io.Reader, o ImportOptions) (map[string]int, error) {
	f, err := spool(r, filepath.Dir(a.path), o)
	if err != nil {
		return nil, fmt.Errorf("import into agent %q: %w", a.name, err)
	}
	defer f.Close()
	return a.importRecords(ctx, streamImport(f, o), o)
}

// spool copies the export r to an unlinked file in dir, checking every line
// on the way, and returns the file at its start. A crash leaves nothing.
func spool(r io.Reader, dir string, o ImportOptions) (*os.File, error) {
	tables, err := schemaTables()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".import-spool-*")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 64<<10)
	err = parseImport(io.TeeReader(r, w), tables, o.CheckMemory, func(importRecord) error { return nil })
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// ImportResult is what Store.Import did.
type ImportResult struct {
	Created bool           // the agent did not exist
	Records map[string]int // imported, per kind
}

// Import reads an export and imports it into the agent name, creating it
// when it does not exist (an import is asking for it, whatever
// Options.ExplicitCreate says, and even after a delete). A new agent is
// built as the export streams in, under a temporary name, and moved into
// place only once whole: a failed or killed import leaves no agent, and an
// import of any size holds one record at a time. Into an agent that exists
// the export is checked whole first, on its way to a spool file (Agent.Import),
// so the agent's other writes wait for the inserts only, never the upload.
func (s *Store) Import(ctx context.Context, name string, r io.Reader, o ImportOptions) (ImportResult, error) {
	if err := ValidateAgentName(name); err != nil {
		return ImportResult{}, err
	}
	if s.exists(name) {
		var counts map[string]int
		err := s.With(ctx, name, false, func(a *Agent) error {
			var err error
			counts, err = a.Import(ctx, r, o)
			return err
		})
		return ImportResult{Records: counts}, err
	}
	counts, err := s.importNew(ctx, name, streamImport(r, o), o)
	if errors.Is(err, errAgentExists) {
		err = fmt.Errorf("import into agent %q: %w (it was made while the import ran: import again)", name, ErrNotEmpty)
	}
	if err != nil {
		return ImportResult{}, err
	}
	return ImportResult{Created: true, Records: counts}, nil
}

// errAgentExists is importNew finding the agent made meanwhile.
var errAgentExists = errors.New("the agent exists")

// importNew imports recs into the agent name, which does not exist: into a
// file of a temporary name that becomes the agent's only when the import
// committed and the file was checkpointed and closed.
func (s *Store) importNew(ctx context.Context, name string, recs recordSource, o ImportOptions) (map[string]int, error) {
	tmp, err := os.CreateTemp(s.dir, "."+name+".import-*")
	if err != nil {
		return nil, fmt.Errorf("import into agent %q: %w", name, err)
	}
	path := tmp.Name()
	_ = tmp.Close()
	defer removeDB(path)
	a, err := openAgent(ctx, name, path, s.opts, func(*UnavailableError) {})
	if err != nil {
		return nil, fmt.Errorf("import into agent %q: %w", name, err)
	}
	counts, err := a.importRecords(ctx, recs, o)
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return counts, s.publish(name, path)
}

// exists says whether the agent name is open or has a file.
func (s *Store) exists(name string) bool {
	s.mu.Lock()
	_, open := s.agents[name]
	s.mu.Unlock()
	_, err := os.Stat(s.agentPath(name))
	return open || !errors.Is(err, fs.ErrNotExist)
}

// publish makes the closed agent file at path the agent name's, unless the
// agent was made meanwhile (errAgentExists): a link never replaces a file.
// A tombstone goes after, so a crash between leaves the agent, not a
// deleted one.
func (s *Store) publish(name, path string) error {
	err := os.Link(path, s.agentPath(name))
	if errors.Is(err, fs.ErrExist) {
		return errAgentExists
	}
	if err == nil {
		err = durable.SyncDir(s.dir)
	}
	if err == nil {
		err = os.Remove(s.tombstonePath(name))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("import into agent %q: put the agent in place: %w", name, err)
	}
	return nil
}

// removeDB removes a database file and the files SQLite keeps beside it.
func removeDB(path string) {
	for _, p := range []string{path + "-wal", path + "-shm", path + "-journal", path} {
		_ = os.Remove(p)
	}
}

// streamImport hands the records of the export r to add as it reads them.
func streamImport(r io.Reader, o ImportOptions) recordSource {
	return func(add func(importRecord) error) error {
		tables, err := schemaTables()
		if err != nil {
			return err
		}
		return parseImport(r, tables, o.CheckMemory, add)
	}
}

// recordSource hands an import's records to add, in order, and fails as
// the first bad one or add does.
type recordSource func(add func(importRecord) error) error

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

func (a *Agent) importRecords(ctx context.Context, recs recordSource, o ImportOptions) (map[string]int, error) {
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
		in, err := newInserter(ctx, c, tables, o.Merge)
		if err != nil {
			return err
		}
		return in.insertAll(ctx, recs, counts)
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

// inserter puts an import's records into an agent, inside the caller's
// transaction.
type inserter struct {
	c      *conn
	tables []*exportTable
	merge  bool
	// counters are the agent's AUTOINCREMENT counters before the import: an
	// id up to one was given out already, to a row the agent has or deleted.
	counters map[string]int64
	// lines are the import's lines by table and rowid, to name the record
	// a foreign key check finds.
	lines map[rowKey]int
}

type rowKey struct {
	table string
	rowid int64
}

func newInserter(ctx context.Context, c *conn, tables []*exportTable, merge bool) (*inserter, error) {
	in := &inserter{c: c, tables: tables, merge: merge, counters: map[string]int64{}, lines: map[rowKey]int{}}
	err := c.query(ctx, `SELECT name, seq FROM sqlite_sequence`, nil, func(s *sqlite3.Stmt) error {
		in.counters[s.ColumnText(0)] = max(in.counters[s.ColumnText(0)], s.ColumnInt64(1))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the id counters: %w", err)
	}
	return in, nil
}

// insertAll inserts recs, foreign keys checked at the end (a fact may name
// the later fact that superseded it), and raises the counters past every id
// the import shows was used.
func (in *inserter) insertAll(ctx context.Context, recs recordSource, counts map[string]int) error {
	if err := in.c.exec("PRAGMA defer_foreign_keys = ON"); err != nil {
		return err
	}
	err := recs(func(rec importRecord) error {
		if err := in.insert(ctx, rec); err != nil {
			if isRecordError(err) {
				return &ImportError{Line: rec.line, Msg: fmt.Sprintf("%s record: %v", rec.t.kind, err)}
			}
			return fmt.Errorf("line %d: %w", rec.line, err)
		}
		counts[rec.t.kind]++
		return nil
	})
	if err != nil {
		return err
	}
	if err := in.checkForeignKeys(ctx); err != nil {
		return err
	}
	return raiseForgottenCounters(ctx, in.c)
}

// isRecordError tells an error of the record (a constraint it breaks, one
// of the import's own checks) from one of the agent (a full disk).
func isRecordError(err error) bool {
	var se *sqlite3.Error
	if !errors.As(err, &se) {
		return true
	}
	switch se.Code() {
	case sqlite3.CONSTRAINT, sqlite3.MISMATCH, sqlite3.TOOBIG, sqlite3.RANGE:
		return true
	}
	return false
}

func (in *inserter) insert(ctx context.Context, rec importRecord) error {
	if rec.t.kind == "sequence" {
		return raiseSequence(ctx, in.c, in.tables, rec)
	}
	if err := in.checkNewID(rec); err != nil {
		return err
	}
	if in.merge && rec.t.kind == "memory" {
		if err := flagForgotten(ctx, in.c, &rec); err != nil {
			return err
		}
	}
	verb := "INSERT"
	if in.merge && rec.t.kind == "forgotten" {
		verb = "INSERT OR IGNORE" // forgotten already: the same hash
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(rec.cols)), ", ")
	q := verb + " INTO " + rec.t.table + " (" + strings.Join(rec.cols, ", ") + ") VALUES (" + marks + ")"
	if err := in.c.execArgs(ctx, q, rec.vals...); err != nil {
		return err
	}
	in.lines[rowKey{rec.t.table, in.c.db.LastInsertRowID()}] = rec.line // of a WITHOUT ROWID table: never asked for
	if rec.t.kind == "memory" {
		return index(ctx, in.c, in.c.db.LastInsertRowID(), rec.content, in.c.kinds(rec.content))
	}
	return nil
}

// checkNewID refuses an id the agent gave out already: one it holds, or one
// of a row it deleted, which an old citation (memory:12) still names.
func (in *inserter) checkNewID(rec importRecord) error {
	if !rec.t.autoincrement {
		return nil
	}
	id, ok := rec.value("id").(int64)
	if last := in.counters[rec.t.table]; ok && id <= last {
		return fmt.Errorf("id %d was given out by this agent already (its %s ids run to %d, deleted ones included): "+
			"an import adds only ids beyond them", id, rec.t.kind, last)
	}
	return nil
}

// flagForgotten stores a merged memory whose content the agent forgot
// flagged, as Insert does: kept, never recalled, consolidated by nothing.
func flagForgotten(ctx context.Context, c *conn, rec *importRecord) error {
	forgot, err := isForgotten(ctx, c, rec.content)
	if err != nil || !forgot {
		return err
	}
	rec.set("flagged", int64(1))
	rec.set("consolidated", int64(1))
	return nil
}

// raiseSequence sets an AUTOINCREMENT counter to the record's, unless the
// rows already took it further.
func raiseSequence(ctx context.Context, c *conn, tables []*exportTable, rec importRecord) error {
	name, _ := rec.value("name").(string)
	seq, _ := rec.value("seq").(int64)
	if !slices.ContainsFunc(tables, func(t *exportTable) bool { return t.table == name && t.autoincrement }) {
		return fmt.Errorf("name %q is not a table whose ids the export counts", name)
	}
	return raiseCounter(ctx, c, name, seq)
}

// raiseCounter makes table's AUTOINCREMENT counter at least seq; it never
// lowers it.
func raiseCounter(ctx context.Context, c *conn, table string, seq int64) error {
	if err := c.execArgs(ctx, `UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?`, seq, table); err != nil {
		return err
	}
	if c.db.Changes() > 0 {
		return nil
	}
	return c.execArgs(ctx, `INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, table, seq)
}

// raiseForgottenCounters makes the memory and fact counters cover the ids
// of forgotten ones, which an export's sequence records should but may not.
func raiseForgottenCounters(ctx context.Context, c *conn) error {
	for kind, table := range map[string]string{ForgottenMemory: "daily_memories", ForgottenFact: "facts"} {
		var last int64
		err := c.query(ctx, `SELECT coalesce(max(source_id), 0) FROM forgotten WHERE kind = ?`, []any{kind},
			func(s *sqlite3.Stmt) error { last = s.ColumnInt64(0); return nil })
		if err != nil {
			return err
		}
		if last == 0 {
			continue
		}
		if err := raiseCounter(ctx, c, table, last); err != nil {
			return fmt.Errorf("raise the %s ids past the forgotten ones: %w", kind, err)
		}
	}
	return nil
}

// checkForeignKeys names the first record that refers to a row that is
// neither in the agent nor in the import.
func (in *inserter) checkForeignKeys(ctx context.Context) error {
	var ie *ImportError
	err := in.c.query(ctx, `SELECT "table", rowid, parent FROM pragma_foreign_key_check LIMIT 1`, nil,
		func(s *sqlite3.Stmt) error {
			table, rowid := s.ColumnText(0), s.ColumnInt64(1)
			ie = &ImportError{Line: in.lines[rowKey{table, rowid}],
				Msg: fmt.Sprintf("the %s row with id %d refers to a %s row that neither the agent nor the import holds",
					table, rowid, s.ColumnText(2))}
			return nil
		})
	if err != nil {
		return err
	}
	if ie != nil {
		return ie
	}
	return nil
}

// maxImportLine bounds one record's line.
const maxImportLine = 64 << 20

// parseImport reads and checks every line of an export against tables,
// handing each record to add as soon as it is read: an import of any size
// never holds more than one record. An error of add is returned as it is.
func parseImport(r io.Reader, tables []*exportTable, check func(Memory) error, add func(importRecord) error) error {
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
		rec, ok, err := p.line(n, line, byKind, check)
		if err != nil {
			if rerr := sc.Err(); rerr != nil && !errors.Is(rerr, bufio.ErrTooLong) { // the line was cut by a failed read: say why
				return fmt.Errorf("read the import: %w", rerr)
			}
			return &ImportError{Line: n, Msg: err.Error()}
		}
		if ok {
			if err := add(rec); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return &ImportError{Line: p.last + 1, Msg: fmt.Sprintf("the line is longer than %d MiB", maxImportLine>>20)}
	} else if err != nil {
		return fmt.Errorf("read the import: %w", err)
	}
	switch {
	case !p.header:
		return &ImportError{Line: 1, Msg: `the import is empty: want a Dormouse export, whose first line is {"type":"dormouse-export",...}`}
	case !p.ended:
		return &ImportError{Line: p.last + 1, Msg: "the export ends early, without its end line: it was cut short; export it again"}
	}
	return nil
}

// importParse is parseImport's progress through the lines.
type importParse struct {
	header, ended bool
	last          int // the last line read
	records       int // read so far
}

// line reads line n: a record (ok), or the header or end line.
func (p *importParse) line(n int, line []byte, byKind map[string]*exportTable, check func(Memory) error) (rec importRecord, ok bool, err error) {
	p.last = n
	fields, err := decodeLine(line)
	switch {
	case err != nil:
		return rec, false, err
	case p.ended:
		return rec, false, errors.New("a line after the export's end line")
	case !p.header:
		p.header = true
		return rec, false, checkHeader(fields)
	case fields["type"] == exportEnd:
		p.ended = true
		if got := fields["records"]; got != json.Number(strconv.Itoa(p.records)) {
			return rec, false, fmt.Errorf("the end line counts %v records, but %d came before it: the export is damaged", got, p.records)
		}
		return rec, false, nil
	}
	rec, err = parseRecord(n, fields, byKind, check)
	if err != nil {
		return rec, false, err
	}
	p.records++
	return rec, true, nil
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
	if len(rec.cols) == 0 {
		return importRecord{}, fmt.Errorf("%s record: no fields", kind)
	}
	for name := range fields {
		if _, ok := t.column(name); !ok && name != "type" {
			return importRecord{}, fmt.Errorf("%s record: unknown field %q", kind, name)
		}
	}
	if err := checkRecord(rec); err != nil {
		return importRecord{}, fmt.Errorf("%s record: %v", kind, err)
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
		i, err := v.Int64()
		switch {
		case err == nil && col.typ != "REAL":
			return i, nil
		case col.typ == "INTEGER":
			return nil, fmt.Errorf("want a whole number, got %s", v)
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
