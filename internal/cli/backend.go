package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// backend is what the client commands need, served either by a daemon over
// HTTP or by the agent files directly.
type backend interface {
	Ingest(ctx context.Context, agent string, ins []capture.Input) ([]client.Inserted, error)
	Recall(ctx context.Context, agent string, req recall.Request) (client.RecallResult, error)
	List(ctx context.Context, agent string, o client.ListOptions) ([]client.Memory, string, error)
	Get(ctx context.Context, agent string, id int64) (client.Memory, error)
	Delete(ctx context.Context, agent string, id int64) error
	RejectFact(ctx context.Context, agent string, id int64) error
	Stats(ctx context.Context, agent string) (client.Stats, error)
	Agents(ctx context.Context) ([]string, error)
	Consolidate(ctx context.Context, agent string, req consolidate.Request) (client.ConsolidateResult, error)
	Ask(ctx context.Context, agent string, req recall.Request) (client.Answer, error)
	WatchScan(ctx context.Context, agent string) ([]client.ScanResult, string, error)
	WatchStatus(ctx context.Context) (client.WatchStatus, error)
	UploadFile(ctx context.Context, agent, name string, data []byte, mtime time.Time) (client.FileOutcome, error)
	Health(ctx context.Context) (client.Health, error)
	factBackend
	profileBackend
	shareBackend
	Close() error
}

// open picks the backend: --data means the files, otherwise the daemon at
// --addr, DORMOUSE_ADDR or the configured listen address.
func (c *common) open(ctx context.Context, env Env, write bool) (backend, error) {
	if c.agent != "" {
		if err := store.ValidateAgentName(c.agent); err != nil {
			return nil, usagef("--agent: %v", err)
		}
	}
	flags := map[string]string{}
	if c.data != "" {
		flags["data_dir"] = c.data
	}
	cfg, err := loadConfig(env, c.configPath, flags)
	if err != nil {
		return nil, err
	}
	if c.data != "" {
		s, err := openData(ctx, env, cfg, write)
		if err != nil {
			return nil, err
		}
		if s.ConsolidateErr != nil {
			s.Logger.Debug("consolidation unavailable", "err", s.ConsolidateErr)
		}
		return newLocal(s), nil
	}
	return newRemote(daemonAddr(env, c.addr, cfg.Listen), env.getenv("DORMOUSE_TOKEN")), nil
}

// openData opens the services over the data directory of --data. A write
// may create the directory; a read creates nothing, so the directory must
// exist: a mistyped --data is an error, not an empty install.
func openData(ctx context.Context, env Env, cfg config.Config, write bool) (*daemon.Services, error) {
	if write {
		if err := refuseRootWrite(env, cfg.DataDir); err != nil {
			return nil, err
		}
	} else if err := dataDirExists(cfg.DataDir); err != nil {
		return nil, err
	}
	return daemon.Open(ctx, cfg, env.Environ, envLogger(env, cfg.LogLevel))
}

// dataDirExists checks that dir is a directory there to read.
func dataDirExists(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("data directory %s does not exist: check --data (nothing was created)", dir)
	case err != nil:
		return fmt.Errorf("read the data directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("data directory %s is not a directory: check --data", dir)
	}
	return nil
}

// daemonAddr is where the client commands find the daemon: addr (--addr),
// else DORMOUSE_ADDR, else the configured listen address.
func daemonAddr(env Env, addr, listen string) string {
	if addr == "" {
		addr = env.getenv("DORMOUSE_ADDR")
	}
	if addr == "" {
		addr = dialable(listen)
	}
	return addr
}

// tokenOption sends DORMOUSE_TOKEN, when it is set, as the bearer token.
func tokenOption(env Env) []client.Option {
	if tok := env.getenv("DORMOUSE_TOKEN"); tok != "" {
		return []client.Option{client.WithToken(tok)}
	}
	return nil
}

