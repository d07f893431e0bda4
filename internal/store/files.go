package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/backoff"
)

// File states in tracked_files.
const (
	FileOK      = "ok"      // its memories are stored (or it had none to give and said so)
	FileSkipped = "skipped" // nothing to remember in it (binary, empty, too big): not retried until it changes
	FileFailed  = "failed"  // reading or parsing failed: retried at NextRetry
)

// TrackedFile is one file of a watched folder as last seen.
type TrackedFile struct {
	Root      string
	Path      string
	SHA256    string
	Size      int64
	MTime     time.Time
	Status    string
	Error     string
	Attempts  int
	NextRetry time.Time
	Memories  int
	UpdatedAt time.Time
	// Undescribed is set (by TrackedFiles) for an image whose current memory has its metadata only:
	// stored before a vision model was configured, so a scan may now describe it.
	Undescribed bool
}

const trackedColumns = `root, path, sha256, size, mtime, status, error, attempts, next_retry, memories, updated_at`

func scanTracked(s *sqlite3.Stmt) TrackedFile {
	f := TrackedFile{
		Root: s.ColumnText(0), Path: s.ColumnText(1), SHA256: s.ColumnText(2), Size: s.ColumnInt64(3),
		MTime: time.Unix(0, s.ColumnInt64(4)).UTC(), Status: s.ColumnText(5), Error: s.ColumnText(6),
		Attempts: s.ColumnInt(7), Memories: s.ColumnInt(9), UpdatedAt: time.UnixMilli(s.ColumnInt64(10)).UTC(),
	}
	if ms := s.ColumnInt64(8); ms > 0 {
		f.NextRetry = time.UnixMilli(ms).UTC()
	}
	if s.ColumnCount() > 11 {
		f.Undescribed = s.ColumnBool(11)
	}
	return f
}

// undescribedColumn is TrackedFile.Undescribed: an image (by its name) whose current memory's context
// has neither described_by nor not_described (files.Options.Describe).
const undescribedColumn = `CASE WHEN status != 'skipped' AND (lower(path) GLOB '*.png' OR lower(path) GLOB '*.jpg'
	OR lower(path) GLOB '*.jpeg' OR lower(path) GLOB '*.gif' OR lower(path) GLOB '*.webp')
	THEN EXISTS (SELECT 1 FROM daily_memories m WHERE m.file_hash = tracked_files.sha256 AND m.retired_at IS NULL
		AND json_type(m.context, '$.image') = 'object'
		AND json_type(m.context, '$.image.described_by') IS NULL
		AND json_type(m.context, '$.image.not_described') IS NULL)
	ELSE 0 END`

// TrackedFiles returns every tracked file under root ("" for every root), by path.
func (a *Agent) TrackedFiles(ctx context.Context, root string) ([]TrackedFile, error) {
	sql := `SELECT ` + trackedColumns + `, ` + undescribedColumn + ` FROM tracked_files`
	var args []any
	if root != "" {
		sql += ` WHERE root = ?`
		args = append(args, root)
	}
	return a.trackedQuery(ctx, sql+` ORDER BY root, path`, args)
}

