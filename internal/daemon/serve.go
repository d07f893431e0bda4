package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/server"
)

// RunWithReload is Run that also reloads the configuration on each of
// reload's hangups (see Reload).
func RunWithReload(ctx context.Context, cfg config.Config, environ []string, log *slog.Logger, reload Reload) error {
	s, err := Open(ctx, cfg, environ, log)
	if err != nil {
		return err
	}
	// Litestream stops after the store has closed (deferred), so it ships
	// every write the drain committed.
	rep, err := startReplication(cfg, s, environ)
	if err != nil {
		return errors.Join(err, s.Close())
	}
	defer rep.Stop()
	d, err := prepare(ctx, s)
	if err != nil {
		return errors.Join(err, s.Close())
	}
	d.start(ctx, reload)
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-d.served:
	}
	return d.drain(serveErr)
}

// serving is the daemon from start-up to drain: the services, and what
// serving them over HTTP adds. Every part it starts is stopped by the
// services' Close, in the reverse order of starting.
type serving struct {
	s       *Services
	log     *slog.Logger
	agents  []string
	keys    *auth.Keyring
	reads   *gate.Reads // the read grants the API serves, which a reload swaps
	ln      net.Listener
	backlog *consolidate.Backlog // nil without consolidation
	api     *server.Server
	srv     *http.Server
	served  chan error
	unclean *runMark // the last run's, when it did not stop cleanly
}

// prepare opens the agents, binds the listener and builds the API, before
// anything runs in the background: a failure leaves nothing to stop but
// what s.Close releases.
func prepare(ctx context.Context, s *Services) (*serving, error) {
	d := &serving{s: s, log: s.Logger, served: make(chan error, 1)}
	var err error
	d.lookBack()
	if d.agents, err = openAgents(ctx, s.Store, s.Logger); err != nil {
		return nil, err
	}
	if d.keys, err = Keyring(s.Config); err != nil {
		return nil, err
	}
	sweepBackups(s.Config, s.Logger)
	if d.ln, err = listen(s.Config, d.keys); err != nil {
		return nil, err
	}
	s.OnClose(func() error { _ = d.ln.Close(); return nil }) // once serving, Shutdown closes it
	s.logDegraded()
	if err := d.buildAPI(); err != nil {
		return nil, err
	}
	return d, nil
}

// sweepBackups deletes what backups killed mid-way left in the backups folder: a copy the size of
// its agent. A folder it cannot sweep costs only that space, so serving goes on.
func sweepBackups(cfg config.Config, log *slog.Logger) {
	removed, err := backup.Sweep(cfg.BackupDir())
	for _, p := range removed {
		log.Info("removed a killed backup's half-written copy", "path", p)
	}
	if err != nil {
		log.Warn("the backups folder keeps killed backups' copies", "err", err)
	}
}

// listen binds cfg.Listen. Beyond loopback it refuses to serve without
// tokens, unless auth.allow_open says everyone there may.
func listen(cfg config.Config, keys *auth.Keyring) (net.Listener, error) {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	if beyondLoopback(ln) && !keys.Enabled() && !cfg.Auth.AllowOpen {
		_ = ln.Close()
		return nil, fmt.Errorf("listen on %s: beyond loopback every request needs a token, and auth.tokens is empty: "+
			"add one (dormouse token new prints it), listen on 127.0.0.1, or set auth.allow_open: true "+
			"if everyone who can reach this address may read and write every agent's memories", cfg.Listen)
	}
	return ln, nil
}

func beyondLoopback(ln net.Listener) bool {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	return ok && !tcp.IP.IsLoopback()
}

// buildAPI builds what the daemon serves: the services' API with the
// tokens, the page, MCP at /mcp and the write triggers.
func (d *serving) buildAPI() error {
	s := d.s
	opts := s.ServerOptions()
	opts.Keyring = d.keys
	d.reads = opts.Reads
	opts.OnWrite = d.writeTriggers()
	ing := s.Watchers.Ingester()
	ing.OnWrite = opts.OnWrite
	if s.Rebuilder != nil { // days that cited changed files
		ing.OnRetire = s.Rebuilder.Notify
	}
	web, err := WebPage(s.Config, s.Store, s.Recall, opts, ing, d.keys, s.Logger)
	if err != nil {
		return fmt.Errorf("build the web page: %w", err)
	}
	opts.Web = web
	d.api = server.New(s.Store, s.Recall, opts)
	d.api.Handle("/mcp", d.api.RequireAll(MCPHandler(d.api, s.Logger)))
	d.srv = &http.Server{
		Handler:           d.api,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Duration(s.Config.API.ReadTimeout),
		WriteTimeout:      time.Duration(s.Config.API.WriteTimeout),
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.Logger.Handler(), slog.LevelWarn),
	}
	return nil
}

