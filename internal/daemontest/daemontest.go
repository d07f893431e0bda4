// Package daemontest runs a real Dormouse daemon, in-process on a loopback
// port over a fresh data directory, for tests of what talks to one.
package daemontest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/proctest"
)

// Daemon is a running daemon.
type Daemon struct {
	Addr    string // host:port it listens on
	DataDir string
	log     *proctest.Buffer
	cancel  context.CancelFunc
	done    chan error
	once    sync.Once
	err     error
}

// URL is the daemon's base URL.
func (d *Daemon) URL() string { return "http://" + d.Addr }

// Log is what the daemon has logged so far.
func (d *Daemon) Log() string { return d.log.String() }

// Config is the configuration Start uses: the defaults, listening on a free
// loopback port, with its data in dataDir, logging at debug level, in UTC,
// and without the start-up catch-up: it runs once, soon after READY, and
// would consolidate whatever past days a test stored meanwhile, racing the
// test's own consolidation requests.
func Config(dataDir string) config.Config {
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	cfg.DataDir = dataDir
	cfg.LogLevel = "debug"
	cfg.Timezone = "UTC"
	cfg.Consolidate.CatchUp = false
	return cfg
}

// Run starts the daemon with cfg and returns once it listens. Stop it with
// Close.
func Run(cfg config.Config) (*Daemon, error) {
	d := &Daemon{DataDir: cfg.DataDir, log: &proctest.Buffer{}, done: make(chan error, 1)}
	addr := make(chan string, 1)
	h := &addrHandler{Handler: slog.NewTextHandler(d.log, &slog.HandlerOptions{Level: slog.LevelDebug}), addr: addr}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go func() { d.done <- daemon.Run(ctx, cfg, nil, slog.New(h)) }()
	select {
	case d.Addr = <-addr:
		return d, nil
	case err := <-d.done:
		cancel()
		return nil, fmt.Errorf("daemon exited before listening: %v\n%s", err, d.log.String())
	case <-time.After(30 * time.Second):
		cancel()
		return nil, fmt.Errorf("daemon did not listen within 30s:\n%s", d.log.String())
	}
}

// Close stops the daemon, waits for it to drain and returns its error. It
// may be called more than once.
func (d *Daemon) Close() error {
	d.once.Do(func() {
		d.cancel()
		d.err = <-d.done
	})
	return d.err
}

// Start runs a daemon over a data directory in tb.TempDir(), edited by edit
// when given, and stops it when the test ends.
func Start(tb testing.TB, edit ...func(*config.Config)) *Daemon {
	tb.Helper()
	cfg := Config(tb.TempDir())
	for _, e := range edit {
		e(&cfg)
	}
	d, err := Run(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := d.Close(); err != nil && !errors.Is(err, context.Canceled) {
			tb.Errorf("daemon shutdown: %v\n%s", err, d.Log())
		}
	})
	return d
}

// TempRun is Run over a new temporary directory, for TestMain (which has no
// testing.TB); stop returns the daemon's error and removes the directory.
func TempRun() (d *Daemon, stop func() error, err error) {
	dir, err := os.MkdirTemp("", "dormouse-daemontest-")
	if err != nil {
		return nil, nil, err
	}
	d, err = Run(Config(dir))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return d, func() error {
		err := d.Close()
		return errors.Join(err, os.RemoveAll(dir))
	}, nil
}

// addrHandler passes records on and reports the address of the daemon's
// "listening" record.
type addrHandler struct {
	slog.Handler
	addr chan string
}

func (h *addrHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "listening" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "addr" {
				select {
				case h.addr <- a.Value.String():
				default: // already reported
				}
				return false
			}
			return true
		})
	}
	return h.Handler.Handle(ctx, r)
}

func (h *addrHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &addrHandler{Handler: h.Handler.WithAttrs(as), addr: h.addr}
}

func (h *addrHandler) WithGroup(name string) slog.Handler {
	return &addrHandler{Handler: h.Handler.WithGroup(name), addr: h.addr}
}
