// Package watch keeps watched folders and an agent's memories in step: a full scan at start, inotify
// events debounced until a file is stable, periodic rescans by SHA-256, failures retried with backoff.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Folder is one watched folder's settings.
type Folder struct {
	Path         string // absolute; also the root its files are tracked under
	Agent        string
	Mode         string // "mirror" (default) or "inbox"
	Recursive    bool
	Include      []string
	Exclude      []string // added to DefaultExcludes
	MaxFileBytes int64    // 0: 20 MiB
	Rescan       time.Duration
	Settle       time.Duration // 0: 1s
	Move         bool          // inbox: move files to processed/ or failed/ once done
}

// Inbox subfolders files are moved to when Folder.Move is set.
const (
	processedDir = "processed"
	failedDir    = "failed"
)

// maxInboxAttempts is how many failures an inbox file gets before it is moved to failed/.
const maxInboxAttempts = 5

func (f Folder) mirror() bool { return f.Mode != "inbox" }

func (f Folder) maxBytes() int64 {
	if f.MaxFileBytes > 0 {
		return f.MaxFileBytes
	}
	return 20 << 20
}

func (f Folder) settle() time.Duration {
	if f.Settle > 0 {
		return f.Settle
	}
	return time.Second
}

// Status is what a folder's watcher is doing, for `dormouse watch status` and
// the API. WatchError says why inotify events do not arrive (e.g. the inotify
// watch limit reached); Error, that the folder itself cannot be read.
type Status = client.WatchFolder

// ScanResult counts what one scan (or batch of events) did.
type ScanResult = client.ScanResult

// tally counts o in r.
func tally(r *ScanResult, o Outcome) {
	switch o.Status {
	case "unchanged":
		r.Unchanged++
	case store.FileOK:
		r.Ingested++
		r.Memories += o.Inserted
	case store.FileSkipped:
		r.Skipped++
	case store.FileFailed:
		r.Failed++
	}
	r.Retired += o.Retired
	if o.Refreshed > 0 {
		r.Described++
	}
}

// Watcher follows one folder.
type Watcher struct {
	f      Folder
	ing    *Ingester
	log    *slog.Logger
	filter filter
	now    func() time.Time

	scanReq     chan scanRequest
	folderRetry time.Duration // how often a folder that could not be scanned is tried again

	mu       sync.Mutex
	status   Status
	pending  map[string]pendingFile // rel → last event
	watched  map[string]bool        // absolute directories with an inotify watch
	notifier *fsnotify.Watcher
	// addWatch adds an inotify watch (notifier.Add); tests make it run out of watches.
	addWatch func(dir string) error
	overflow bool // events were lost: rescan
}

type pendingFile struct {
	last  time.Time // last event
	size  int64
	mtime time.Time
	gone  bool
}

type scanRequest struct {
	ctx   context.Context
	reply chan scanReply
}

type scanReply struct {
	res ScanResult
	err error
}

// NewWatcher prepares a watcher of f feeding ing.
func NewWatcher(f Folder, ing *Ingester, log *slog.Logger) *Watcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if f.Mode == "" {
		f.Mode = "mirror"
	}
	w := &Watcher{
		f: f, ing: ing, filter: newFilter(f), now: time.Now,
		log:     log.With("watch", f.Path, "agent", f.Agent),
		scanReq: make(chan scanRequest), folderRetry: time.Minute,
		pending: map[string]pendingFile{},
		watched: map[string]bool{},
	}
	w.status = Status{Path: f.Path, Agent: f.Agent, Mode: f.Mode, RescanEvery: f.Rescan}
	return w
}

// Status returns a copy of the watcher's status.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.status
	s.Pending = len(w.pending)
	s.WatchedDirs = len(w.watched)
	return s
}

func (w *Watcher) setStatus(fn func(*Status)) {
	w.mu.Lock()
	fn(&w.status)
	w.mu.Unlock()
}

