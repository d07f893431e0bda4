package benchdata

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// Raw is the floor Dormouse's figures are printed beside: the same SQLite
// (ncruces, WAL, synchronous FULL as Dormouse's default) with one table and an FTS5 index of its
// content, written and searched with nothing else: no HTTP, no JSON, no
// dedup probe, no kinds index, no ranking beyond bm25. It is safe for
// concurrent use; writes take turns, each in its own transaction, as a
// single-memory commit would.
type Raw struct {
	mu    sync.Mutex
	db    *sqlite3.Conn
	stmts map[string]*sqlite3.Stmt
}

// OpenRaw creates the baseline's file at path.
func OpenRaw(path string) (*Raw, error) {
	db, err := sqlite3.Open("file:" + path)
	if err != nil {
		return nil, fmt.Errorf("open raw baseline %s: %w", path, err)
	}
	if err := fts5.Register(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("register fts5: %w", err)
	}
	err = db.Exec(`PRAGMA journal_mode = WAL;
PRAGMA synchronous = FULL;
CREATE TABLE memories (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, ts INTEGER NOT NULL, content TEXT NOT NULL);
CREATE VIRTUAL TABLE memories_fts USING fts5(content, content='memories', content_rowid='id', tokenize='porter unicode61');`)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("create raw baseline schema: %w", err)
	}
	return &Raw{db: db, stmts: map[string]*sqlite3.Stmt{}}, nil
}

// Close closes the file.
func (r *Raw) Close() error {
	for _, s := range r.stmts {
		_ = s.Close()
	}
	return r.db.Close()
}

// Insert stores mems, row and FTS5 entry, in one transaction.
func (r *Raw) Insert(mems []Memory) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.db.Exec("BEGIN IMMEDIATE"); err != nil {
		return err
	}
	for _, m := range mems {
		if err := r.insertOne(m); err != nil {
			_ = r.db.Exec("ROLLBACK")
			return fmt.Errorf("raw insert: %w", err)
		}
	}
	return r.db.Exec("COMMIT")
}

func (r *Raw) insertOne(m Memory) error {
	if err := r.run(`INSERT INTO memories (session_id, ts, content) VALUES (?, ?, ?)`, nil,
		m.Session, m.Timestamp.UnixMilli(), m.Content); err != nil {
		return err
	}
	return r.run(`INSERT INTO memories_fts (rowid, content) VALUES (?, ?)`, nil, r.db.LastInsertRowID(), m.Content)
}

// Search runs query's words as one FTS5 MATCH of any of them, best bm25
// first, and returns how many of the limit rows it read.
func (r *Raw) Search(query string, limit int) (int, error) {
	var terms []string
	for _, w := range strings.Fields(query) {
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	err := r.run(`SELECT m.id, m.content FROM memories_fts f JOIN memories m ON m.id = f.rowid
		WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?`, func(*sqlite3.Stmt) { n++ },
		strings.Join(terms, " OR "), limit)
	return n, err
}

// run binds args to sql's statement (prepared once) and steps it, calling
// row on each row.
func (r *Raw) run(sql string, row func(*sqlite3.Stmt), args ...any) (err error) {
	s, ok := r.stmts[sql]
	if !ok {
		if s, _, err = r.db.Prepare(sql); err != nil {
			return err
		}
		r.stmts[sql] = s
	}
	defer func() {
		if rerr := s.Reset(); err == nil {
			err = rerr
		}
	}()
	for i, a := range args {
		switch v := a.(type) {
		case string:
			err = s.BindText(i+1, v)
		case int:
			err = s.BindInt(i+1, v)
		case int64:
			err = s.BindInt64(i+1, v)
		default:
			err = fmt.Errorf("bind %T", a)
		}
		if err != nil {
			return err
		}
	}
	for s.Step() {
		if row != nil {
			row(s)
		}
	}
	return s.Err()
}
