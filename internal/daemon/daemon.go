// Package daemon runs Dormouse as a service: it opens the store, binds the
// listener, tells systemd when it is ready, and drains cleanly on shutdown.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
	"github.com/dormouse-dev/dormouse/internal/web"
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
		Kinds:          kinds.Of,
	}
}

// RecallEngine maps the configuration onto the recall engine.
func RecallEngine(cfg config.Config) *recall.Engine {
	return &recall.Engine{
		MaxCandidates:   cfg.Recall.MaxCandidates,
		RecencyHalfLife: time.Duration(cfg.Recall.RecencyHalfLife),
		DefaultBudget:   cfg.Recall.BudgetTokens,
		DefaultK:        cfg.Recall.K,
		Tuning:          recall.TuningWith(cfg.Recall.MinCoverage),
		Explain:         cfg.Recall.Explain,
		CountUse:        true,
	}
}

// ConsolidationEngine maps the configuration onto the consolidation engine:
// the offline consolidator, or a model through the LLM boundary, whose API
// key is looked up in environ ("NAME=value" pairs) or $CREDENTIALS_DIRECTORY
// there. Chunks are cut to the model's context window.
func ConsolidationEngine(ctx context.Context, cfg config.Config, environ []string, st *store.Store, log *slog.Logger) (*consolidate.Engine, error) {
	e := &consolidate.Engine{
		Store:        st,
		Consolidator: consolidate.Offline{},
		Location:     cfg.Location(),
		ChunkTokens:  cfg.Consolidate.ChunkTokens,
		LeaseTTL:     time.Duration(cfg.Consolidate.LeaseTTL),
		Logger:       log,
		Retention:    consolidate.Retention{RawDays: cfg.Retention.RawDays, Location: cfg.Location()},
	}
	if cfg.LLM.Provider == "offline" {
		return e, nil
	}
	lc := LLMConfig(cfg, environ, log)
	if lc.Budget != nil { // one budget per night across processes
		lc.Budget.Elsewhere = e.SpentElsewhere
	}
	client, err := llm.New(ctx, lc)
	if err != nil {
		return nil, err
	}
	c := consolidate.LLM{Client: client, Location: e.Location}
	e.Consolidator = c
	e.ChunkTokens = min(e.ChunkTokens, c.ChunkTokens())
	return e, nil
}

// HealthMonitor maps the configuration onto the health monitor of the data
// directory and the store's agents.
func HealthMonitor(cfg config.Config, st *store.Store, log *slog.Logger) *health.Monitor {
	h := cfg.Health
	return &health.Monitor{
		Collector: &health.Host{DataDir: cfg.DataDir, Store: st, Location: cfg.Location()},
		Thresholds: health.Thresholds{
			DiskPercent:          h.DiskPercent,
			Backlog:              int64(h.Backlog),
			ConsolidationOverdue: time.Duration(h.ConsolidationOverdue),
			TemperatureC:         h.TemperatureC,
		},
		TTL:    5 * time.Second,
		Logger: log,
	}
}

// WebPage builds the memory-bank page over the same store, recall engine,
// consolidation engine and health monitor as the API.
// Its upload form runs files through files, the ingester behind
// POST /v1/agents/{agent}/files (nil hides the form). Its sign-in takes the
// API's tokens (keys).
func WebPage(cfg config.Config, st *store.Store, eng *recall.Engine, cons server.Consolidator, mon server.Reporter, files *watch.Ingester, keys *auth.Keyring, log *slog.Logger) (http.Handler, error) {
	o := web.Options{Store: st, Recall: eng, AutoCreate: cfg.API.AutoCreate, Agents: cfg.API.Agents,
		Location: cfg.Location(), Logger: log, MaxUploadBytes: cfg.API.MaxUploadBytes, Keyring: keys,
		SessionIdle: time.Duration(cfg.API.SessionIdle), TrustedProxies: trustedProxies(cfg.API.TrustedProxies)}
	if files != nil {
		o.Files = files
	}
	if cons != nil {
		o.Consolidate = cons
	}
	if mon != nil {
		o.Health = mon
	}
	return web.New(o)
}