// Run watches the folder until ctx ends: a full scan first, then events and periodic rescans. A
// folder that cannot be read is reported in Status and tried again at each rescan (or every minute).
func (w *Watcher) Run(ctx context.Context) {
	n, err := fsnotify.NewWatcher()
	if err != nil {
		w.setStatus(func(s *Status) { s.WatchError = fmt.Sprintf("no inotify: %v; changes are seen by rescans only", err) })
		w.log.Warn("inotify unavailable; rescans only", "err", err)
	} else {
		w.notifier = n
		if w.addWatch == nil {
			w.addWatch = n.Add
		}
		defer n.Close()
		go w.events(ctx, n)
	}
	if _, err := w.scan(ctx, false); err != nil && ctx.Err() == nil {
		w.log.Warn("initial scan", "err", err)
	}
	rescanEvery := w.f.Rescan
	if rescanEvery <= 0 {
		rescanEvery = 30 * time.Minute
	}
	rescan := time.NewTicker(rescanEvery)
	defer rescan.Stop()
	tick := time.NewTicker(max(w.f.settle()/4, 10*time.Millisecond))
	defer tick.Stop()
	lastRetryCheck, lastFolderTry := w.now(), w.now()
	for {
		select {
		case <-ctx.Done():
			return
		case req := <-w.scanReq:
			res, err := w.scan(req.ctx, true)
			req.reply <- scanReply{res, err}
		case <-rescan.C:
			if _, err := w.scan(ctx, true); err != nil && ctx.Err() == nil {
				w.log.Warn("rescan", "err", err)
			}
		case <-tick.C:
			w.mu.Lock()
			lost := w.overflow
			w.overflow = false
			w.mu.Unlock()
			if lost {
				if _, err := w.scan(ctx, true); err != nil && ctx.Err() == nil {
					w.log.Warn("rescan after lost events", "err", err)
				}
				continue
			}
			w.settled(ctx)
			now := w.now()
			if now.Sub(lastRetryCheck) >= min(w.ing.retryBase(), 10*time.Second) {
				lastRetryCheck = now
				w.retry(ctx)
			}
			// A folder that could not be scanned (not mounted yet, say) is tried every minute.
			if w.Status().Error != "" && now.Sub(lastFolderTry) >= w.folderRetry {
				lastFolderTry = now
				_, _ = w.scan(ctx, false)
			}
		}
	}
}

// Scan asks the running watcher for a full scan comparing hashes, and waits for it.
func (w *Watcher) Scan(ctx context.Context) (ScanResult, error) {
	req := scanRequest{ctx: ctx, reply: make(chan scanReply, 1)}
	select {
	case w.scanReq <- req:
	case <-ctx.Done():
		return ScanResult{}, ctx.Err()
	}
	select {
	case r := <-req.reply:
		return r.res, r.err
	case <-ctx.Done():
		return ScanResult{}, ctx.Err()
	}
}

// ScanOnce scans the folder once without watching it (the CLI's local mode).
func (w *Watcher) ScanOnce(ctx context.Context) (ScanResult, error) { return w.scan(ctx, true) }

// events turns inotify events into pending paths; the loop in Run processes them once settled.
func (w *Watcher) events(ctx context.Context, n *fsnotify.Watcher) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-n.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-n.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.mu.Lock()
				w.overflow = true
				w.mu.Unlock()
				w.log.Warn("inotify queue overflowed; rescanning")
				continue
			}
			w.log.Warn("inotify", "err", err)
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.unwatch(ev.Name) // a folder (the root too) that went is watched anew if it comes back
	}
	rel, ok := w.rel(ev.Name)
	if !ok || rel == "." {
		return
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if w.filter.dir(rel) {
				w.addTree(ev.Name) // files created before its watch was added are found here
			}
			return
		}
	}
	if ev.Op == fsnotify.Chmod {
		return // a permission change alone is picked up when the content changes or at a retry
	}
	w.touch(rel)
}

// touch records an event on rel with the file's current size and mtime, so that Run can tell when it
// stops changing.
func (w *Watcher) touch(rel string) {
	p := pendingFile{last: w.now()}
	if fi, err := os.Stat(filepath.Join(w.f.Path, filepath.FromSlash(rel))); err == nil {
		p.size, p.mtime = fi.Size(), fi.ModTime()
	} else {
		p.gone = true
	}
	w.mu.Lock()
	w.pending[rel] = p
	w.mu.Unlock()
}