// CountTrackedFiles counts the files tracked under root.
func (a *Agent) CountTrackedFiles(ctx context.Context, root string) (int, error) {
	var n int
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT count(*) FROM tracked_files WHERE root = ?`, []any{root}, func(s *sqlite3.Stmt) error {
			n = s.ColumnInt(0)
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("count the tracked files of %s: %w", root, err)
	}
	return n, nil
}

// FailedFiles returns the files whose last attempt failed, soonest retry first.
func (a *Agent) FailedFiles(ctx context.Context) ([]TrackedFile, error) {
	return a.trackedQuery(ctx, `SELECT `+trackedColumns+` FROM tracked_files WHERE status = 'failed'
		ORDER BY next_retry, root, path`, nil)
}

func (a *Agent) trackedQuery(ctx context.Context, sql string, args []any) ([]TrackedFile, error) {
	var out []TrackedFile
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, sql, args, func(s *sqlite3.Stmt) error {
			out = append(out, scanTracked(s))
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list tracked files: %w", err)
	}
	return out, nil
}

// FileChange is what became of one file: its memories (for status ok) and its tracking row, stored
// together, so that a file is never marked processed before its memories are.
type FileChange struct {
	Root, Path string
	SHA256     string
	Size       int64
	MTime      time.Time
	Status     string // FileOK, FileSkipped or FileFailed
	Error      string
	NextRetry  time.Time // for FileFailed; zero: computed from RetryBase and RetryMax
	// RetryBase is the wait after a first failure, doubled for each failure in a row up to RetryMax.
	RetryBase, RetryMax time.Duration
	// Memories are stored, tagged with SHA256, unless that content's memories are stored already
	// (the same file under another path, or moved): then they are reused.
	Memories []Memory
	// Replace retires the memories of the content this path held before, unless another tracked
	// path still holds it (mirror mode); without it they stay (inbox mode).
	Replace bool
	// Refresh rewrites the current memories of this content in place with Memories (an image
	// described now that was stored with its metadata only): same ids, so citations hold; the
	// consolidated days they are in are marked for rebuild.
	Refresh bool
}

// FileResult says what CommitFile did.
type FileResult struct {
	Inserted  int  // memories stored
	Reused    bool // the content's memories existed already
	Retired   int  // memories of the previous content retired
	Refreshed int  // memories rewritten in place (Refresh)
}

// CommitFile records ch in one transaction.
func (a *Agent) CommitFile(ctx context.Context, ch FileChange) (FileResult, error) {
	res, err := a.CommitFiles(ctx, []FileChange{ch})
	if err != nil {
		return FileResult{}, err
	}
	return res[0], nil
}

// CommitFiles records several files in one transaction, in order (a scan's batch): all or none.
func (a *Agent) CommitFiles(ctx context.Context, chs []FileChange) ([]FileResult, error) {
	out := make([]FileResult, len(chs))
	now := a.opts.Now()
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		for i := range chs {
			var err error
			if out[i], err = a.commitFile(ctx, c, &chs[i], now); err != nil {
				return fmt.Errorf("commit file %s: %w", chs[i].Path, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	a.settleShares(ctx) // the copies of what a changed file retired
	return out, nil
}

func (a *Agent) commitFile(ctx context.Context, c *conn, ch *FileChange, now time.Time) (FileResult, error) {
	var res FileResult
	old, found, err := trackedRow(ctx, c, ch.Root, ch.Path)
	if err != nil {
		return res, err
	}
	count := 0
	if ch.Status == FileOK {
		if res, count, err = a.storeContent(ctx, c, ch, now); err != nil {
			return res, err
		}
	}
	attempts := 0
	if ch.Status == FileFailed {
		attempts = 1
		if found && old.Status == FileFailed && old.SHA256 == ch.SHA256 {
			attempts = old.Attempts + 1
		}
	}
	var retry int64
	switch {
	case !ch.NextRetry.IsZero():
		retry = ch.NextRetry.UnixMilli()
	case ch.Status == FileFailed && ch.RetryBase > 0:
		most := ch.RetryMax
		if most <= 0 {
			most = math.MaxInt64 // no cap
		}
		retry = now.Add(backoff.Exp(ch.RetryBase, most, attempts-1)).UnixMilli()
	}
	err = c.execArgs(ctx, `INSERT INTO tracked_files (`+trackedColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (root, path) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size,
		mtime = excluded.mtime, status = excluded.status, error = excluded.error,
		attempts = excluded.attempts, next_retry = excluded.next_retry, memories = excluded.memories,
		updated_at = excluded.updated_at`,
		ch.Root, ch.Path, ch.SHA256, ch.Size, ch.MTime.UnixNano(), ch.Status, ch.Error, attempts, retry,
		count, now.UnixMilli())
	if err != nil {
		return res, fmt.Errorf("track: %w", err)
	}
	// A failure keeps the previous content's memories: they are still the best the file gave.
	if found && old.SHA256 != ch.SHA256 && ch.Status != FileFailed {
		res.Retired, err = a.release(ctx, c, old.SHA256, ch.Replace, now)
	}
	return res, err
}