// dialable turns a listen address into one a client can dial: a wildcard
// host means this machine.
func dialable(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// refuseRootWrite stops root from creating files the daemon's user could
// not open: writing as root is refused in a data directory root does not own.
func refuseRootWrite(env Env, dir string) error {
	if env.Euid != 0 {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil // a new directory will be root's own
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
		return fmt.Errorf("refusing to write as root into %s, which belongs to uid %d: run as that user (sudo -u dormouse dormouse ...)", dir, st.Uid)
	}
	return nil
}

// local serves the commands from the agent files, with the daemon's
// services: the same recall engine, answerer and health monitor.
type local struct {
	s       *daemon.Services
	st      *store.Store
	limits  capture.Limits
	factAPI // through the API's handlers in-process
}

func newLocal(s *daemon.Services) *local {
	cfg := s.Config
	lim := capture.Limits{MaxContent: cfg.API.MaxContentBytes, MaxFutureSkew: time.Duration(cfg.Capture.MaxFutureSkew)}
	api := factAPI{daemon.InProcessClient(s.API())}
	return &local{s: s, st: s.Store, limits: lim, factAPI: api}
}

func (l *local) Consolidate(ctx context.Context, agent string, req consolidate.Request) (client.ConsolidateResult, error) {
	if l.s.Consolidate == nil {
		return client.ConsolidateResult{}, l.s.ConsolidateErr
	}
	res, err := l.s.Consolidate.Do(ctx, agent, req)
	return wire.ConsolidateResult(res), err
}

func (l *local) Close() error { return l.s.Close() }

func (l *local) Ingest(ctx context.Context, agent string, ins []capture.Input) ([]client.Inserted, error) {
	var out []store.Inserted
	err := l.st.With(ctx, agent, true, func(a *store.Agent) error {
		var err error
		out, err = capture.Ingest(ctx, a, ins, l.limits, time.Now())
		return err
	})
	return wire.Inserted(out), err
}

func (l *local) Recall(ctx context.Context, agent string, req recall.Request) (client.RecallResult, error) {
	q, err := req.Parse()
	if err != nil {
		return client.RecallResult{}, err
	}
	var res recall.Result
	err = l.granted(ctx, agent, func(g *gate.Granted) error {
		res, err = l.s.Recall.RecallFrom(ctx, g.Sources, q)
		res.Note = gate.JoinNotes(res.Note, g.Note)
		return err
	})
	return res, err
}

// granted runs fn over agent and the agents it reads (agents.<reader>.reads),
// as the daemon's recall opens them; the files need no token.
func (l *local) granted(ctx context.Context, agent string, fn func(g *gate.Granted) error) error {
	return l.st.With(ctx, agent, false, func(a *store.Agent) error {
		g, err := gate.NewReads(l.s.Config.Agents.Reads).Open(ctx, l.st, nil, a)
		if err != nil {
			return err
		}
		defer g.Release()
		return fn(g)
	})
}

func (l *local) List(ctx context.Context, agent string, o client.ListOptions) ([]client.Memory, string, error) {
	var mems []store.Memory
	var next string
	err := l.st.With(ctx, agent, false, func(a *store.Agent) error {
		var err error
		mems, next, err = a.List(ctx, store.ListOptions{Since: o.Since, Until: o.Until, Session: o.SessionID, Limit: o.Limit, Cursor: o.Cursor})
		return err
	})
	return wire.Memories(mems), next, err
}

func (l *local) Get(ctx context.Context, agent string, id int64) (client.Memory, error) {
	var m store.Memory
	err := l.st.With(ctx, agent, false, func(a *store.Agent) error {
		var err error
		m, err = a.Get(ctx, id)
		return err
	})
	return wire.Memory(m), err
}

func (l *local) Delete(ctx context.Context, agent string, id int64) error {
	return l.st.With(ctx, agent, false, func(a *store.Agent) error { return a.Delete(ctx, id) })
}

func (l *local) RejectFact(ctx context.Context, agent string, id int64) error {
	return l.st.With(ctx, agent, false, func(a *store.Agent) error { return a.RejectFact(ctx, id) })
}

func (l *local) Stats(ctx context.Context, agent string) (client.Stats, error) {
	var st store.Stats
	err := l.st.With(ctx, agent, false, func(a *store.Agent) error {
		var err error
		st, err = a.Stats(ctx)
		return err
	})
	return wire.Stats(st), err
}

func (l *local) Agents(context.Context) ([]string, error) { return l.st.Agents() }
