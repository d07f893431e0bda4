package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Agent is one open agent file: a single writer goroutine that group-commits
// queued writes, and a small pool of read connections.
type Agent struct {
	name string
	path string
	opts Options
	log  *slog.Logger
	// settle forgets the shared copies this file owes a forget
	// (Store.settleShares); nil for an agent opened outside a Store.
	settle func(context.Context, *Agent)

	writes chan *writeReq
	// background holds the writes of background work (a consolidation's
	// commit): each runs alone, once no foreground write is queued, so a
	// capture that arrives while one waits goes first (see next).
	background chan *writeReq
	writerErr  chan error // closed when the writer goroutine has exited
	wconn      *conn      // nil while closed for want of writes (closeIdleConns)
	// writerOpen says whether wconn is open, and lastWrite (Unix ns) when
	// it last committed: for the janitor, which may not touch wconn.
	writerOpen atomic.Bool
	lastWrite  atomic.Int64
	// writerHeavy says wconn has written heavyWriterRows rows since it
	// opened: it is spare once idle (closeIdleConns).
	writerHeavy atomic.Bool
	// cacheSizedAt is wconn's TotalChanges when its page cache was last
	// sized to the file (resizeWriterCache). Only the writer touches it.
	cacheSizedAt int64

	readers *readPool

	// The writer never checkpoints (an fsync on its path would stall every
	// queued request): it nudges the checkpointer, which copies the WAL back
	// into the database on a read connection, at most every checkpointEvery.
	nudge    chan struct{}
	stopCkpt chan struct{}
	ckptDone chan struct{}

	// readOnly is an agent opened on a full disk (openReadOnly): no writer
	// connection, every write ErrFull, one read connection that holds the
	// file exclusively. The writer reopens it for writing once space is
	// free (reopenForWrites).
	readOnly atomic.Bool
	// writesFull is set when a write failed with ErrFull, cleared when one
	// commits.
	writesFull atomic.Bool
	// onCorrupt tells the Store that SQLite found the file corrupt.
	onCorrupt func(*UnavailableError)
	// counts are the document counts searches weigh their terms by (bm25.go).
	counts docCounts

	// stopLater stops the deferred migrations' work (later.go), which
	// closes laterDone once stopped; nil when none ran at the open.
	stopLater func()
	laterDone chan struct{}

	// Guarded by the Store's mutex.
	refs     int
	lastUsed time.Time
	closing  bool
}

// ErrClosed is returned for work submitted to an agent that is shutting down.
var ErrClosed = errors.New("agent is closed")

type writeReq struct {
	fn   func(ctx context.Context, c *conn) error
	ctx  context.Context
	done chan error
	solo bool // runs in a transaction of its own, exactly once (a stream cannot be replayed)
	noTx bool // solo, and outside any transaction (VACUUM): see Vacuum
	// closeIdle asks the writer to close its connection if nothing was
	// written since cutoff; fn is nil (see closeIdleWriter).
	closeIdle bool
	cutoff    time.Time
}

func openAgent(ctx context.Context, name, path string, o Options, onCorrupt func(*UnavailableError)) (*Agent, error) {
	o.sizes = new(docSizes)
	w, err := openConn(ctx, path, o.writerMode())
	if err != nil {
		return nil, fmt.Errorf("open agent %q: %w", name, err)
	}
	from, err := w.userVersion()
	if err != nil {
		_ = w.close()
		return nil, fmt.Errorf("open agent %q: %w", name, err)
	}
	if err := migrate(ctx, w, len(migrations)); err != nil {
		_ = w.close()
		return nil, fmt.Errorf("open agent %q: %w", name, err)
	}
	if err := backfillForgotten(ctx, w, from); err != nil { // forget.go
		_ = w.close()
		return nil, fmt.Errorf("open agent %q: %w", name, err)
	}
	if err := restampKinds(ctx, w, o.KindsVersion); err != nil { // later.go
		_ = w.close()
		return nil, fmt.Errorf("open agent %q: %w", name, err)
	}
	later, err := laterPending(w) // later.go
	if err != nil {
		_ = w.close()
		return nil, fmt.Errorf("open agent %q: %w", name, err)
	}
	a := newAgent(name, path, o, onCorrupt)
	a.setWriter(w)
	a.readers.release(o.ReadConns)
	a.start()
	if later && startLater {
		ctx, cancel := context.WithCancel(context.Background())
		a.stopLater, a.laterDone = cancel, make(chan struct{})
		go a.runLater(ctx)
	}
	return a, nil
}