// storeContent gives ch's content its memories: those it has (reused, or refreshed in place), those
// it had (restored), or new ones. It returns how many memories the content has now.
func (a *Agent) storeContent(ctx context.Context, c *conn, ch *FileChange, now time.Time) (FileResult, int, error) {
	var res FileResult
	active, err := countFileMemories(ctx, c, ch.SHA256)
	if err != nil {
		return res, 0, err
	}
	switch {
	case active > 0 && ch.Refresh && active == len(ch.Memories):
		if err := a.refreshFile(ctx, c, ch, now); err != nil {
			return res, 0, err
		}
		res.Refreshed = active
		return res, active, nil
	case active > 0:
		res.Reused = true
		return res, active, nil
	}
	// Content seen before and retired (a file deleted, then restored or moved back): bring its
	// memories back rather than store them twice.
	restored, err := restoreFileMemories(ctx, c, ch.SHA256, ch.Path)
	if err != nil {
		return res, 0, fmt.Errorf("restore memories: %w", err)
	}
	if restored > 0 {
		res.Reused = true
		return res, restored, nil
	}
	if err := a.insertFileMemories(ctx, c, ch, now); err != nil {
		return res, 0, err
	}
	res.Inserted = len(ch.Memories)
	return res, len(ch.Memories), nil
}

// insertFileMemories stores ch's memories. Forgetting sticks for files as for any memory: a part
// whose content was forgotten is stored flagged (forget.go).
func (a *Agent) insertFileMemories(ctx context.Context, c *conn, ch *FileChange, now time.Time) error {
	check, err := anyForgotten(ctx, c)
	if err != nil {
		return err
	}
	for i := range ch.Memories {
		m := &ch.Memories[i]
		flagged := false
		if check {
			if flagged, err = isForgottenHash(ctx, c, m.Content); err != nil {
				return err
			}
		}
		if err := insertFileMemory(ctx, c, a.opts.Location, m, ch.SHA256, flagged, now); err != nil {
			return fmt.Errorf("store memory %d: %w", i+1, err)
		}
	}
	return nil
}

// restoreFileMemories makes the retired memories of content hash current again, citing path, and
// returns how many there were. One forgotten since it was retired comes back flagged.
func restoreFileMemories(ctx context.Context, c *conn, hash, path string) (int, error) {
	type retired struct {
		id      int64
		content string
	}
	var mems []retired
	err := c.query(ctx, `SELECT id, content FROM daily_memories WHERE file_hash = ? AND retired_at IS NOT NULL`,
		[]any{hash}, func(s *sqlite3.Stmt) error {
			mems = append(mems, retired{s.ColumnInt64(0), s.ColumnText(1)})
			return nil
		})
	if err != nil || len(mems) == 0 {
		return 0, err
	}
	for _, m := range mems {
		flagged, err := isForgotten(ctx, c, m.content)
		if err != nil {
			return 0, err
		}
		if err := c.execArgs(ctx, `UPDATE daily_memories SET retired_at = NULL, source = ?,
			flagged = flagged OR ?, consolidated = consolidated OR ? WHERE id = ?`, path, flagged, flagged, m.id); err != nil {
			return 0, err
		}
	}
	return len(mems), nil
}

// ForgetFile stops tracking a file that is gone. With retire (mirror mode) its content's memories
// are retired unless another tracked path still holds the same content. It reports how many were
// retired; a path that was not tracked is not an error.
func (a *Agent) ForgetFile(ctx context.Context, root, path string, retire bool) (int, error) {
	retired := 0
	now := time.Now()
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		retired = 0
		old, found, err := trackedRow(ctx, c, root, path)
		if err != nil || !found {
			return err
		}
		if err := c.execArgs(ctx, `DELETE FROM tracked_files WHERE root = ? AND path = ?`, root, path); err != nil {
			return err
		}
		retired, err = a.release(ctx, c, old.SHA256, retire, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("forget file %s: %w", path, err)
	}
	a.settleShares(ctx) // the copies of what it retired
	return retired, nil
}

