// Package daemon runs Dormouse as a service: it opens the store, binds the
// listener, tells systemd when it is ready, and drains cleanly on shutdown.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/extract"
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
		ConnIdleClose:  time.Duration(cfg.Storage.ConnIdleClose),
		MaxOpenAgents:  cfg.Storage.MaxOpenAgents,
		GroupCommitMax: cfg.Storage.GroupCommitMax,
		DedupWindow:    time.Duration(cfg.Capture.DedupWindow),
		ExplicitCreate: cfg.Agents.Create == config.CreateExplicit,
		// Litestream owns the checkpoints when it replicates (internal/replicate).
		LeaveCheckpoints: cfg.Replication.URL != "",
		Location:         cfg.Location(),
		Logger:           log,
		Kinds:            kinds.Of,
		KindsVersion:     kinds.Version(),
		// What recall pins (the most important memories) enters the
		// profile at once; the rest waits for the night.
		ProfileAtCapture:  captureProfile,
		ProfileImportance: recall.DefaultTuning.PinImportance,

		GroupCommitWindow:  time.Duration(cfg.Storage.GroupCommitWindow),
		SpareConnIdleClose: time.Duration(cfg.Storage.SpareConnIdleClose),
	}
}

// captureProfile is the profile builder run on memories as they are stored:
// the day's facts are not made yet.
func captureProfile(mems []store.Memory) []store.ProfileLine {
	return extract.ProfileLines(mems, nil)
}

// RecallEngine maps the configuration onto the recall engine.
func RecallEngine(cfg config.Config) *recall.Engine {
	e := &recall.Engine{
		MaxCandidates:   cfg.Recall.MaxCandidates,
		RecencyHalfLife: time.Duration(cfg.Recall.RecencyHalfLife),
		DefaultBudget:   cfg.Recall.BudgetTokens,
		DefaultK:        cfg.Recall.K,
		Tuning:          recall.TuningWith(cfg.Recall.MinCoverage),
		Explain:         cfg.Recall.Explain,
		CountUse:        true,
		Claims:          statedClaims,
	}
	e.Tuning.ProfileTokens = cfg.Recall.ProfileTokens
	return e
}

// statedClaims gives recall the one-valued claims a memory states, keyed
// as the consolidation keys facts.
func statedClaims(content, role string) []claim.Claim {
	var out []claim.Claim
	for _, f := range extract.StatedValues(content, role) {
		out = append(out, claim.Claim{Subject: f.Entity, Key: f.Attribute, Value: f.Value})
	}
	return out
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
// directory, the store's agents and the LLM provider's reachability (API
// keys looked up in environ).
func HealthMonitor(cfg config.Config, environ []string, st *store.Store, log *slog.Logger) *health.Monitor {
	h := cfg.Health
	return &health.Monitor{
		Collector: &health.Host{DataDir: cfg.DataDir, Store: st, Location: cfg.Location(),
			Provider: ProviderProbe(cfg, environ, log)},
		Thresholds: health.Thresholds{
			DiskPercent:          h.DiskPercent,
			Backlog:              int64(h.Backlog),
			ConsolidationOverdue: time.Duration(h.ConsolidationOverdue),
			TemperatureC:         h.TemperatureC,
			ReplicaLagWarn:       time.Duration(h.ReplicaLagWarn),
		},
		TTL:    5 * time.Second,
		Logger: log,
	}
}

// WebPage builds the memory-bank page over the same store, recall engine,
// and the API's consolidation engine, health monitor, answerer, write
// trigger and capture limits (api).
// Its upload form runs files through files, the ingester behind
// POST /v1/agents/{agent}/files (nil hides the form). Its sign-in takes the
// API's tokens (keys).
func WebPage(cfg config.Config, st *store.Store, eng *recall.Engine, api server.Options, files *watch.Ingester, keys *auth.Keyring, log *slog.Logger) (http.Handler, error) {
	o := web.Options{Store: st, Recall: eng, Reads: api.Reads, AutoCreate: cfg.API.AutoCreate, Agents: cfg.API.Agents, Backups: backupOptions(cfg, log),
		Location: cfg.Location(), Logger: log, MaxUploadBytes: cfg.API.MaxUploadBytes, Keyring: keys,
		SessionIdle: time.Duration(cfg.API.SessionIdle), TrustedProxies: trustedProxies(cfg.API.TrustedProxies),
		Answer: api.Answer, OnWrite: api.OnWrite,
		Capture: capture.Limits{MaxContent: api.MaxContentBytes, MaxFutureSkew: api.MaxFutureSkew}}
	if files != nil {
		o.Files = files
	}
	if api.Consolidate != nil {
		o.Consolidate = api.Consolidate
	}
	if api.Health != nil {
		o.Health = api.Health
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
