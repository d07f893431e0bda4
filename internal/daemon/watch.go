package daemon

import (
	"log/slog"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
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
		Store:           st,
		MaxContentBytes: cfg.API.MaxContentBytes,
		Location:        cfg.Location(),
		AutoCreate:      true, // the watch list names its agents, and Validate checked them
		Logger:          log,
	}
}

// Watchers maps the configuration onto the watched folders' manager.
func Watchers(cfg config.Config, st *store.Store, log *slog.Logger) *watch.Manager {
	return watch.NewManager(WatchFolders(cfg), FileIngester(cfg, st, log), log)
}
