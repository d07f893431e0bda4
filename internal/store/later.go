package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Some migrations cost time in proportion to the store: a new index over
// every memory, or every memory's kinds indexed afresh (~30 µs a memory:
// half a minute at a million). At the first open of a big agent they would
// hold the daemon's start-up, and READY, for that long. On a file of at
// least laterRows memories such a step runs after the open instead: the
// open only bumps the schema version and records the step in
// schema_later, and the agent's writer does the work as background writes
// (behind every foreground write), a chunk a transaction, resuming where
// it stopped at the next open. A step deferred this way must leave every
// memory findable while it waits: the probe's old index stays until the
// new one replaces it; the old kinds index until the new one holds every
// memory. A later migration must not depend on a deferred step's
// work.
type laterStep struct {
	// chunk does the next part of the step on c, inside a write
	// transaction, from cursor (0 at first); it returns the next cursor and
	// whether the step is done.
	chunk func(ctx context.Context, c *conn, cursor int64) (next int64, done bool, err error)
}

// laterSteps are the migrations, by the version they start from, that a
// big file runs after its open.
var laterSteps = map[int]laterStep{
	15: {chunk: func(ctx context.Context, c *conn, _ int64) (int64, bool, error) {
		return 0, true, c.exec(migrations[15]) // the day-keyed probe index: one statement
	}},
	16:        {chunk: reindexKinds},
	17:        {chunk: reindexKinds},
	kindsStep: {chunk: reindexKinds},
}

// kindsStep is the deferred step of a kinds re-index that a new lexicon
// asks for (restampKinds): it runs after any schema step.
const kindsStep = 1 << 30

// laterRows is the size (the largest memory id) from which a deferrable
// step runs after the open; laterChunk is how many memories one
// transaction of the kinds re-index takes (~30 ms of the writer's time).
// startLater is false in tests that run the chunks themselves.
var (
	laterRows  int64 = 20_000
	laterChunk       = 1000
	startLater       = true
)

const laterTable = `CREATE TABLE IF NOT EXISTS schema_later (
	step   INTEGER PRIMARY KEY, -- the user_version the migration starts from
	cursor INTEGER NOT NULL DEFAULT 0
)`

// deferStep records migration v to run after the open, inside the
// migration's transaction, when the file is big enough to need it.
func deferStep(c *conn, v int) (bool, error) {
	if _, ok := laterSteps[v]; !ok {
		return false, nil
	}
	if big, err := bigFile(c); err != nil || !big {
		return false, err
	}
	if err := c.exec(laterTable); err != nil {
		return false, err
	}
	return true, c.execArgs(context.Background(), "INSERT OR IGNORE INTO schema_later(step) VALUES (?)", v)
}

// bigFile reports whether the file on c holds laterRows memories or more
// (by the largest memory id).
func bigFile(c *conn) (bool, error) {
	var top int64
	err := c.query(context.Background(), "SELECT coalesce(max(id), 0) FROM daily_memories", nil, func(s *sqlite3.Stmt) error {
		top = s.ColumnInt64(0)
		return nil
	})
	return top >= laterRows, err
}

// restampKinds indexes every memory's kinds afresh when another lexicon
// than version built the index (kinds_version): at once on a small file,
// as a deferred step on a big one (from the start if one is under way).
// An empty version, an opener with no lexicon, changes nothing.
func restampKinds(ctx context.Context, c *conn, version string) error {
	if version == "" {
		return nil
	}
	if err := c.exec("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("re-index kinds: %w", err)
	}
	err := restamp(ctx, c, version)
	if err == nil {
		err = c.exec("COMMIT")
	}
	if err != nil {
		_ = c.exec("ROLLBACK")
		return fmt.Errorf("re-index kinds for lexicon %s: %w", version, err)
	}
	return nil
}

// restamp is restampKinds inside its transaction.
func restamp(ctx context.Context, c *conn, version string) error {
	stamped := ""
	if err := c.query(ctx, "SELECT version FROM kinds_version", nil, func(s *sqlite3.Stmt) error {
		stamped = s.ColumnText(0)
		return nil
	}); err != nil || stamped == version {
		return err
	}
	big, err := bigFile(c)
	switch {
	case err != nil:
	case !big:
		err = c.exec(migrations[16]) // the kinds of every memory, at once
	default:
		if err = c.exec(laterTable); err == nil {
			err = c.execArgs(ctx, `INSERT INTO schema_later(step) VALUES (?)
				ON CONFLICT(step) DO UPDATE SET cursor = 0`, kindsStep)
		}
	}
	if err != nil {
		return err
	}
	return c.execArgs(ctx, "UPDATE kinds_version SET version = ?", version)
}

