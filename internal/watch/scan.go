package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// scanWorkers files are read and parsed at once, and up to commitBatch of them are stored in one
// transaction: a transaction per file would cost most of a scan's time in commits.
const (
	scanWorkers = 4
	commitBatch = 64
)

type preparedFile struct {
	ch      store.FileChange
	tracked *store.TrackedFile
	cause   error // why it failed or was skipped
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// scan walks the whole folder: new and changed files are ingested, tracked files no longer there are
// forgotten (their memories retired in mirror mode). With deep, files whose size and mtime are
// unchanged are hashed too. A folder that is missing or unreadable forgets nothing: an unmounted
// disk must not retire every memory it gave.
func (w *Watcher) scan(ctx context.Context, deep bool) (ScanResult, error) {
	res := ScanResult{Path: w.f.Path, Agent: w.f.Agent, Started: w.now().UTC()}
	start := time.Now()
	err := w.doScan(ctx, deep, &res)
	res.Duration = time.Since(start).Round(time.Millisecond).String()
	w.setStatus(func(s *Status) {
		s.LastScan = &res
		s.Error = ""
		if err != nil {
			s.Error = err.Error()
		}
	})
	if err == nil {
		w.log.Info("scanned", "files", res.Seen, "ingested", res.Ingested, "memories", res.Memories,
			"unchanged", res.Unchanged, "skipped", res.Skipped, "failed", res.Failed, "removed", res.Removed,
			"retired", res.Retired, "took", res.Duration)
	}
	return res, err
}

func (w *Watcher) doScan(ctx context.Context, deep bool, res *ScanResult) error {
	fi, err := os.Stat(w.f.Path)
	if err != nil {
		return fmt.Errorf("watched folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("watched folder %s is not a directory", w.f.Path)
	}
	tracked, err := w.tracked(ctx)
	if err != nil {
		return err
	}
	s := &scanRun{w: w, ctx: ctx, deep: deep, tracked: tracked, res: res, seen: map[string]bool{},
		unreadable: []string{}, jobs: make(chan string), prepared: make(chan preparedFile, commitBatch)}
	walkErr := s.run()
	if s.firstErr != nil {
		return s.firstErr
	}
	if walkErr != nil {
		return fmt.Errorf("scan %s: %w", w.f.Path, walkErr)
	}
	return s.forgetGone()
}

// scanRun is one scan in progress: the walk hands files to workers that read
// and parse them, and one committer stores what they prepared in batches, one
// transaction each.
type scanRun struct {
	w       *Watcher
	ctx     context.Context
	deep    bool
	tracked map[string]store.TrackedFile

	jobs     chan string
	prepared chan preparedFile

	mu       sync.Mutex // guards res and firstErr, shared by the workers and the committer
	res      *ScanResult
	firstErr error

	seen       map[string]bool // the walk's own
	unreadable []string        // folders whose files must not be taken for deleted
}

// run walks the folder with the workers and the committer running, and
// returns once all three are done.
func (s *scanRun) run() error {
	var wg sync.WaitGroup
	for range scanWorkers {
		wg.Go(s.prepareFiles)
	}
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		s.commitFiles()
	}()
	walkErr := filepath.WalkDir(s.w.f.Path, s.visit)
	close(s.jobs)
	wg.Wait()
	close(s.prepared)
	<-committed
	return walkErr
}

func (s *scanRun) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.firstErr == nil {
		s.firstErr = err
	}
}

func (s *scanRun) failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstErr != nil
}

func (s *scanRun) count(o Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tally(s.res, o)
}

// prepareFiles is a worker: each file the walk hands it that changed is read
// and parsed for the committer.
func (s *scanRun) prepareFiles() {
	for rel := range s.jobs {
		t, ok := s.tracked[rel]
		f, unchanged := s.w.check(rel, ptr(t, ok), s.deep)
		if f == nil {
			s.count(unchanged)
			continue
		}
		ch, cause, err := s.w.ing.prepareCause(s.ctx, *f)
		if err != nil {
			s.fail(err)
			continue
		}
		s.prepared <- preparedFile{ch: ch, tracked: ptr(t, ok), cause: cause}
	}
}

// commitFiles stores prepared files in batches of up to commitBatch, or
// fewer when no more are waiting.
func (s *scanRun) commitFiles() {
	batch := make([]preparedFile, 0, commitBatch)
	for p := range s.prepared {
		batch = append(batch, p)
		if len(batch) >= commitBatch || len(s.prepared) == 0 {
			s.commit(batch)
			batch = batch[:0]
		}
	}
	s.commit(batch)
}

func (s *scanRun) commit(batch []preparedFile) {
	if len(batch) == 0 {
		return
	}
	chs := make([]store.FileChange, len(batch))
	for i, p := range batch {
		chs[i] = p.ch
	}
	outs, err := s.w.ing.commit(s.ctx, s.w.f.Agent, chs)
	if err != nil {
		s.fail(err)
	}
	for i, o := range outs {
		s.count(o)
		o.modelDown = errors.Is(batch[i].cause, files.ErrDescribe)
		s.w.done(o.Path, o, batch[i].tracked)
	}
}

// visit is the walk's step: folders are watched (or skipped by the filter,
// or noted as unreadable), files the filter takes are handed to a worker.
func (s *scanRun) visit(p string, d fs.DirEntry, err error) error {
	if cerr := s.ctx.Err(); cerr != nil {
		return cerr
	}
	rel, ok := s.w.rel(p)
	if !ok {
		return nil
	}
	if err != nil {
		return s.unreadableEntry(rel, d, err)
	}
	if d.IsDir() {
		if !s.w.filter.dir(rel) {
			return filepath.SkipDir
		}
		s.w.watch(p)
		return nil
	}
	if !s.w.filter.file(rel) {
		return nil
	}
	s.seen[rel] = true
	s.res.Seen++
	if s.failed() {
		return errors.New("stop")
	}
	select {
	case s.jobs <- rel:
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	return nil
}

// unreadableEntry notes a folder or file the walk could not read, so that
// what it holds is not taken for deleted; the folder itself unreadable ends
// the scan.
func (s *scanRun) unreadableEntry(rel string, d fs.DirEntry, err error) error {
	if rel == "." {
		return err
	}
	s.unreadable = append(s.unreadable, rel)
	s.w.log.Warn("scan folder", "path", rel, "err", err)
	if d != nil && d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// forgetGone forgets the tracked files the walk did not see, unless they sit
// in a folder it could not read or appeared behind it.
func (s *scanRun) forgetGone() error {
	for rel := range s.tracked {
		if s.seen[rel] || under(rel, s.unreadable) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(s.w.f.Path, filepath.FromSlash(rel))); err == nil && s.w.filter.file(rel) {
			continue // created while the walk was past it: the events will bring it
		}
		n, err := s.w.forget(s.ctx, rel)
		if err != nil {
			return err
		}
		s.res.Removed++
		s.res.Retired += n
	}
	return nil
}

func under(rel string, dirs []string) bool {
	for _, d := range dirs {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}