// openReadOnly opens an agent whose file cannot be opened for writing
// because the disk is full: SQLite cannot even size the -shm file then. The
// one connection uses EXCLUSIVE locking mode, which keeps the WAL index in
// memory instead, so reads still see every committed write (a WAL left by a
// kill included). No other process can use the file meanwhile, and it could
// not write either.
func openReadOnly(ctx context.Context, name, path string, o Options, onCorrupt func(*UnavailableError)) (*Agent, error) {
	o.sizes = new(docSizes)
	c, err := openConn(ctx, path, o.exclusiveMode())
	if err != nil {
		return nil, fmt.Errorf("open agent %q read-only: %w", name, err)
	}
	v, err := c.userVersion()
	if err == nil && v != len(migrations) {
		err = fmt.Errorf("%w: schema version %d must be migrated to %d first", ErrFull, v, len(migrations))
	}
	if err != nil {
		_ = c.close()
		return nil, fmt.Errorf("open agent %q read-only: %w", name, err)
	}
	a := newAgent(name, path, o, onCorrupt)
	a.readOnly.Store(true)
	a.readers.add(c)
	a.readers.release(1) // only the one connection, which holds the file exclusively
	a.start()
	return a, nil
}

func newAgent(name, path string, o Options, onCorrupt func(*UnavailableError)) *Agent {
	open := func(ctx context.Context) (*conn, error) {
		c, err := openConn(ctx, path, o)
		if err != nil {
			return nil, fmt.Errorf("open read connection for agent %q: %w", name, err)
		}
		return c, nil
	}
	return &Agent{
		name:       name,
		path:       path,
		opts:       o,
		log:        o.Logger.With("agent", name),
		writes:     make(chan *writeReq, o.GroupCommitMax),
		background: make(chan *writeReq, 1),
		writerErr:  make(chan error),
		readers:    newReadPool(o.ReadConns, open),
		onCorrupt:  onCorrupt,
		nudge:      make(chan struct{}, 1),
		ckptDone:   make(chan struct{}),
		stopCkpt:   make(chan struct{}),
	}
}

func (a *Agent) start() {
	go a.writeLoop()
	go a.checkpointLoop()
}

// errReadOnly is the answer to every write on an agent opened read-only.
var errReadOnly = fmt.Errorf("%w: the agent was opened read-only because the disk had no space left", ErrFull)

// checkpointEvery bounds how often the background checkpoint runs.
const checkpointEvery = 500 * time.Millisecond

func (a *Agent) checkpointLoop() {
	defer close(a.ckptDone)
	for range a.nudge {
		if a.opts.LeaveCheckpoints {
			continue
		}
		err := a.read(context.Background(), func(c *conn) error { return checkpoint(c, a.opts.BusyTimeout) })
		switch {
		case err == nil, isBusy(err):
		case errors.Is(err, ErrFull): // every refused write says so, and /health
			a.log.Debug("checkpoint", "err", err)
		default:
			a.log.Warn("checkpoint", "err", err)
		}
		select {
		case <-time.After(checkpointEvery):
		case <-a.stopCkpt:
			return
		}
	}
}

// walRestartFrames is how many frames the WAL may hold after a passive
// checkpoint before the checkpointer makes SQLite write it from its start
// again (SQLite's own auto-checkpoint point, ~4 MiB of 4 KiB pages).
const walRestartFrames = 1000