// release is called when a path no longer holds content hash. If another tracked path does, the
// memories now cite that path; otherwise, with retire, they are retired and the days whose
// consolidations cited them are marked for rebuild.
func (a *Agent) release(ctx context.Context, c *conn, hash string, retire bool, now time.Time) (int, error) {
	other := ""
	err := c.query(ctx, `SELECT path FROM tracked_files WHERE sha256 = ? AND status = 'ok' ORDER BY path LIMIT 1`,
		[]any{hash}, func(s *sqlite3.Stmt) error { other = s.ColumnText(0); return nil })
	if err != nil {
		return 0, err
	}
	if other != "" {
		return 0, c.execArgs(ctx, `UPDATE daily_memories SET source = ? WHERE file_hash = ? AND retired_at IS NULL`,
			other, hash)
	}
	if !retire {
		return 0, nil
	}
	var ids []int64
	err = c.query(ctx, `SELECT id FROM daily_memories WHERE file_hash = ? AND retired_at IS NULL`, []any{hash},
		func(s *sqlite3.Stmt) error { ids = append(ids, s.ColumnInt64(0)); return nil })
	if err != nil {
		return 0, fmt.Errorf("find the memories to retire: %w", err)
	}
	return retireIDs(ctx, c, ids, "file changed or deleted", now)
}

// retireIDs retires the current memories among ids: they are kept and explainable, never
// recalled, and the days whose consolidations cited them are marked for rebuild; their shared
// copies are retired too (share.go).
func retireIDs(ctx context.Context, c *conn, ids []int64, reason string, now time.Time) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	b, _ := json.Marshal(ids)
	idsJSON := string(b)
	err := c.execArgs(ctx, `INSERT INTO file_rebuild_days (day, reason, marked_at)
		SELECT DISTINCT day, ?, ? FROM daily_memories
		WHERE id IN (SELECT value FROM json_each(?)) AND retired_at IS NULL AND consolidated = 1
		ON CONFLICT (day) DO UPDATE SET marked_at = excluded.marked_at`, reason, now.UnixMilli(), idsJSON)
	if err != nil {
		return 0, fmt.Errorf("mark days for rebuild: %w", err)
	}
	// Facts made from the old content alone stop being current (the value they
	// superseded is current again), as for a deleted memory, but nothing is
	// remembered as forgotten: the file may say it again.
	for _, id := range ids {
		if err := dropSource(ctx, c, id, now, false); err != nil {
			return 0, fmt.Errorf("remove retired memory %d from its facts: %w", id, err)
		}
		if err := queueShareRetire(ctx, c, id, now); err != nil {
			return 0, err
		}
	}
	if err := c.execArgs(ctx, `UPDATE daily_memories SET retired_at = ? WHERE id IN (SELECT value FROM json_each(?))
		AND retired_at IS NULL`, now.UnixMilli(), idsJSON); err != nil {
		return 0, fmt.Errorf("retire memories: %w", err)
	}
	n := int(c.db.Changes())
	// A marked day with no current memory left would rebuild into nothing: its record goes now.
	if err := c.execArgs(ctx, `DELETE FROM consolidated_memories WHERE date IN (SELECT day FROM file_rebuild_days)
		AND NOT EXISTS (SELECT 1 FROM daily_memories m WHERE m.day = consolidated_memories.date AND m.retired_at IS NULL)`); err != nil {
		return 0, fmt.Errorf("drop emptied day records: %w", err)
	}
	if err := c.execArgs(ctx, `DELETE FROM file_rebuild_days
		WHERE NOT EXISTS (SELECT 1 FROM consolidated_memories c WHERE c.date = file_rebuild_days.day)`); err != nil {
		return 0, fmt.Errorf("drop emptied day records: %w", err)
	}
	return n, nil
}