// trustedProxies parses api.trusted_proxies (Validate has checked each is an
// IP or a CIDR prefix): an IP is a prefix of its full length.
func trustedProxies(addrs []string) []netip.Prefix {
	var out []netip.Prefix
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a); err == nil {
			out = append(out, p.Masked())
		} else if ip, err := netip.ParseAddr(a); err == nil {
			out = append(out, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
		}
	}
	return out
}

// Keyring builds the tokens of auth.tokens; none is an empty keyring.
func Keyring(cfg config.Config) (*auth.Keyring, error) {
	rules := make([]auth.Rule, len(cfg.Auth.Tokens))
	for i, t := range cfg.Auth.Tokens {
		rules[i] = auth.Rule{Name: t.Name, SHA256: t.SHA256, Agents: t.Agents, Write: t.Access == "write"}
	}
	k, err := auth.New(rules)
	if err != nil {
		return nil, fmt.Errorf("auth.tokens: %w", err)
	}
	return k, nil
}

// LLMConfig maps the configuration onto the LLM client's.
func LLMConfig(cfg config.Config, environ []string, log *slog.Logger) llm.Config {
	l := cfg.LLM
	var budget *llm.Budget
	if l.Budget.MaxCalls > 0 || l.Budget.MaxTokens > 0 {
		budget = &llm.Budget{MaxCalls: l.Budget.MaxCalls, MaxTokens: l.Budget.MaxTokens, Location: cfg.Location()}
	}
	return llm.Config{
		Provider:      l.Provider,
		Model:         l.Model,
		BaseURL:       l.BaseURL,
		Timeout:       time.Duration(l.Timeout),
		MaxTokens:     l.MaxTokens,
		Temperature:   l.Temperature,
		ContextWindow: l.ContextWindow,
		MaxRetries:    l.MaxRetries,
		Budget:        budget,
		Environ:       environ,
		Logger:        log,
	}
}

// Run serves until ctx is cancelled, then drains: the listener stops, in-flight
// requests (and so their writes) finish, every WAL is checkpointed and the
// files are closed. It notifies systemd (when NOTIFY_SOCKET is set) with
// READY=1 once the store is open and the listener bound, and STOPPING=1 when
// the drain starts.
// API keys for the LLM are looked up in environ.
func Run(ctx context.Context, cfg config.Config, environ []string, log *slog.Logger) error {
	return RunWithReload(ctx, cfg, environ, log, Reload{})
}