// laterPending reports whether the file on c has deferred steps left.
func laterPending(c *conn) (bool, error) {
	n := 0
	err := c.query(context.Background(), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_later'", nil,
		func(s *sqlite3.Stmt) error {
			n = s.ColumnInt(0)
			return nil
		})
	if err != nil || n == 0 {
		return false, err
	}
	err = c.query(context.Background(), "SELECT count(*) FROM schema_later", nil, func(s *sqlite3.Stmt) error {
		n = s.ColumnInt(0)
		return nil
	})
	return n > 0, err
}

// laterOnce does the next chunk of the first deferred step left, in its own
// write transaction; done once none is left.
func laterOnce(ctx context.Context, c *conn) (done bool, err error) {
	step, cursor := -1, int64(0)
	err = c.query(ctx, "SELECT step, cursor FROM schema_later ORDER BY step LIMIT 1", nil, func(s *sqlite3.Stmt) error {
		step, cursor = s.ColumnInt(0), s.ColumnInt64(1)
		return nil
	})
	if err != nil || step < 0 {
		return step < 0, err
	}
	ls, ok := laterSteps[step]
	if !ok {
		return false, fmt.Errorf("schema step %d was deferred, and this dormouse cannot run it later", step)
	}
	next, stepDone, err := ls.chunk(ctx, c, cursor)
	if err != nil {
		return false, fmt.Errorf("%s after the open: %w", stepName(step), err)
	}
	if stepDone {
		return false, c.execArgs(ctx, "DELETE FROM schema_later WHERE step = ?", step)
	}
	return false, c.execArgs(ctx, "UPDATE schema_later SET cursor = ? WHERE step = ?", next, step)
}

// stepName says what deferred step step does, for an error.
func stepName(step int) string {
	if step == kindsStep {
		return "re-index kinds for a new lexicon"
	}
	return fmt.Sprintf("migrate schema to version %d", step+1)
}

// reindexKinds indexes afresh the kinds of the next laterChunk memories
// after id cursor, as migration 17 did for all at once, into a new index
// beside the one recall reads, which replaces it once every memory is in it.
// Indexing in place would leave a tombstone a memory, which FTS5's merges
// then walk (8× the CPU of the migration at once). Triggers keep the new
// index as the memories change meanwhile: a memory forgotten or refreshed
// after its chunk leaves it or is indexed again (one stored with an id
// the chunks passed, as an import may, is indexed at once); any other is
// indexed by its chunk. Only memories still stored are indexed, so a forgotten one
// stays forgotten.
func reindexKinds(ctx context.Context, c *conn, cursor int64) (int64, bool, error) {
	if cursor == 0 {
		if err := c.exec(kindsNextSchema); err != nil {
			return cursor, false, err
		}
	}
	last, n := cursor, 0
	err := c.query(ctx, "SELECT id FROM daily_memories WHERE id > ? ORDER BY id LIMIT ?", []any{cursor, laterChunk},
		func(s *sqlite3.Stmt) error {
			last, n = s.ColumnInt64(0), n+1
			return nil
		})
	if err != nil {
		return cursor, false, err
	}
	if n > 0 {
		if err := c.execArgs(ctx, `INSERT INTO memory_kinds_next(rowid, kinds)
			SELECT id, dormouse_kinds(content) FROM daily_memories WHERE id > ?1 AND id <= ?2`, cursor, last); err != nil {
			return cursor, false, err
		}
	}
	if n == laterChunk {
		return last, false, nil
	}
	if err := c.exec(kindsSwap); err != nil {
		return cursor, false, err
	}
	c.sizes.kindsChanged(1, last)
	return last, true, nil
}

