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

	// Workers read and parse files; one committer stores them in batches, one transaction each.
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	jobs := make(chan string)
	prepared := make(chan preparedFile, commitBatch)
	var wg sync.WaitGroup
	for range scanWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rel := range jobs {
				t, ok := tracked[rel]
				f, unchanged := w.check(rel, ptr(t, ok), deep)
				if f == nil {
					mu.Lock()
					res.add(unchanged)
					mu.Unlock()
					continue
				}
				ch, cause, err := w.ing.prepareCause(ctx, *f)
				if err != nil {
					fail(err)
					continue
				}
				prepared <- preparedFile{ch: ch, tracked: ptr(t, ok), cause: cause}
			}
		}()
	}
	committed := make(chan struct{})
	go func() {
		defer close(committed)
		batch := make([]preparedFile, 0, commitBatch)
		flush := func() {
			if len(batch) == 0 {
				return
			}
			chs := make([]store.FileChange, len(batch))
			for i, p := range batch {
				chs[i] = p.ch
			}
			outs, err := w.ing.commit(ctx, w.f.Agent, chs)
			if err != nil {
				fail(err)
			}
			for i, o := range outs {
				mu.Lock()
				res.add(o)
				mu.Unlock()
				o.modelDown = errors.Is(batch[i].cause, files.ErrDescribe)
				w.done(o.Path, o, batch[i].tracked)
			}
			batch = batch[:0]
		}
		for p := range prepared {
			batch = append(batch, p)
			if len(batch) >= commitBatch || len(prepared) == 0 {
				flush()
			}
		}
		flush()
	}()
	seen := map[string]bool{}
	unreadable := []string{} // folders whose files must not be taken for deleted
	walkErr := filepath.WalkDir(w.f.Path, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, ok := w.rel(p)
		if !ok {
			return nil
		}
		if err != nil {
			if rel == "." {
				return err
			}
			unreadable = append(unreadable, rel)
			w.log.Warn("scan folder", "path", rel, "err", err)
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if !w.filter.dir(rel) {
				return filepath.SkipDir
			}
			w.watch(p)
			return nil
		}
		if !w.filter.file(rel) {
			return nil
		}
		seen[rel] = true
		res.Seen++
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			return errors.New("stop")
		}
		select {
		case jobs <- rel:
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	})
	close(jobs)
	wg.Wait()
	close(prepared)
	<-committed
	if firstErr != nil {
		return firstErr
	}
	if walkErr != nil {
		return fmt.Errorf("scan %s: %w", w.f.Path, walkErr)
	}
	for rel := range tracked {
		if seen[rel] || under(rel, unreadable) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(w.f.Path, filepath.FromSlash(rel))); err == nil && w.filter.file(rel) {
			continue // created while the walk was past it: the events will bring it
		}
		n, err := w.forget(ctx, rel)
		if err != nil {
			return err
		}
		res.Removed++
		res.Retired += n
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
