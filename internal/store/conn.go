package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// conn is one SQLite connection with its prepared statements. A conn is
// used by one goroutine at a time: the writer owns its conn, readers borrow
// theirs from the agent's pool.
type conn struct {
	db    *sqlite3.Conn
	stmts map[string]*sqlite3.Stmt
	kinds func(string) string // what the kinds index holds of a text (Options.Kinds)
	sizes *docSizes           // the agent's kept row sizes, which its writes mark changed (docsize.go)
	state *searchState        // what searches check, as last read (searchstate.go)
	// hits is where a memory search's rows are read before they are copied
	// out at their number, kept empty between searches: at most the largest
	// search's rows (recall's candidates, 400 by default: 80 KB) a connection.
	hits []MemoryHit

	idleSince time.Time // when it was last returned to its readPool
}

// openConn opens path with Dormouse's pragmas. The file is created 0600
// before SQLite sees it, so the memories are never world-readable.
func openConn(ctx context.Context, path string, o Options) (*conn, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	_ = f.Close()
	if err != nil {
		return nil, err
	}
	db, err := sqlite3.OpenContext(ctx, "file:"+path)
	if err != nil {
		return nil, err
	}
	c := &conn{db: db, stmts: map[string]*sqlite3.Stmt{}, kinds: kindsOrNone(o.Kinds), sizes: o.sizes}
	if err := db.ConfigLog(reportRecovery(path, o.Logger)); err != nil {
		c.close()
		return nil, fmt.Errorf("set the SQLite log: %w", err)
	}
	// First: registering FTS5 reads the file, and another connection may
	// hold its lock a moment, e.g. the last one to close while it
	// checkpoints the WAL.
	if err := db.BusyTimeout(o.BusyTimeout); err != nil {
		c.close()
		return nil, err
	}
	if o.LeaveCheckpoints { // the last connection to close would checkpoint
		if _, err := db.Config(sqlite3.DBCONFIG_NO_CKPT_ON_CLOSE, true); err != nil {
			c.close()
			return nil, fmt.Errorf("leave checkpoints: %w", err)
		}
	}
	if o.exclusive { // before the first access, so SQLite never maps the -shm file
		if err := c.exec("PRAGMA locking_mode = EXCLUSIVE"); err != nil {
			c.close()
			return nil, fmt.Errorf("set locking mode: %w", err)
		}
	}
	if err := registerExtensions(c, c.kinds, c.sizes); err != nil {
		c.close()
		return nil, err
	}
	// One plan whatever the bindings: without it the planner reads a bound
	// LIMIT, and the statement expires at each ClearBindings and is parsed
	// again on its next use (11% of recall's CPU at 100,000 memories).
	if _, err := db.Config(sqlite3.DBCONFIG_ENABLE_QPSG, true); err != nil {
		c.close()
		return nil, fmt.Errorf("set query planner stability: %w", err)
	}
	pragmas := ""
	if fi.Size() == 0 {
		// Before anything is written: a new file frees pages incrementally
		// (retention.go). It cannot be set later without a VACUUM.
		pragmas = "PRAGMA auto_vacuum = INCREMENTAL;\n"
	}
	pragmas += fmt.Sprintf(`PRAGMA journal_mode = WAL;
PRAGMA synchronous = %s;
PRAGMA foreign_keys = ON;
PRAGMA cache_size = -%d;
PRAGMA temp_store = MEMORY;
PRAGMA wal_autocheckpoint = 0;
PRAGMA journal_size_limit = %d;`, o.Synchronous, o.cacheKiB(fi.Size()), walSizeLimit)
	if o.MaxPageCount > 0 {
		pragmas += fmt.Sprintf("\nPRAGMA max_page_count = %d;", o.MaxPageCount)
	}
	if err := c.exec(pragmas); err != nil {
		c.close()
		return nil, fmt.Errorf("set pragmas: %w", err)
	}
	return c, nil
}

// The writer's page cache grows with its file, a 64th of it, from the
// readers' size up to writerCacheMaxKiB (reached at 512 MiB, ~600,000
// memories): a batch into a large file touches the inner pages of every
// index and the segments FTS5 merges, which a reader's cache would not
// hold. SQLite takes the pages as it needs them, and the writer closes once
// idle after heavy writes (heavyWriterRows), which frees them.
const writerCacheMaxKiB = 8 << 10