func trackedRow(ctx context.Context, c *conn, root, path string) (TrackedFile, bool, error) {
	var f TrackedFile
	found := false
	err := c.query(ctx, `SELECT `+trackedColumns+` FROM tracked_files WHERE root = ? AND path = ?`,
		[]any{root, path}, func(s *sqlite3.Stmt) error { f, found = scanTracked(s), true; return nil })
	return f, found, err
}

// countFileMemories counts the current memories of a file's content.
func countFileMemories(ctx context.Context, c *conn, hash string) (int, error) {
	n := 0
	err := c.query(ctx, `SELECT count(*) FROM daily_memories WHERE file_hash = ? AND retired_at IS NULL`, []any{hash}, func(s *sqlite3.Stmt) error { n = s.ColumnInt(0); return nil })
	return n, err
}

// refreshFile rewrites the current memories of ch's content, in id order, with ch.Memories: the
// full-text and kinds indexes follow through the content triggers, the embedding is dropped (and
// made again), facts made from the old text lose it as a source, and consolidated days are marked
// for rebuild.
func (a *Agent) refreshFile(ctx context.Context, c *conn, ch *FileChange, now time.Time) error {
	var ids []int64
	err := c.query(ctx, `SELECT id FROM daily_memories WHERE file_hash = ? AND retired_at IS NULL ORDER BY id`,
		[]any{ch.SHA256}, func(s *sqlite3.Stmt) error { ids = append(ids, s.ColumnInt64(0)); return nil })
	if err != nil {
		return fmt.Errorf("find the memories to refresh: %w", err)
	}
	err = c.execArgs(ctx, `INSERT INTO file_rebuild_days (day, reason, marked_at)
		SELECT DISTINCT day, 'file described', ? FROM daily_memories
		WHERE file_hash = ? AND retired_at IS NULL AND consolidated = 1
		ON CONFLICT (day) DO UPDATE SET marked_at = excluded.marked_at`, now.UnixMilli(), ch.SHA256)
	if err != nil {
		return fmt.Errorf("mark days for rebuild: %w", err)
	}
	for i, id := range ids {
		m := &ch.Memories[i]
		if err := dropSource(ctx, c, id, now, false); err != nil {
			return fmt.Errorf("remove memory %d from its facts: %w", id, err)
		}
		entities, topics, context, err := derivedColumns(m)
		if err != nil {
			return err
		}
		c.sizes.changed(id) // its text changes
		if err := c.execArgs(ctx, `UPDATE daily_memories SET content = ?, context = ?, importance = ?,
			content_hash = ?, summary = ?, entities = ?, topics = ? WHERE id = ?`,
			m.Content, context, m.Importance, m.ContentHash, m.Summary, entities, topics, id); err != nil {
			return fmt.Errorf("refresh memory %d: %w", id, err)
		}
		m.ID = id
	}
	return nil
}

// entityColumn is an Entity as the entities column holds it: the JSON keys are the column's format,
// written by every version, and do not follow the Go field names.
type entityColumn struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

// derivedColumns are m's entities and topics as JSON, and its context (NULL when it has none), as
// daily_memories holds them.
func derivedColumns(m *Memory) (entities, topics string, context any, err error) {
	cols := make([]entityColumn, len(m.Entities))
	for i, x := range m.Entities {
		cols[i] = entityColumn(x)
	}
	e, err := json.Marshal(cols)
	if err != nil {
		return "", "", nil, err
	}
	t, err := json.Marshal(nonNil(m.Topics))
	if err != nil {
		return "", "", nil, err
	}
	if len(m.Context) > 0 {
		context = string(m.Context)
	}
	return string(e), string(t), context, nil
}

