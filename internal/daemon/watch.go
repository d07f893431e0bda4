package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// WatchFolders maps the configuration's watch list onto the watcher's folders.
func WatchFolders(cfg config.Config) []watch.Folder {
	out := make([]watch.Folder, len(cfg.Watch))
	for i, w := range cfg.Watch {
		out[i] = watch.Folder{
			Path:         w.Path,
			Agent:        w.Agent,
			Mode:         w.Mode,
			Recursive:    w.Recursive,
			Include:      w.Include,
			Exclude:      w.Exclude,
			MaxFileBytes: w.MaxFileBytes,
			Rescan:       time.Duration(w.Rescan),
			Settle:       time.Duration(w.Settle),
			Move:         w.Move,
		}
	}
	return out
}

// FileIngester maps the configuration onto the file pipeline watched folders and uploads share.
func FileIngester(cfg config.Config, st *store.Store, log *slog.Logger) *watch.Ingester {
	return &watch.Ingester{
		Store:             st,
		MaxContentBytes:   cfg.API.MaxContentBytes,
		MaxFutureSkew:     time.Duration(cfg.Capture.MaxFutureSkew),
		Location:          cfg.Location(),
		AutoCreate:        true, // the watch list names its agents, and Validate checked them
		MaxExtractedBytes: cfg.Files.MaxExtractedBytes,
		MaxParts:          cfg.Files.MaxParts,
		PDF:               pdfChild(cfg, log),
		Logger:            log,
	}
}

// pdfChild reads PDFs in a child of this binary (`dormouse extract-pdf`, which cmd/dormouse hands to
// files.ServeChild), killed after files.parse_timeout: a PDF that makes the reader loop must not
// wedge the daemon. Without a path to this binary PDFs fail rather than risk that.
func pdfChild(cfg config.Config, log *slog.Logger) *files.Child {
	exe, err := os.Executable()
	if err != nil && log != nil {
		log.Warn("PDFs cannot be read: no path to this binary for the reader's child process", "err", err)
	}
	child := &files.Child{Timeout: time.Duration(cfg.Files.ParseTimeout)}
	if err == nil {
		child.Command = []string{exe, files.ChildArg}
	}
	return child
}

// Watchers maps the configuration onto the watched folders' manager.
func Watchers(cfg config.Config, st *store.Store, log *slog.Logger) *watch.Manager {
	return watch.NewManager(WatchFolders(cfg), FileIngester(cfg, st, log), log)
}

// DayRebuilder re-runs the consolidation of days whose records cited memories of files that have
// since changed or gone (store.FileRebuildDays): a rebuild reads only current memories, so the
// record stops saying what the file no longer says.
type DayRebuilder struct {
	Engine   *consolidate.Engine
	Store    *store.Store
	Debounce time.Duration // wait after a change, so a burst of edits costs one rebuild; 0: 5s
	Logger   *slog.Logger

	kick chan string
	done chan struct{}
}

// Notify asks for agent's marked days to be rebuilt soon. It never blocks.
func (r *DayRebuilder) Notify(agent string) {
	select {
	case r.kick <- agent:
	default: // a pass is already due; it reads every mark
	}
}

// Start rebuilds the days marked for agents (left over from a previous run) and then whatever
// Notify asks for, until ctx ends; Wait waits for it.
func (r *DayRebuilder) Start(ctx context.Context, agents []string) {
	r.kick = make(chan string, 64)
	r.done = make(chan struct{})
	for _, a := range agents {
		r.Notify(a)
	}
	go func() {
		defer close(r.done)
		debounce := r.Debounce
		if debounce <= 0 {
			debounce = 5 * time.Second
		}
		for {
			var first string
			select {
			case <-ctx.Done():
				return
			case first = <-r.kick:
			}
			pending := map[string]bool{first: true}
			timer := time.NewTimer(debounce)
		collect:
			for {
				select {
				case <-ctx.Done():
					timer.Stop()
					return
				case a := <-r.kick:
					pending[a] = true
				case <-timer.C:
					break collect
				}
			}
			for a := range pending {
				if err := r.Rebuild(ctx, a); err != nil && ctx.Err() == nil {
					r.Logger.Warn("rebuild days after file changes; they stay marked", "agent", a, "err", err)
				}
			}
		}
	}()
}

// Wait returns once Start's loop has stopped.
func (r *DayRebuilder) Wait() {
	if r.done != nil {
		<-r.done
	}
}

// Rebuild re-runs the consolidation of every day marked for agent and clears each mark that
// succeeded. A day whose lease another run holds stays marked for the next pass.
func (r *DayRebuilder) Rebuild(ctx context.Context, agent string) error {
	var days []store.RebuildDay
	err := r.Store.With(ctx, agent, false, func(a *store.Agent) error {
		var err error
		days, err = a.FileRebuildDays(ctx)
		return err
	})
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range days {
		if _, err := r.Engine.Run(ctx, agent, d.Day); err != nil {
			errs = append(errs, err)
			continue
		}
		err := r.Store.With(ctx, agent, false, func(a *store.Agent) error { return a.ClearFileRebuildDay(ctx, d.Day) })
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