// walSizeLimit is SQLite's journal_size_limit: the size the WAL file is cut
// back to when it is written from its start again after a checkpoint. A
// catch-up's WAL peaks at ~39 MB, and SQLite would otherwise keep the file
// that large on disk for good (it reuses the file rather than shrink it).
// It is twice what walRestartFrames frames of 4 KiB pages take, so a WAL the
// checkpointer keeps in bounds is not cut and grown again at each restart.
const walSizeLimit = 8 << 20

// checkpoint copies the WAL back into the database. PASSIVE never waits,
// but it stops at the oldest snapshot a reader holds, and the writer only
// writes the WAL from its start again once all of it is copied: with reads
// that overlap (a catch-up's, beside capture's writes) that never happens,
// and the WAL grew to 706 MB for an 11 MB database during a catch-up, each
// commit writing new blocks of the file (5x slower than in place). Past
// walRestartFrames, RESTART waits for those readers (restartWait at most)
// and restarts it: new reads meanwhile read the database.
func checkpoint(c *conn, busy time.Duration) error {
	frames, err := passiveCheckpoint(c)
	if err != nil || frames < walRestartFrames {
		return err
	}
	_, err = restartWAL(c, busy)
	return err
}

// passiveCheckpoint copies what it can and returns the frames left.
func passiveCheckpoint(c *conn) (frames int, err error) {
	err = c.query(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)", nil,
		func(s *sqlite3.Stmt) error { frames = s.ColumnInt(1); return nil })
	return frames, err
}

// restartWait bounds how long a restart waits for the reads already
// running. SQLite holds new writes back while it waits, so a long read (an
// export) must cost capture this much at most, not the busy timeout; a
// restart that gives up is tried again at the next checkpoint.
const restartWait = 100 * time.Millisecond

// restartWAL runs a RESTART checkpoint waiting at most restartWait, then
// gives c its usual busy timeout back; restarted is false when it gave up.
func restartWAL(c *conn, busy time.Duration) (restarted bool, err error) {
	if err := c.db.BusyTimeout(restartWait); err != nil {
		return false, err
	}
	err = c.query(context.Background(), "PRAGMA wal_checkpoint(RESTART)", nil,
		func(s *sqlite3.Stmt) error { restarted = s.ColumnInt(0) == 0; return nil })
	if e := c.db.BusyTimeout(busy); err == nil {
		err = e
	}
	return restarted && err == nil, err
}

// Name returns the agent's validated name.
func (a *Agent) Name() string { return a.name }

// write queues fn to run inside the writer's next transaction and waits until
// that transaction has committed (or fn failed). fn may run twice (see
// commit), so it must only assign its results, never accumulate them.
func (a *Agent) write(ctx context.Context, fn func(ctx context.Context, c *conn) error) error {
	return a.submit(&writeReq{fn: fn, ctx: ctx, done: make(chan error, 1)})
}

// writeSolo is write for an fn that must run exactly once, alone in its
// transaction.
func (a *Agent) writeSolo(ctx context.Context, fn func(ctx context.Context, c *conn) error) error {
	return a.submit(&writeReq{fn: fn, ctx: ctx, done: make(chan error, 1), solo: true})
}

// writeBackground is writeSolo for background work: it waits until no
// foreground write is queued (see next).
func (a *Agent) writeBackground(ctx context.Context, fn func(ctx context.Context, c *conn) error) error {
	return a.submitTo(a.background, &writeReq{fn: fn, ctx: ctx, done: make(chan error, 1), solo: true})
}

func (a *Agent) submit(req *writeReq) error { return a.submitTo(a.writes, req) }

