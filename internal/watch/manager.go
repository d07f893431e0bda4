package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// Manager runs the watchers of every configured folder.
type Manager struct {
	ing      *Ingester
	watchers []*Watcher
	wg       sync.WaitGroup
	running  atomic.Bool
}

// NewManager prepares a watcher per folder.
func NewManager(folders []Folder, ing *Ingester, log *slog.Logger) *Manager {
	m := &Manager{ing: ing}
	for _, f := range folders {
		m.watchers = append(m.watchers, NewWatcher(f, ing, log))
	}
	return m
}

// Ingester returns the pipeline the watchers feed.
func (m *Manager) Ingester() *Ingester { return m.ing }

// Start runs every watcher until ctx ends; Wait waits for them to stop.
func (m *Manager) Start(ctx context.Context) {
	m.running.Store(true)
	for _, w := range m.watchers {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			w.Run(ctx)
		}()
	}
}

// Wait returns once every watcher has stopped.
func (m *Manager) Wait() { m.wg.Wait() }

// Folders returns the settings of every watched folder.
func (m *Manager) Folders() []Folder {
	out := make([]Folder, len(m.watchers))
	for i, w := range m.watchers {
		out[i] = w.f
	}
	return out
}

// Scan runs a full scan (comparing hashes) of every folder, or only agent's when agent is not "",
// and returns what each did. Running watchers scan in their own loop, so a scan never races events.
func (m *Manager) Scan(ctx context.Context, agent string) ([]ScanResult, error) {
	var out []ScanResult
	var errs []error
	for _, w := range m.watchers {
		if agent != "" && w.f.Agent != agent {
			continue
		}
		var res ScanResult
		var err error
		if m.running.Load() {
			res, err = w.Scan(ctx)
		} else {
			res, err = w.ScanOnce(ctx)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("scan %s: %w", w.f.Path, err))
		}
		out = append(out, res)
	}
	return out, errors.Join(errs...)
}

// Status returns every watcher's status, with the files tracked counted in
// the store: what every scan stored, the last one's included, whichever
// process ran it.
func (m *Manager) Status(ctx context.Context) ([]Status, error) {
	out := make([]Status, len(m.watchers))
	for i, w := range m.watchers {
		out[i] = w.Status()
		n, err := m.ing.trackedCount(ctx, w.f)
		if err != nil {
			return nil, err
		}
		out[i].FilesTracked = n
	}
	return out, nil
}

// FailingFile is a file whose last attempt failed, for the health report and `dormouse status`.
type FailingFile struct {
	Agent string `json:"agent"`
	store.TrackedFile
}

// FailingFiles lists the failing files of every agent that has a watched folder, plus uploads.
func (m *Manager) FailingFiles(ctx context.Context) ([]FailingFile, error) {
	return FailingFiles(ctx, m.ing.Store, m.agents())
}

func (m *Manager) agents() []string {
	var agents []string
	seen := map[string]bool{}
	for _, w := range m.watchers {
		if !seen[w.f.Agent] {
			seen[w.f.Agent] = true
			agents = append(agents, w.f.Agent)
		}
	}
	return agents
}

// FailingFiles lists the failing files of the given agents (every agent with a file when nil). An
// agent that has no file yet has none.
func FailingFiles(ctx context.Context, st *store.Store, agents []string) ([]FailingFile, error) {
	if agents == nil {
		var err error
		if agents, err = st.Agents(); err != nil {
			return nil, err
		}
	}
	var out []FailingFile
	for _, name := range agents {
		err := st.With(ctx, name, false, func(a *store.Agent) error {
			failed, err := a.FailedFiles(ctx)
			for _, f := range failed {
				out = append(out, FailingFile{Agent: name, TrackedFile: f})
			}
			return err
		})
		if err != nil && !errors.Is(err, store.ErrNoAgent) {
			return nil, fmt.Errorf("failing files of %q: %w", name, err)
		}
	}
	return out, nil
}