// addTree watches dir and its subfolders and marks the files already in them pending.
func (w *Watcher) addTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, ok := w.rel(p)
		if !ok {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if !w.filter.dir(rel) {
				return filepath.SkipDir
			}
			w.watch(p)
			return nil
		}
		if w.filter.file(rel) {
			w.touch(rel)
		}
		return nil
	})
}

// watch adds an inotify watch on dir; running out of watches is reported, not fatal: rescans cover
// what is not watched.
func (w *Watcher) watch(dir string) {
	if w.notifier == nil {
		return
	}
	w.mu.Lock()
	done := w.watched[dir]
	w.mu.Unlock()
	if done {
		return
	}
	if err := w.addWatch(dir); err != nil {
		msg := fmt.Sprintf("cannot watch %s: %v", dir, err)
		if errors.Is(err, syscall.ENOSPC) {
			msg = fmt.Sprintf("inotify watch limit reached at %s (raise fs.inotify.max_user_watches); "+
				"changes there are seen by rescans only", dir)
		}
		w.setStatus(func(s *Status) {
			if s.WatchError == "" {
				w.log.Warn("watch folder", "err", msg)
			}
			s.WatchError = msg
		})
		return
	}
	w.mu.Lock()
	w.watched[dir] = true
	w.status.Watching = true
	w.mu.Unlock()
}

// unwatch forgets the watches of a folder that went away (and of its subfolders), so that a folder
// of the same name created later is watched anew.
func (w *Watcher) unwatch(dir string) {
	w.mu.Lock()
	var gone []string
	for d := range w.watched {
		if d == dir || strings.HasPrefix(d, dir+string(filepath.Separator)) {
			gone = append(gone, d)
			delete(w.watched, d)
		}
	}
	w.mu.Unlock()
	for _, d := range gone {
		_ = w.notifier.Remove(d) // already gone with the folder, mostly
	}
}

// rel returns name relative to the root, slash-separated, and whether it is inside it.
func (w *Watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.f.Path, name)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// settled processes the pending paths whose size and mtime have not changed for Settle: files that
// exist first, then those gone, so that a rename (gone here, new there) reuses the memories.
func (w *Watcher) settled(ctx context.Context) {
	now := w.now()
	settle := w.f.settle()
	var ready []string
	w.mu.Lock()
	for rel, p := range w.pending {
		if now.Sub(p.last) < settle {
			continue
		}
		fi, err := os.Stat(filepath.Join(w.f.Path, filepath.FromSlash(rel)))
		switch {
		case err != nil && p.gone, err == nil && !p.gone && fi.Size() == p.size && fi.ModTime().Equal(p.mtime):
			ready = append(ready, rel)
			delete(w.pending, rel)
		case err != nil:
			w.pending[rel] = pendingFile{last: now, gone: true}
		default: // still being written
			w.pending[rel] = pendingFile{last: now, size: fi.Size(), mtime: fi.ModTime()}
		}
	}
	w.mu.Unlock()
	if len(ready) == 0 {
		return
	}
	if err := w.processBatch(ctx, ready); err != nil && ctx.Err() == nil {
		w.log.Warn("process changes", "err", err)
	}
}

func (w *Watcher) processBatch(ctx context.Context, rels []string) error {
	tracked, err := w.tracked(ctx)
	if err != nil {
		return err
	}
	var present []string
	var gone []string
	for _, rel := range rels {
		if _, err := os.Lstat(filepath.Join(w.f.Path, filepath.FromSlash(rel))); err == nil {
			if w.filter.file(rel) {
				present = append(present, rel)
			}
			continue
		}
		gone = append(gone, rel)
	}
	res := ScanResult{}
	for _, rel := range present {
		t, ok := tracked[rel]
		o, err := w.process(ctx, rel, ptr(t, ok), false)
		if err != nil {
			return err
		}
		tally(&res, o)
	}
	for _, rel := range gone {
		// A folder that went away takes its files with it.
		for p := range tracked {
			if p == rel || strings.HasPrefix(p, rel+"/") {
				n, err := w.forget(ctx, p)
				if err != nil {
					return err
				}
				res.Removed++
				res.Retired += n
			}
		}
	}
	if res.Ingested+res.Failed+res.Skipped+res.Removed > 0 {
		w.log.Info("files changed", "ingested", res.Ingested, "memories", res.Memories, "skipped", res.Skipped,
			"failed", res.Failed, "removed", res.Removed, "retired", res.Retired)
	}
	return nil
}