// RunWithReload is Run that also reloads the configuration on each of
// reload's hangups (see Reload).
func RunWithReload(ctx context.Context, cfg config.Config, environ []string, log *slog.Logger, reload Reload) error {
	st, err := store.Open(ctx, StoreOptions(cfg, log))
	if err != nil {
		return err
	}
	agents, err := openAgents(ctx, st, log)
	if err != nil {
		_ = st.Close()
		return err
	}

	keys, err := Keyring(cfg)
	if err != nil {
		_ = st.Close()
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		_ = st.Close()
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !keys.Enabled() && !cfg.Auth.AllowOpen {
		_ = ln.Close()
		_ = st.Close()
		return fmt.Errorf("listen on %s: beyond loopback every request needs a token, and auth.tokens is empty: "+
			"add one (dormouse token new prints it), listen on 127.0.0.1, or set auth.allow_open: true "+
			"if everyone who can reach this address may read and write every agent's memories", cfg.Listen)
	}
	// Background work (catch-up, early rebuilds) runs under bg, which the
	// drain cancels: a cancelled consolidation's transaction never commits.
	bg, stopBG := context.WithCancel(ctx)
	defer stopBG()
	opts := APIOptions(cfg, log)
	opts.Keyring = keys
	mon := HealthMonitorFor(cfg, environ, st, log)
	opts.Health = mon
	cons, err := ConsolidationEngine(ctx, cfg, environ, st, log)
	var backlog *consolidate.Backlog
	if err != nil {
		log.Warn("consolidation disabled", "err", err)
	} else {
		opts.Consolidate = cons
		backlog = &consolidate.Backlog{Engine: cons, Threshold: cfg.Consolidate.BacklogThreshold,
			Debounce: time.Duration(cfg.Consolidate.BacklogDebounce)}
		backlog.Start(bg)
		opts.OnWrite = backlog.Notify
	}
	embedder, err := EmbedWorker(cfg, environ, st, log)
	if err != nil {
		log.Warn("semantic recall disabled", "err", err)
	} else if embedder != nil {
		embedder.Every = embedEvery
		onWrite := opts.OnWrite
		opts.OnWrite = func(agent string) {
			if onWrite != nil {
				onWrite(agent)
			}
			embedder.Notify(agent)
		}
		if h, ok := mon.Collector.(*health.Host); ok {
			h.Embeddings = embedder
		}
		embedder.Start(bg)
	}
	watchers := Watchers(cfg, st, log)
	watchers.Ingester().OnWrite = opts.OnWrite
	if err := DescribeImages(ctx, cfg, environ, watchers.Ingester(), log); err != nil {
		log.Warn("images fail until the vision model can be set up", "err", err)
	}
	opts.Files, opts.Watch = watchers.Ingester(), watchers
	rebuilder := &DayRebuilder{Engine: cons, Store: st, Logger: log} // days that cited changed files
	if cons != nil {
		watchers.Ingester().OnRetire = rebuilder.Notify
	}
	if opts.Answer, err = Answerer(ctx, cfg, environ, log); err != nil {
		log.Warn("answers are extractive: the LLM is unavailable", "err", err)
	}
	eng := RecallEngine(cfg)
	SemanticRecall(cfg, eng, embedder)
	eng.Logger = log
	if opts.Web, err = WebPage(cfg, st, eng, opts.Consolidate, opts.Health, watchers.Ingester(), keys, log); err != nil {
		stopBG()
		if backlog != nil {
			backlog.Wait()
		}
		if embedder != nil {
			embedder.Wait()
		}
		_ = ln.Close()
		_ = st.Close()
		return fmt.Errorf("build the web page: %w", err)
	}
	api := server.New(st, eng, opts)
	api.Handle("/mcp", api.RequireAll(MCPHandler(api, log)))
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
	go reloader{Reload: reload, keys: keys, log: log}.run(bg, cfg)
	go Watchdog(bg, log, Liveness(ln.Addr(), st)) // pings only while /healthz and the store answer
	go Summarize(bg, opts.Health, ln.Addr().String(), SummaryEvery, log, func(s string) { notify(log, s) })
	// After READY: the first scan of a big vault never delays start-up.
	watchers.Start(bg)
	if cons != nil {
		rebuilder.Start(bg, agents)
	}
	log.Info("listening", "addr", ln.Addr().String(), "data", cfg.DataDir, "agents", len(agents),
		"provider", cfg.LLM.Provider)
	catchUp := make(chan struct{})
	if cons != nil && cfg.Consolidate.CatchUp {
		go func() { // after READY: catch-up never delays start-up
			defer close(catchUp)
			cons.CatchUp(bg)
		}()
	} else {
		close(catchUp)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !keys.Enabled() {
		log.Warn("listening beyond loopback without tokens (auth.allow_open): anyone who can reach this address can read and write every agent's memories",
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
	stopBG()
	shutErr := srv.Shutdown(dctx)
	<-catchUp
	watchers.Wait()
	rebuilder.Wait()
	if backlog != nil {
		backlog.Wait()
	}
	if embedder != nil {
		embedder.Wait()
	}
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

// openAgents opens every existing agent once, so migrations run (and a
// broken file shows) at start-up rather than on a first request. A corrupt
// file does not stop the others: its agent stays unavailable (503, and
// /health failing) until it is restored. Nor does a full disk: agents open
// read-only then (store.Store.Acquire).
func openAgents(ctx context.Context, st *store.Store, log *slog.Logger) ([]string, error) {
	agents, err := st.Agents()
	if err != nil {
		return nil, err
	}
	for _, name := range agents {
		err := st.With(ctx, name, false, func(*store.Agent) error { return nil })
		switch {
		case errors.Is(err, store.ErrUnavailable): // logged by the store
		case errors.Is(err, store.ErrFull): // an empty file left by a create the disk refused
			log.Warn("agent cannot be opened until the disk has space", "agent", name, "err", err)
		case err != nil:
			return nil, fmt.Errorf("open agent %q at start-up: %w", name, err)
		}
	}
	return agents, nil
}

func notify(log *slog.Logger, state string) {
	if _, err := sd.SdNotify(false, state); err != nil {
		log.Warn("sd_notify", "state", state, "err", err)
	}
}
