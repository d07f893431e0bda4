// Package daemon runs Dormouse as a service: it opens the store, binds the
// listener, tells systemd when it is ready, and drains cleanly on shutdown.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// drainTimeout bounds how long shutdown waits for in-flight requests.
const drainTimeout = 20 * time.Second

// StoreOptions maps the configuration onto the store's options.
func StoreOptions(cfg config.Config, log *slog.Logger) store.Options {
	return store.Options{
		Dir:            cfg.DataDir,
		Synchronous:    cfg.Storage.Synchronous,
		BusyTimeout:    time.Duration(cfg.Storage.BusyTimeout),
		CacheSizeKiB:   cfg.Storage.CacheSizeKiB,
		ReadConns:      cfg.Storage.ReadConns,
		IdleClose:      time.Duration(cfg.Storage.IdleClose),
		MaxOpenAgents:  cfg.Storage.MaxOpenAgents,
		GroupCommitMax: cfg.Storage.GroupCommitMax,
		DedupWindow:    time.Duration(cfg.Capture.DedupWindow),
		Location:       cfg.Location(),
		Logger:         log,
	}
}

// RecallEngine maps the configuration onto the recall engine.
func RecallEngine(cfg config.Config) *recall.Engine {
	return &recall.Engine{
		MaxCandidates:   cfg.Recall.MaxCandidates,
		RecencyHalfLife: time.Duration(cfg.Recall.RecencyHalfLife),
		DefaultBudget:   cfg.Recall.BudgetTokens,
		DefaultK:        cfg.Recall.K,
	}
}

// Run serves until ctx is cancelled, then drains: the listener stops, in-flight
// requests (and so their writes) finish, every WAL is checkpointed and the
// files are closed. It notifies systemd (when NOTIFY_SOCKET is set) with
// READY=1 once the store is open and the listener bound, and STOPPING=1 when
// the drain starts.
func Run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	st, err := store.Open(ctx, StoreOptions(cfg, log))
	if err != nil {
		return err
	}
	// Open every existing agent once, so migrations run (and a broken file
	// shows) at start-up rather than on a first request.
	agents, err := st.Agents()
	if err != nil {
		_ = st.Close()
		return err
	}
	for _, name := range agents {
		if err := st.With(ctx, name, false, func(*store.Agent) error { return nil }); err != nil {
			_ = st.Close()
			return fmt.Errorf("open agent %q at start-up: %w", name, err)
		}
	}

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		_ = st.Close()
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	api := server.New(st, RecallEngine(cfg), server.Options{
		MaxBodyBytes:    cfg.API.MaxBodyBytes,
		MaxBatch:        cfg.API.MaxBatch,
		MaxContentBytes: cfg.API.MaxContentBytes,
		AutoCreate:      cfg.API.AutoCreate,
		Agents:          cfg.API.Agents,
		Logger:          log,
	})
	srv := &http.Server{
		Handler:           api,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Duration(cfg.API.ReadTimeout),
		WriteTimeout:      time.Duration(cfg.API.WriteTimeout),
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	api.SetReady(true)
	notify(log, sd.SdNotifyReady)
	notify(log, fmt.Sprintf("STATUS=serving %d agents on %s", len(agents), ln.Addr()))
	log.Info("listening", "addr", ln.Addr().String(), "data", cfg.DataDir, "agents", len(agents),
		"provider", cfg.LLM.Provider)
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		log.Warn("listening beyond loopback without authentication: anyone who can reach this address can read and write every agent's memories",
			"addr", ln.Addr().String())
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}

	notify(log, sd.SdNotifyStopping)
	api.SetReady(false)
	log.Info("draining")
	dctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	shutErr := srv.Shutdown(dctx)
	closeErr := st.Close()
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	if err := errors.Join(serveErr, shutErr, closeErr); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	log.Info("stopped")
	return nil
}

func notify(log *slog.Logger, state string) {
	if _, err := sd.SdNotify(false, state); err != nil {
		log.Warn("sd_notify", "state", state, "err", err)
	}
}