// writeTriggers is what each write nudges: the backlog's early
// consolidation and the embedder; nil when neither runs.
func (d *serving) writeTriggers() func(agent string) {
	s := d.s
	var nudge []func(string)
	if s.Consolidate != nil {
		d.backlog = &consolidate.Backlog{Engine: s.Consolidate, Threshold: s.Config.Consolidate.BacklogThreshold,
			Debounce: time.Duration(s.Config.Consolidate.BacklogDebounce)}
		nudge = append(nudge, d.backlog.Notify)
	}
	if s.Embedder != nil {
		s.Embedder.Every = embedEvery
		nudge = append(nudge, s.Embedder.Notify)
	}
	if s.Replication != nil { // the replica lags from each acknowledged write
		nudge = append(nudge, s.Replication.Wrote)
	}
	if len(nudge) == 0 {
		return nil
	}
	return func(agent string) {
		for _, n := range nudge {
			n(agent)
		}
	}
}

// start serves, tells systemd it is ready and starts the background work,
// under a context the drain cancels first: a cancelled consolidation's
// transaction never commits.
func (d *serving) start(ctx context.Context, reload Reload) {
	s, log := d.s, d.log
	bg, stopBG := context.WithCancel(ctx)
	d.startWorkers(bg)
	go func() { d.served <- d.srv.Serve(d.ln) }()
	d.api.SetReady(true)
	notify(log, sd.SdNotifyReady)
	notify(log, fmt.Sprintf("STATUS=serving %d agents on %s", len(d.agents), d.ln.Addr()))
	go reloader{Reload: reload, keys: d.keys, reads: d.reads, log: log}.run(bg, s.Config)
	go Watchdog(bg, log, Liveness(d.ln.Addr(), s.Store)) // pings only while /healthz and the store answer
	go Summarize(bg, s.Health, d.ln.Addr().String(), SummaryEvery, log, func(st string) { notify(log, st) })
	go returnMemoryWhenQuiet(bg, s.Store.LastUsed, time.Duration(s.Config.Storage.ConnIdleClose), debug.FreeOSMemory)
	d.startAfterReady(bg)
	log.Info("listening", "addr", d.ln.Addr().String(), "data", s.Config.DataDir, "agents", len(d.agents),
		"provider", s.Config.LLM.Provider)
	if beyondLoopback(d.ln) && !d.keys.Enabled() {
		log.Warn("listening beyond loopback without tokens (auth.allow_open): anyone who can reach this address can read and write every agent's memories",
			"addr", d.ln.Addr().String())
	}
	s.OnClose(d.shutdown)
	s.OnClose(func() error { stopBG(); return nil }) // closed first: stop the background, then drain requests
}

// startWorkers starts what writes nudge, before the first request.
func (d *serving) startWorkers(bg context.Context) {
	if d.backlog != nil {
		d.backlog.Start(bg)
		d.s.OnClose(waitFor(d.backlog.Wait))
	}
	if e := d.s.Embedder; e != nil {
		e.Start(bg)
		d.s.OnClose(waitFor(e.Wait))
	}
}

// startAfterReady starts the work that must never delay start-up: the first
// scan of a big vault, left-over rebuilds and the catch-up.
func (d *serving) startAfterReady(bg context.Context) {
	s := d.s
	s.Watchers.Start(bg)
	s.OnClose(waitFor(s.Watchers.Wait))
	if s.Rebuilder != nil {
		s.Rebuilder.Start(bg, d.agents)
		s.OnClose(waitFor(s.Rebuilder.Wait))
	}
	if s.Consolidate != nil && s.Config.Consolidate.CatchUp {
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Consolidate.CatchUp(bg)
		}()
		s.OnClose(waitFor(func() { <-done }))
	}
	if d.unclean != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkAfterUncleanStop(bg, s.Store, d.agents, *d.unclean, d.log)
		}()
		s.OnClose(waitFor(func() { <-done }))
	}
}

// shutdown stops the listener and waits, up to drainTimeout, for in-flight
// requests (and so their writes) to finish.
func (d *serving) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	return d.srv.Shutdown(ctx)
}

// drain tells systemd the daemon is stopping and closes everything: the
// background stops, requests finish, every WAL is checkpointed and the files
// are closed.
func (d *serving) drain(serveErr error) error {
	notify(d.log, sd.SdNotifyStopping)
	d.api.SetReady(false)
	d.log.Info("draining")
	closeErr := d.s.Close()
	if closeErr == nil {
		closeErr = markStopped(d.s.Config.DataDir)
	}
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	if err := errors.Join(serveErr, closeErr); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	d.log.Info("stopped")
	return nil
}

// waitFor is a wait as a closer.
func waitFor(wait func()) func() error {
	return func() error { wait(); return nil }
}