func (a *Agent) submitTo(queue chan<- *writeReq, req *writeReq) error {
	ctx := req.ctx
	select {
	case queue <- req:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued, wait for the verdict even if ctx ends: the caller must
	// never report failure for a write that commits, or success for one
	// that does not. (A request whose ctx has ended by the time its
	// transaction starts is not run.)
	err := a.classify(<-req.done)
	if err == nil || errors.Is(err, ErrFull) {
		a.writesFull.Store(err != nil)
	}
	return err
}

// StorageFull reports whether the agent's writes fail for want of space: it
// was opened read-only on a full disk, or its latest write was ErrFull.
func (a *Agent) StorageFull() bool { return a.readOnly.Load() || a.writesFull.Load() }

func (a *Agent) writeLoop() {
	defer close(a.writerErr)
	batch := make([]*writeReq, 0, a.opts.GroupCommitMax)
	window := time.NewTimer(time.Hour)
	window.Stop()
	loaded := false // the last group held more than one request: writers are concurrent
	for {
		req, ok := a.next()
		if !ok {
			return
		}
		if req.closeIdle {
			req.done <- a.closeWriterIdleSince(req.cutoff)
			continue
		}
		batch = append(batch[:0], req)
		var solo *writeReq
		if !req.solo {
			batch, solo = a.gather(batch, window, loaded)
		}
		loaded = len(batch) > 1
		a.commit(batch)
		if solo != nil {
			a.commit([]*writeReq{solo})
		}
		a.lastWrite.Store(time.Now().UnixNano())
		if a.wconn != nil && a.wconn.db.TotalChanges() >= heavyWriterRows {
			a.writerHeavy.Store(true)
		}
		a.resizeWriterCache()
		if a.readOnly.Load() {
			continue // nothing was written: nothing to checkpoint
		}
		select {
		case a.nudge <- struct{}{}:
		default:
		}
	}
}

// next is the writer's next request: a queued foreground write before any
// background one. false once writes is closed and no background write is
// left.
func (a *Agent) next() (*writeReq, bool) {
	select {
	case r, ok := <-a.writes:
		if ok {
			return r, true
		}
	default:
		select {
		case r, ok := <-a.writes:
			if ok {
				return r, true
			}
		case r := <-a.background:
			return r, true
		}
	}
	select { // writes is closed: what background work queued still runs
	case r := <-a.background:
		return r, true
	default:
		return nil, false
	}
}

// gather adds to batch the writes already queued and, when writers are
// concurrent (loaded, or more than one queued now), those that arrive
// within Options.GroupCommitWindow: one commit then carries what would
// have been several, each acknowledged only once that commit holds it. A
// lone writer never waits. A solo request ends the group and is returned
// to run after it.
func (a *Agent) gather(batch []*writeReq, window *time.Timer, loaded bool) ([]*writeReq, *writeReq) {
	defer window.Stop()
	waiting := false
	for len(batch) < a.opts.GroupCommitMax {
		var r *writeReq
		var ok bool
		select {
		case r, ok = <-a.writes:
		default:
			if !waiting {
				if a.opts.GroupCommitWindow <= 0 || !(loaded || len(batch) > 1) {
					return batch, nil
				}
				waiting = true
				window.Reset(a.opts.GroupCommitWindow)
			}
			select {
			case r, ok = <-a.writes:
			case <-window.C:
				return batch, nil
			}
		}
		if !ok {
			return batch, nil
		}
		if r.solo {
			return batch, r
		}
		batch = append(batch, r)
	}
	return batch, nil
}

// commit runs a group of writes in one transaction and then acknowledges
// each. Requests are validated before they are queued, so a failure is rare:
// when one happens the whole transaction is rolled back and every request
// is run again in a transaction of its own, so each gets its own outcome.
// (Savepoints per request would do the same in one pass, but each savepoint
// makes FTS5 flush its pending index, which costs more than the rare retry.)
func (a *Agent) commit(batch []*writeReq) {
	if len(batch) > 1 {
		if err := a.runTx(batch); err == nil {
			for _, r := range batch {
				r.done <- nil
			}
			return
		}
	}
	for _, r := range batch {
		r.done <- a.runTx([]*writeReq{r})
	}
}

// runTx runs reqs in one IMMEDIATE transaction: all commit or none. A
// panic closes the writer's connection, which rolls the transaction back
// (ErrPanic); the next write opens another.
func (a *Agent) runTx(reqs []*writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			c := a.wconn
			a.wconn = nil
			a.writerOpen.Store(false)
			err = a.recovered(p, c)
		}
	}()
	return a.runTxOn(reqs)
}