// insertFileMemory stores a memory of a file's content, flagged (consolidated by nothing, as Insert
// does) when its content was forgotten. Unlike Insert it never dedupes against other memories: two
// notes may share a paragraph, and each note's memories must retire with it.
func insertFileMemory(ctx context.Context, c *conn, loc *time.Location, m *Memory, hash string, flagged bool, now time.Time) error {
	entities, topics, context, err := derivedColumns(m)
	if err != nil {
		return err
	}
	err = c.execArgs(ctx, `INSERT INTO daily_memories (session_id, ts, day, interaction_type, role,
		content, context, importance, source, content_hash, summary, entities, topics, created_at, file_hash,
		flagged, consolidated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.SessionID, m.Timestamp.UnixMilli(), m.Timestamp.In(loc).Format(time.DateOnly), m.InteractionType,
		m.Role, m.Content, context, m.Importance, m.Source, m.ContentHash, m.Summary, entities,
		topics, now.UnixMilli(), hash, flagged, flagged)
	if err != nil {
		return err
	}
	id := c.db.LastInsertRowID()
	m.ID = id
	return index(ctx, c, id, m.Content, c.kinds(m.Content))
}

// MemoryOrigin explains where a memory from a file came from and whether it is still current.
type MemoryOrigin struct {
	FileHash  string // "" for a memory not from a file
	RetiredAt *time.Time
	Paths     []string // "root/path" of every tracked file holding that content now
}

// MemoryOrigin returns the file origin of memory id.
func (a *Agent) MemoryOrigin(ctx context.Context, id int64) (MemoryOrigin, error) {
	var o MemoryOrigin
	found := false
	err := a.read(ctx, func(c *conn) error {
		err := c.query(ctx, `SELECT coalesce(file_hash, ''), retired_at FROM daily_memories WHERE id = ?`, []any{id},
			func(s *sqlite3.Stmt) error {
				found = true
				o.FileHash = s.ColumnText(0)
				if s.ColumnType(1) != sqlite3.NULL {
					t := time.UnixMilli(s.ColumnInt64(1)).UTC()
					o.RetiredAt = &t
				}
				return nil
			})
		if err != nil || o.FileHash == "" {
			return err
		}
		return c.query(ctx, `SELECT root, path FROM tracked_files WHERE sha256 = ? ORDER BY root, path`,
			[]any{o.FileHash}, func(s *sqlite3.Stmt) error {
				o.Paths = append(o.Paths, s.ColumnText(0)+"/"+s.ColumnText(1))
				return nil
			})
	})
	if err != nil {
		return MemoryOrigin{}, fmt.Errorf("origin of memory %d: %w", id, err)
	}
	if !found {
		return MemoryOrigin{}, fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	return o, nil
}

// FileMemories returns the current memories stored from a file's content, oldest first.
func (a *Agent) FileMemories(ctx context.Context, hash string) ([]Memory, error) {
	return readRows(ctx, a, "memories of file "+hash, `SELECT `+memoryColumns+` FROM daily_memories
		WHERE file_hash = ? AND retired_at IS NULL ORDER BY id`, []any{hash}, scanMemory)
}

// RebuildDay is a day whose consolidation cited memories of a file that has since changed or gone:
// re-running its consolidation (which reads only current memories) repairs it. A day left with no
// current memory has its record deleted at once instead.
type RebuildDay struct {
	Day      string
	Reason   string
	MarkedAt time.Time
}

// FileRebuildDays lists the days marked for rebuild because of file changes, oldest first.
func (a *Agent) FileRebuildDays(ctx context.Context) ([]RebuildDay, error) {
	return readRows(ctx, a, "list days to rebuild", `SELECT day, reason, marked_at FROM file_rebuild_days ORDER BY day`, nil,
		func(s *sqlite3.Stmt) (RebuildDay, error) {
			return RebuildDay{Day: s.ColumnText(0), Reason: s.ColumnText(1), MarkedAt: time.UnixMilli(s.ColumnInt64(2)).UTC()}, nil
		})
}

// ClearFileRebuildDay removes a day's rebuild mark, once its consolidation has been rebuilt.
func (a *Agent) ClearFileRebuildDay(ctx context.Context, day string) error {
	return a.write(ctx, func(ctx context.Context, c *conn) error {
		return c.execArgs(ctx, `DELETE FROM file_rebuild_days WHERE day = ?`, day)
	})
}
