// Package backup takes verified online copies of the agent files and puts
// one back: what `dormouse backup`, `dormouse restore` and the nightly
// dormouse-backup.timer do.
//
// A backup of agent A is Dir/A/A-<UTC time>.db, written with SQLite's VACUUM
// INTO while the daemon keeps serving, checked with PRAGMA integrity_check
// before it counts, and only then given its final name; the newest Keep per
// agent stay. Directories are 0700, files 0600.
package backup

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/dormouse-dev/dormouse/internal/durable"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// stampLayout is the UTC time in a backup's name: sortable as text.
const stampLayout = "20060102T150405.000Z"

// Options say where backups go and how many stay.
type Options struct {
	Dir    string // one subdirectory per agent
	Keep   int    // newest backups kept per agent (at least 1)
	Now    func() time.Time
	Logger *slog.Logger
}

func (o *Options) fill() error {
	if o.Dir == "" {
		return errors.New("no backup directory")
	}
	if o.Keep < 1 {
		o.Keep = 1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Result is one agent's backup.
type Result struct {
	Agent   string   `json:"agent"`
	Path    string   `json:"path"`
	Bytes   int64    `json:"bytes"`
	TookMS  int64    `json:"took_ms"`
	Removed []string `json:"removed,omitempty"` // older backups deleted to keep Keep
}

// Agent backs up one agent of st: copy, verify, name, prune.
func Agent(ctx context.Context, st *store.Store, agent string, o Options) (Result, error) {
	if err := store.ValidateAgentName(agent); err != nil {
		return Result{}, err
	}
	var res Result
	err := st.With(ctx, agent, false, func(a *store.Agent) error {
		var err error
		res, err = Of(ctx, a, o)
		return err
	})
	return res, err
}

// Of backs up the open agent a, as Agent does: for a caller that holds
// it already (deleting it takes a backup first, with no write between).
func Of(ctx context.Context, a *store.Agent, o Options) (Result, error) {
	if err := o.fill(); err != nil {
		return Result{}, err
	}
	agent := a.Name()
	start := time.Now()
	dir := filepath.Join(o.Dir, agent)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Result{}, fmt.Errorf("back up agent %q: create %s: %w", agent, dir, err)
	}
	unlock, err := lockDir(dir, syscall.LOCK_EX)
	if err != nil {
		return Result{}, fmt.Errorf("back up agent %q: %w", agent, err)
	}
	defer unlock()
	// Holding the lock, every copy here is a killed run's: its space is needed for this one.
	swept, err := removeTmp(dir)
	if err != nil {
		return Result{}, fmt.Errorf("back up agent %q: %w", agent, err)
	}
	name := agent + "-" + o.Now().UTC().Format(stampLayout) + ".db"
	final := filepath.Join(dir, name)
	if _, err := os.Stat(final); err == nil {
		return Result{}, fmt.Errorf("back up agent %q: %s already exists", agent, final)
	}
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := a.BackupTo(ctx, tmp); err != nil {
		return Result{}, err
	}
	if err := store.CheckFile(ctx, tmp); err != nil {
		_ = os.Remove(tmp)
		return Result{}, fmt.Errorf("back up agent %q: the copy failed verification, nothing kept: %w", agent, err)
	}
	if err := syncFile(tmp); err != nil {
		_ = os.Remove(tmp)
		return Result{}, fmt.Errorf("back up agent %q: %w", agent, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return Result{}, fmt.Errorf("back up agent %q: %w", agent, err)
	}
	if err := durable.SyncDir(dir); err != nil {
		return Result{}, fmt.Errorf("back up agent %q: %w", agent, err)
	}
	res := Result{Agent: agent, Path: final, TookMS: time.Since(start).Milliseconds()}
	if fi, err := os.Stat(final); err == nil {
		res.Bytes = fi.Size()
	}
	res.Removed, err = prune(dir, agent, o.Keep)
	res.Removed = append(swept, res.Removed...)
	if err != nil {
		return res, fmt.Errorf("back up agent %q: prune old backups: %w", agent, err)
	}
	o.Logger.Info("backup", "agent", agent, "path", final, "bytes", res.Bytes, "took_ms", res.TookMS, "removed", len(res.Removed))
	return res, nil
}

// All backs up every agent of st, going on past failures, and returns what
// succeeded along with every failure joined.
func All(ctx context.Context, st *store.Store, o Options) ([]Result, error) {
	agents, err := st.Agents()
	if err != nil {
		return nil, err
	}
	var out []Result
	var errs []error
	for _, a := range agents {
		if ctx.Err() != nil {
			errs = append(errs, ctx.Err())
			break
		}
		r, err := Agent(ctx, st, a, o)
		if err != nil {
			errs = append(errs, err)
		}
		if r.Path != "" {
			out = append(out, r)
		}
	}
	return out, errors.Join(errs...)
}

// Backup is one backup file on disk.
type Backup struct {
	Agent string    `json:"agent"`
	Path  string    `json:"path"`
	Time  time.Time `json:"time"`
	Bytes int64     `json:"bytes"`
}

// List returns the backups of agent under dir, oldest first. No directory
// is no backups.
func List(dir, agent string) ([]Backup, error) {
	if err := store.ValidateAgentName(agent); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, agent))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list backups of agent %q: %w", agent, err)
	}
	var out []Backup
	for _, e := range entries {
		t, ok := parseName(e.Name(), agent)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		b := Backup{Agent: agent, Path: filepath.Join(dir, agent, e.Name()), Time: t}
		if fi, err := e.Info(); err == nil {
			b.Bytes = fi.Size()
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, nil
}

// parseName returns the time in a backup's file name "agent-<stamp>.db".
func parseName(name, agent string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, agent+"-")
	if !ok {
		return time.Time{}, false
	}
	rest, ok = strings.CutSuffix(rest, ".db")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(stampLayout, rest)
	return t, err == nil
}

// prune deletes all but the newest keep backups of agent in dir.
func prune(dir, agent string, keep int) ([]string, error) {
	list, err := List(filepath.Dir(dir), agent)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for len(list) > keep {
		if err := os.Remove(list[0].Path); err != nil {
			errs = append(errs, err)
		} else {
			removed = append(removed, list[0].Path)
		}
		list = list[1:]
	}
	return removed, errors.Join(errs...)
}

// Sweep deletes the half-written copies that killed backups left in dir's agent directories, and
// returns them; a directory whose backup is running is left alone. The daemon runs it at start-up,
// so a copy of an agent that is never backed up again does not stay for ever.
func Sweep(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep killed backups' copies: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		unlock, err := lockDir(sub, syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep killed backups' copies: %w", err))
			continue
		}
		r, err := removeTmp(sub)
		unlock()
		removed = append(removed, r...)
		if err != nil {
			errs = append(errs, fmt.Errorf("sweep killed backups' copies: %w", err))
		}
	}
	return removed, errors.Join(errs...)
}

// lockDir takes an flock on an agent's backup directory, held while a backup writes its copy there:
// a copy in a directory nobody holds is a killed run's (the kernel drops the lock with the
// process, however it ends), where a copy's age could not tell a killed run from a slow one.
func lockDir(dir string, how int) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

// removeTmp deletes the half-written copies (".<name>.tmp") in dir, whose lock the caller holds.
func removeTmp(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".tmp") || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil {
			return removed, err
		}
		removed = append(removed, p)
	}
	return removed, nil
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