// kindsNextSchema is the new kinds index, as migration 7 made the first,
// and the triggers that keep it as memories go or change.
const kindsNextSchema = `
DROP TRIGGER IF EXISTS daily_memories_kinds_next_ai;
DROP TRIGGER IF EXISTS daily_memories_kinds_next_ad;
DROP TRIGGER IF EXISTS daily_memories_kinds_next_au;
DROP TABLE IF EXISTS memory_kinds_next;
CREATE VIRTUAL TABLE memory_kinds_next USING fts5(
	kinds, content='', contentless_delete=1, tokenize='porter unicode61');
CREATE TRIGGER daily_memories_kinds_next_ai AFTER INSERT ON daily_memories
WHEN new.id <= (SELECT cursor FROM schema_later ORDER BY step LIMIT 1) BEGIN
	INSERT INTO memory_kinds_next(rowid, kinds) VALUES (new.id, dormouse_kinds(new.content));
END;
CREATE TRIGGER daily_memories_kinds_next_ad AFTER DELETE ON daily_memories
WHEN old.id <= (SELECT cursor FROM schema_later ORDER BY step LIMIT 1) BEGIN
	DELETE FROM memory_kinds_next WHERE rowid = old.id;
END;
CREATE TRIGGER daily_memories_kinds_next_au AFTER UPDATE OF content ON daily_memories
WHEN old.id <= (SELECT cursor FROM schema_later ORDER BY step LIMIT 1) BEGIN
	DELETE FROM memory_kinds_next WHERE rowid = old.id;
	INSERT INTO memory_kinds_next(rowid, kinds) VALUES (new.id, dormouse_kinds(new.content));
END;
`

// kindsSwap puts the new kinds index in the old one's place, with the
// triggers of migration 7 (renaming a table rewrites the triggers that
// name it, and refuses while one names a table that is gone).
const kindsSwap = `
DROP TRIGGER daily_memories_kinds_next_ai;
DROP TRIGGER daily_memories_kinds_next_ad;
DROP TRIGGER daily_memories_kinds_next_au;
DROP TRIGGER daily_memories_kinds_ad;
DROP TRIGGER daily_memories_kinds_au;
DROP TABLE memory_kinds;
ALTER TABLE memory_kinds_next RENAME TO memory_kinds;
` + kindsTriggers

// kindsTriggers keep the kinds index as memories go or change (migration 7;
// the swap of a re-index puts them back).
const kindsTriggers = `
CREATE TRIGGER daily_memories_kinds_ad AFTER DELETE ON daily_memories BEGIN
	DELETE FROM memory_kinds WHERE rowid = old.id;
END;
CREATE TRIGGER daily_memories_kinds_au AFTER UPDATE OF content ON daily_memories BEGIN
	DELETE FROM memory_kinds WHERE rowid = old.id;
	INSERT INTO memory_kinds(rowid, kinds) VALUES (new.id, dormouse_kinds(new.content));
END;
`

// laterTx is laterOnce in a write transaction of its own, with SQLite's
// temporary files on disk: building an index over a million memories
// sorts them, in memory otherwise (temp_store MEMORY: 77 MB of RSS for
// migration 16's index over a 1M file against 21 MB on disk, and faster).
// temp_store cannot change inside a transaction, hence outside it.
func laterTx(ctx context.Context, c *conn) (bool, error) {
	if err := c.exec("PRAGMA temp_store = FILE"); err != nil {
		return false, err
	}
	defer func() { _ = c.exec("PRAGMA temp_store = MEMORY") }()
	if err := c.execPrepared("BEGIN IMMEDIATE"); err != nil {
		return false, fmt.Errorf("begin write transaction: %w", err)
	}
	done, err := laterOnce(ctx, c)
	if err == nil {
		err = c.execPrepared("COMMIT")
	}
	if err != nil {
		_ = c.execPrepared("ROLLBACK")
	}
	return done, err
}

// runLater does the agent's deferred steps as background writes until
// none is left or ctx ends (the agent closes: the next open resumes).
func (a *Agent) runLater(ctx context.Context) {
	defer close(a.laterDone)
	start, longest := time.Now(), time.Duration(0)
	for chunks := 0; ; chunks++ {
		var done bool
		err := a.submitTo(a.background, &writeReq{ctx: ctx, done: make(chan error, 1), solo: true, noTx: true,
			fn: func(ctx context.Context, c *conn) error {
				began := time.Now()
				defer func() { longest = max(longest, time.Since(began)) }()
				var err error
				done, err = laterTx(ctx, c)
				return err
			}})
		switch {
		case err == nil && done:
			a.counts.forget("memory_kinds") // counted in the index replaced
			a.log.Info("schema migrated after the open", "chunks", chunks, "took", time.Since(start).Round(time.Millisecond),
				"longest_chunk", longest.Round(time.Millisecond))
			return
		case err == nil:
		case ctx.Err() != nil || errors.Is(err, ErrClosed):
			return
		default:
			a.log.Warn("schema migration after the open", "err", err)
			return
		}
	}
}