// writerCacheKiB is the writer's page cache over a file of fileBytes, at
// least floorKiB.
func writerCacheKiB(fileBytes int64, floorKiB int) int {
	return int(min(max(fileBytes/64>>10, int64(floorKiB)), writerCacheMaxKiB))
}

// cacheKiB is the page cache of a connection opened with o on a file of
// fileBytes.
func (o Options) cacheKiB(fileBytes int64) int {
	if o.writer {
		return writerCacheKiB(fileBytes, o.CacheSizeKiB)
	}
	return o.CacheSizeKiB
}

// reportRecovery is the SQLite log of a connection to path: it tells the
// journal when the connection, the first to open the file, replays the WAL
// the last one left ("recovered N frames from WAL file …"): after a kill or
// a power cut, or a clean stop that left checkpoints to Litestream. SQLite's
// other notes are errors the store returns.
func reportRecovery(path string, log *slog.Logger) func(sqlite3.ExtendedErrorCode, string) {
	if log == nil {
		return nil
	}
	return func(code sqlite3.ExtendedErrorCode, msg string) {
		switch code {
		case sqlite3.NOTICE_RECOVER_WAL, sqlite3.NOTICE_RECOVER_ROLLBACK:
			log.Info("WAL replayed", "agent", strings.TrimSuffix(filepath.Base(path), ".db"), "sqlite", msg)
		}
	}
}

// kindsOrNone is Options.Kinds, or, when it is nil, a function that names
// no kinds.
func kindsOrNone(kindsOf func(string) string) func(string) string {
	if kindsOf == nil {
		return func(string) string { return "" }
	}
	return kindsOf
}

// registerExtensions gives c what the schema uses: FTS5 with
// dormouse_bm25, and the kinds function.
// kindsOf is the kinds index's SQL function (Options.Kinds); nil indexes none.
// sizes keeps the row sizes dormouse_bm25 reads; nil keeps none.
func registerExtensions(c *conn, kindsOf func(string) string, sizes *docSizes) error {
	db := c.db
	if err := registerBM25(c, sizes); err != nil { // bm25.go
		return fmt.Errorf("register fts5: %w", err)
	}
	kindsOf = kindsOrNone(kindsOf)
	if err := db.CreateFunction("dormouse_kinds", 1, sqlite3.DETERMINISTIC|sqlite3.INNOCUOUS,
		func(ctx sqlite3.Context, arg ...sqlite3.Value) { ctx.ResultText(kindsOf(arg[0].Text())) }); err != nil {
		return fmt.Errorf("register dormouse_kinds: %w", err)
	}
	return nil
}

func (c *conn) close() error {
	for _, s := range c.stmts {
		_ = s.Close()
	}
	c.stmts = nil
	return c.db.Close()
}

func (c *conn) exec(sql string) error { return c.db.Exec(sql) }

// execPrepared runs a parameterless statement from the statement cache: for
// the BEGIN and COMMIT of every group, which exec would parse each time.
func (c *conn) execPrepared(sql string) error {
	s, err := c.prepare(sql)
	if err != nil {
		return err
	}
	return s.Exec()
}

// prepare returns a cached statement, reset and with its bindings cleared.
func (c *conn) prepare(sql string) (*sqlite3.Stmt, error) {
	if s, ok := c.stmts[sql]; ok {
		return s, nil
	}
	s, tail, err := c.db.Prepare(sql)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", firstLine(sql), err)
	}
	if strings.TrimSpace(tail) != "" {
		_ = s.Close()
		return nil, fmt.Errorf("prepare %q: more than one statement", firstLine(sql))
	}
	c.stmts[sql] = s
	return s, nil
}