func ptr[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}

func (w *Watcher) tracked(ctx context.Context) (map[string]store.TrackedFile, error) {
	out := map[string]store.TrackedFile{}
	err := w.ing.Store.With(ctx, w.f.Agent, w.ing.AutoCreate, func(a *store.Agent) error {
		list, err := a.TrackedFiles(ctx, w.f.Path)
		for _, t := range list {
			out[t.Path] = t
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tracked files of %s: %w", w.f.Path, err)
	}
	return out, nil
}

func (w *Watcher) forget(ctx context.Context, rel string) (int, error) {
	return w.ing.Forget(ctx, w.f.Agent, w.f.Path, rel, w.f.mirror())
}

// process brings one file's tracking up to date.
func (w *Watcher) process(ctx context.Context, rel string, t *store.TrackedFile, deep bool) (Outcome, error) {
	f, unchanged := w.check(rel, t, deep)
	if f == nil {
		return unchanged, nil
	}
	o, err := w.ing.Ingest(ctx, w.f.Agent, *f)
	if err != nil {
		return Outcome{}, err
	}
	w.done(rel, o, t)
	return o, nil
}

// done finishes a file once its change is committed: an inbox moves it away.
func (w *Watcher) done(rel string, o Outcome, t *store.TrackedFile) {
	if w.f.Move && !w.f.mirror() {
		w.moveInbox(rel, o, t)
	}
}

// check stats and, when it may have changed, reads one file. It returns nil and an "unchanged"
// outcome when the tracked state is current. With deep, an unchanged size and mtime is not trusted:
// the content is hashed and compared.
func (w *Watcher) check(rel string, t *store.TrackedFile, deep bool) (*File, Outcome) {
	unchanged := Outcome{Path: rel, Status: "unchanged"}
	f := File{Root: w.f.Path, Path: rel, Mirror: w.f.mirror()}
	root, err := os.OpenRoot(w.f.Path)
	if err != nil {
		f.Err = fmt.Errorf("open the watched folder: %w", err)
		return &f, Outcome{}
	}
	defer root.Close()
	name, ok := w.statInto(root, &f)
	if !ok {
		return nil, unchanged
	}
	sameStat := t != nil && t.Size == f.Size && t.MTime.Equal(f.MTime.UTC())
	// An image stored with its metadata only is read again once a vision model can describe it.
	f.Refresh = t != nil && t.Undescribed && w.ing.Describe != nil
	if t != nil && sameStat {
		switch {
		case t.Status == store.FileFailed && w.now().Before(t.NextRetry):
			return nil, unchanged
		case t.Status != store.FileFailed && (!deep || t.SHA256 == "") && !f.Refresh:
			return nil, unchanged
		}
	}
	if f.Err == nil && f.Size > w.f.maxBytes() {
		f.Err = &files.SkipError{Reason: fmt.Sprintf("file is %d bytes; the limit (max_file_bytes) is %d", f.Size, w.f.maxBytes())}
	}
	if f.Err == nil {
		f.Data, f.Err = readFile(root, name, w.f.maxBytes())
		if f.Err == nil {
			f.Size = int64(len(f.Data))
		}
	}
	if t != nil && f.Err == nil && t.Status != store.FileFailed && t.SHA256 == sha(f.Data) && sameStat && !f.Refresh {
		return nil, unchanged
	}
	return &f, Outcome{}
}

// statInto sets f's size and mtime, or its error, from its place under root and returns the name
// to read it by; false means there is nothing to do (gone since, a dangling symlink, not a regular
// file).
func (w *Watcher) statInto(root *os.Root, f *File) (string, bool) {
	name, fi, err := w.resolve(root, f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false
	case files.IsSkip(err):
		f.Err = err
		// Only the link's own size and mtime, so that an unchanged link is not looked at again.
		if li, lerr := os.Lstat(filepath.Join(w.f.Path, filepath.FromSlash(f.Path))); lerr == nil {
			f.Size, f.MTime = li.Size(), li.ModTime()
		}
	case err != nil:
		f.Err = fmt.Errorf("stat: %w", err)
	case !fi.Mode().IsRegular():
		return "", false
	default:
		f.Size, f.MTime = fi.Size(), fi.ModTime()
	}
	return name, true
}

// resolve stats rel through root, which follows a symlink (the file's own, or a folder's on the
// way) only while it stays inside the folder, and returns the name to read it by. An absolute
// symlink, which os.Root never follows, is resolved here and read at its target when that is
// inside. A path that leads outside is skipped, never read. os.Root checks every component at each
// use, so a folder swapped for a symlink after this check is refused by the read too.
func (w *Watcher) resolve(root *os.Root, rel string) (string, fs.FileInfo, error) {
	name := filepath.FromSlash(rel)
	fi, err := root.Stat(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return name, fi, err
	}
	real, rerr := filepath.EvalSymlinks(filepath.Join(w.f.Path, name))
	if rerr != nil {
		return "", nil, err
	}
	base, rerr := filepath.EvalSymlinks(w.f.Path)
	if rerr != nil {
		return "", nil, err
	}
	inner, rerr := filepath.Rel(base, real)
	if rerr != nil || inner == ".." || strings.HasPrefix(inner, ".."+string(filepath.Separator)) {
		return "", nil, &files.SkipError{Reason: "a symbolic link to outside the watched folder"}
	}
	fi, err = root.Stat(inner)
	return inner, fi, err
}

// readFile reads at most limit bytes of the file name under root (it may have grown since it was
// stat'ed).
func readFile(root *os.Root, name string, limit int64) ([]byte, error) {
	fh, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, &files.SkipError{Reason: fmt.Sprintf("file is over the limit (max_file_bytes) of %d bytes", limit)}
	}
	return data, nil
}

// moveInbox moves a done inbox file to processed/ (or failed/ once it has failed often enough).
func (w *Watcher) moveInbox(rel string, o Outcome, t *store.TrackedFile) {
	dir := ""
	switch {
	case o.Status == store.FileOK:
		dir = processedDir
	case o.Status == store.FileSkipped:
		dir = failedDir
	case o.Status == store.FileFailed && o.modelDown: // the model's failure, not the file's: keep trying
		return
	case o.Status == store.FileFailed && t != nil && t.Attempts+1 >= maxInboxAttempts:
		dir = failedDir
	default:
		return
	}
	if err := w.move(rel, path.Join(dir, rel)); err != nil {
		w.log.Warn("move inbox file", "path", rel, "err", err)
	}
}

// move renames rel to dst (both relative to the folder) through os.Root, so that neither leaves
// the folder whatever symlinks are on the way. An existing dst is never overwritten: both are kept.
func (w *Watcher) move(rel, dst string) error {
	root, err := os.OpenRoot(w.f.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	src, to := filepath.FromSlash(rel), filepath.FromSlash(dst)
	if _, err := root.Lstat(to); err == nil {
		to = strings.TrimSuffix(to, path.Ext(to)) + "." + w.now().Format("20060102T150405.000") + path.Ext(to)
	}
	if err := root.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	return root.Rename(src, to)
}

// retry processes failed files whose retry time has come.
func (w *Watcher) retry(ctx context.Context) {
	var due []store.TrackedFile
	err := w.ing.Store.With(ctx, w.f.Agent, false, func(a *store.Agent) error {
		failed, err := a.FailedFiles(ctx)
		for _, f := range failed {
			if f.Root == w.f.Path && !w.now().Before(f.NextRetry) {
				due = append(due, f)
			}
		}
		return err
	})
	if err != nil {
		if !errors.Is(err, store.ErrNoAgent) && ctx.Err() == nil {
			w.log.Warn("list failed files", "err", err)
		}
		return
	}
	for _, t := range due {
		if _, err := os.Lstat(filepath.Join(w.f.Path, filepath.FromSlash(t.Path))); err != nil {
			_, _ = w.forget(ctx, t.Path)
			continue
		}
		if _, err := w.process(ctx, t.Path, &t, true); err != nil && ctx.Err() == nil {
			w.log.Warn("retry file", "path", t.Path, "err", err)
		}
	}
}