// runTxOn is runTx on the writer's connection, opened when needed.
func (a *Agent) runTxOn(reqs []*writeReq) error {
	if err := a.reopenForWrites(); err != nil {
		return err
	}
	if err := a.openWriter(); err != nil {
		return err
	}
	c := a.wconn
	if len(reqs) == 1 && reqs[0].noTx {
		return reqs[0].fn(reqs[0].ctx, c)
	}
	if err := c.execPrepared("BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("begin write transaction: %w", err)
	}
	for _, r := range reqs {
		err := r.ctx.Err()
		if err == nil {
			err = r.fn(r.ctx, c)
		}
		if err != nil {
			if rerr := c.execPrepared("ROLLBACK"); rerr != nil {
				a.log.Error("roll back write transaction", "err", rerr)
			}
			return err
		}
	}
	if err := c.execPrepared("COMMIT"); err != nil {
		_ = c.execPrepared("ROLLBACK")
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// reopenForWrites turns an agent opened read-only on a full disk into a
// writable one once the disk has space again, in place, so writes resume
// without a restart however busy the agent is. Only the writer calls it.
// It waits for the one exclusive read connection to be free, closes it
// (releasing the lock) and opens the writer's; reads then open their own
// connections as usual.
func (a *Agent) reopenForWrites() error {
	if !a.readOnly.Load() {
		return nil
	}
	if noSpace(filepath.Dir(a.path)) {
		return errReadOnly
	}
	ctx := context.Background()
	_ = a.readers.acquire(ctx)            // the one slot: no read is using the exclusive connection
	if ro := a.readers.pop(); ro != nil { // nil: an earlier attempt could not reopen it
		if err := ro.close(); err != nil {
			a.log.Warn("close the read-only connection", "err", err)
		}
	}
	w, err := openConn(ctx, a.path, a.opts.writerMode())
	if err != nil { // still no room after all: read-only as before
		a.log.Warn("reopen for writes", "err", err)
		if ro, rerr := openConn(ctx, a.path, a.opts.exclusiveMode()); rerr == nil {
			a.readers.add(ro)
		}
		a.readers.release(1)
		return a.classify(err)
	}
	a.setWriter(w)
	a.readOnly.Store(false)
	a.readers.release(a.opts.ReadConns)
	a.log.Info("the disk has space again: agent reopened for writes")
	return nil
}

// read borrows a read connection for fn. Read connections are opened on
// demand up to Options.ReadConns, reused, and closed once idle for
// Options.ConnIdleClose (closeIdleConns).
// A panic in fn closes the connection and frees its slot (ErrPanic).
func (a *Agent) read(ctx context.Context, fn func(c *conn) error) (err error) {
	c, err := a.readers.get(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			err = a.recovered(p, c)
			a.readers.release(1)
		}
	}()
	err = fn(c)
	a.readers.put(c)
	return a.classify(err)
}

// closeIdleConns closes the connections unused since their cutoff: the
// read connections, and the writer's (which it asks the writer to close,
// and does not wait for), a spare one once heavy. The next read or write
// opens one again. An agent opened read-only keeps its one connection: it
// holds the file's lock.
func (a *Agent) closeIdleConns(cutoff idleCutoffs) {
	if a.readOnly.Load() {
		return
	}
	for _, err := range a.readers.closeIdle(cutoff) {
		a.log.Warn("close idle read connection", "err", err)
	}
	writer := cutoff.kept
	if a.writerHeavy.Load() {
		writer = cutoff.spare
	}
	if !a.writerOpen.Load() || !time.Unix(0, a.lastWrite.Load()).Before(writer) {
		return
	}
	req := &writeReq{ctx: context.Background(), done: make(chan error, 1), closeIdle: true, cutoff: writer}
	select {
	case a.background <- req: // behind any foreground write, which makes it moot
	default: // background work is queued: the writer is not idle
	}
}

// heavyWriterRows is how many rows a writer's connection writes before it
// counts as spare once idle. A bulk load grows a connection's memory (0.8
// MiB after BenchmarkDenseRSS's), which it keeps until it closes; the
// reopen after the close costs ~5 ms CPU, at most once per this many rows.
const heavyWriterRows = 1000

// writerResizeRows is how many rows the writer changes between sizings of
// its page cache to the file, which a bulk load grows while it stays open.
const writerResizeRows = 5000

// resizeWriterCache sizes the writer's page cache to its file again once
// it has changed writerResizeRows rows since the last sizing.
func (a *Agent) resizeWriterCache() {
	c := a.wconn
	if c == nil || c.db.TotalChanges() < a.cacheSizedAt+writerResizeRows {
		return
	}
	a.cacheSizedAt = c.db.TotalChanges()
	size, err := dbBytes(c)
	if err == nil {
		err = c.exec(fmt.Sprintf("PRAGMA cache_size = -%d", writerCacheKiB(size, a.opts.CacheSizeKiB)))
	}
	if err != nil {
		a.log.Warn("size the writer's page cache", "err", err)
	}
}

// dbBytes is the database's size as c sees it, the pages still in the WAL
// included: the file alone lags until a checkpoint.
func dbBytes(c *conn) (int64, error) {
	var pages, size int64
	err := c.query(context.Background(), "SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()", nil,
		func(s *sqlite3.Stmt) error { pages, size = s.ColumnInt64(0), s.ColumnInt64(1); return nil })
	return pages * size, err
}

// setWriter makes w the writer's connection.
func (a *Agent) setWriter(w *conn) {
	a.wconn = w
	a.cacheSizedAt = 0
	a.writerOpen.Store(true)
	a.writerHeavy.Store(false)
	a.lastWrite.Store(time.Now().UnixNano())
}

// openWriter opens the writer's connection again if closeWriterIdleSince
// closed it. Only the writer calls it.
func (a *Agent) openWriter() error {
	if a.wconn != nil {
		return nil
	}
	w, err := openConn(context.Background(), a.path, a.opts.writerMode())
	if err != nil {
		return fmt.Errorf("reopen the write connection: %w", err)
	}
	a.setWriter(w)
	return nil
}

// closeWriterIdleSince closes the writer's connection unless it committed
// since cutoff. Only the writer calls it. What the WAL holds stays there
// for the checkpointer (or the last connection's close) to copy back.
func (a *Agent) closeWriterIdleSince(cutoff time.Time) error {
	if a.wconn == nil || !time.Unix(0, a.lastWrite.Load()).Before(cutoff) {
		return nil
	}
	err := a.wconn.close()
	a.wconn = nil
	a.writerOpen.Store(false)
	if err != nil {
		a.log.Warn("close idle write connection", "err", err)
	}
	return err
}

// close stops accepting writes, lets queued ones commit, checkpoints the WAL
// into the main file and closes every connection. The caller guarantees no
// reads are in flight (refs == 0).
func (a *Agent) close() error {
	if a.stopLater != nil { // a deferred migration's chunk in flight commits or is not run
		a.stopLater()
		<-a.laterDone
	}
	close(a.writes)
	<-a.writerErr
	close(a.stopCkpt)
	close(a.nudge)
	<-a.ckptDone
	errs := a.readers.closeAll()
	if a.wconn != nil && !a.opts.LeaveCheckpoints {
		if err := a.wconn.exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			errs = append(errs, fmt.Errorf("checkpoint: %w", err))
		}
	}
	if a.wconn != nil {
		errs = append(errs, a.wconn.close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close agent %q: %w", a.name, err)
	}
	return nil
}