// readRows runs one query on a reader of a and returns what scan makes of
// each row; an error says it was reading what.
func readRows[T any](ctx context.Context, a *Agent, what, sql string, args []any, scan func(*sqlite3.Stmt) (T, error)) ([]T, error) {
	var out []T
	err := a.read(ctx, func(c *conn) (err error) {
		out, err = scanRows(ctx, c, sql, args, scan)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// scanRows runs one query on c and returns what scan makes of each row.
func scanRows[T any](ctx context.Context, c *conn, sql string, args []any, scan func(*sqlite3.Stmt) (T, error)) ([]T, error) {
	return appendRows(ctx, c, nil, sql, args, scan)
}

// appendRows is scanRows appending to out.
func appendRows[T any](ctx context.Context, c *conn, out []T, sql string, args []any, scan func(*sqlite3.Stmt) (T, error)) ([]T, error) {
	err := c.query(ctx, sql, args, func(s *sqlite3.Stmt) error {
		v, err := scan(s)
		out = append(out, v)
		return err
	})
	return out, err
}

// memoryHits is the rowReader of memory hits: read into the connection's
// buffer and copied out at their number, where grown row by row a search
// of 150 memories allocated three times their size (a tenth of recall's
// bytes).
func memoryHits(ctx context.Context, c *conn, sql string, args []any) ([]MemoryHit, error) {
	rows, err := appendRows(ctx, c, c.hits[:0], sql, args, scanMemoryHit)
	var out []MemoryHit
	if len(rows) > 0 {
		out = slices.Clone(rows)
	}
	clear(rows) // keep no row's text alive
	c.hits = rows[:0]
	return out, err
}

// writeValue is write for an fn that computes a value, such as a new id.
func writeValue[T any](ctx context.Context, a *Agent, fn func(ctx context.Context, c *conn) (T, error)) (T, error) {
	var v T
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		var err error
		v, err = fn(ctx, c)
		return err
	})
	return v, err
}

// readRow is readRows for a query of one row by id: none is ErrNotFound,
// said of missing.
func readRow[T any](ctx context.Context, a *Agent, what, missing, sql string, args []any, scan func(*sqlite3.Stmt) (T, error)) (T, error) {
	rows, err := readRows(ctx, a, what, sql, args, scan)
	if err == nil && len(rows) == 0 {
		err = fmt.Errorf("%s: %w", missing, ErrNotFound)
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return rows[len(rows)-1], nil
}

// query prepares sql, binds args and calls row for each result row.
func (c *conn) query(ctx context.Context, sql string, args []any, row func(*sqlite3.Stmt) error) (err error) {
	s, err := c.prepare(sql)
	if err != nil {
		return err
	}
	old := c.db.SetInterrupt(ctx)
	defer func() {
		c.db.SetInterrupt(old)
		if rerr := s.Reset(); rerr != nil && err == nil {
			err = rerr
		}
		_ = s.ClearBindings()
	}()
	if err := bind(s, args); err != nil {
		return err
	}
	for s.Step() {
		if row == nil {
			continue
		}
		if err := row(s); err != nil {
			return err
		}
	}
	if err := s.Err(); err != nil {
		if cerr := ctx.Err(); cerr != nil { // SQLite says "interrupted": say why
			return fmt.Errorf("%w: %v", cerr, err)
		}
		return err
	}
	return nil
}

// execArgs runs a statement that returns no rows.
func (c *conn) execArgs(ctx context.Context, sql string, args ...any) error {
	return c.query(ctx, sql, args, nil)
}

func bind(s *sqlite3.Stmt, args []any) error {
	for i, a := range args {
		p := i + 1
		var err error
		switch v := a.(type) {
		case nil:
			err = s.BindNull(p)
		case string:
			err = s.BindText(p, v)
		case []byte:
			if v == nil {
				err = s.BindNull(p)
			} else {
				err = s.BindText(p, string(v))
			}
		case blob:
			err = s.BindBlob(p, v)
		case int:
			err = s.BindInt64(p, int64(v))
		case int64:
			err = s.BindInt64(p, v)
		case *int64:
			if v == nil {
				err = s.BindNull(p)
			} else {
				err = s.BindInt64(p, *v)
			}
		case float64:
			err = s.BindFloat(p, v)
		case bool:
			err = s.BindBool(p, v)
		default:
			return fmt.Errorf("bind parameter %d: unsupported type %T", p, a)
		}
		if err != nil {
			return fmt.Errorf("bind parameter %d: %w", p, err)
		}
	}
	return nil
}

func (c *conn) userVersion() (int, error) {
	v := 0
	err := c.query(context.Background(), "PRAGMA user_version", nil, func(s *sqlite3.Stmt) error {
		v = s.ColumnInt(0)
		return nil
	})
	return v, err
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	return errors.Is(err, sqlite3.BUSY)
}
