package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/embed"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/replicate"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// Services are the parts one configuration builds over a data directory.
// serve and every command that works on the agent files directly (the --data
// commands, mcp --data, watch, health, ask, eval) open them here, so each
// recalls with the same arms and answers with the same model: copies of this
// wiring drifted before (mcp --data answered extractively with a model
// configured, and nothing but the daemon's /recall used stored vectors).
type Services struct {
	Config config.Config
	Logger *slog.Logger
	Store  *store.Store
	// Recall has the semantic arm when recall.embeddings is on and its
	// embedder could be set up.
	Recall *recall.Engine
	// Answer answers over Recall with the configured model, or
	// extractively with the offline provider or when AnswerErr says why not.
	Answer *answer.Answerer
	// Consolidate is nil when it cannot be set up; ConsolidateErr says why.
	Consolidate *consolidate.Engine
	// Health reports on the data directory, the agents, the provider's
	// reachability and the embedder.
	Health *health.Monitor
	// Embedder fills in the semantic arm's vectors (once started); nil when
	// the arm is off or EmbedErr.
	Embedder *embed.Worker
	// Watchers are the watched folders (once started). Their Ingester is the
	// file pipeline of uploads and `ingest --file` too, with the vision
	// model unless VisionErr.
	Watchers *watch.Manager
	// Rebuilder re-runs the days that cited changed files (once started);
	// nil without Consolidate.
	Rebuilder *DayRebuilder
	// Replication is the Litestream serve runs when replication.url is
	// set; nil otherwise, and in every other command.
	Replication *replicate.Supervisor

	// Why a part runs degraded; nil when it is set up as configured. Open
	// goes on without them: which matter is the command's to say.
	ConsolidateErr, AnswerErr, EmbedErr, VisionErr error

	mu      sync.Mutex
	closers []func() error
}

// Open builds the services of cfg, API keys looked up in environ. Only the
// store failing to open fails it; Close releases what it opened.
func Open(ctx context.Context, cfg config.Config, environ []string, log *slog.Logger) (*Services, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st, err := store.Open(ctx, StoreOptions(cfg, log))
	if err != nil {
		return nil, err
	}
	s := &Services{Config: cfg, Logger: log, Store: st}
	s.OnClose(st.Close)
	s.Consolidate, s.ConsolidateErr = ConsolidationEngine(ctx, cfg, environ, st, log)
	if s.Consolidate != nil {
		s.Rebuilder = &DayRebuilder{Engine: s.Consolidate, Store: st, Logger: log}
	}
	s.Embedder, s.EmbedErr = EmbedWorker(cfg, environ, st, log)
	s.Recall = RecallEngine(cfg)
	s.Recall.Logger = log
	SemanticRecall(cfg, s.Recall, s.Embedder)
	s.Answer, s.AnswerErr = Answerer(ctx, cfg, environ, s.Recall, log)
	s.Health = HealthMonitor(cfg, environ, st, log)
	if h, ok := s.Health.Collector.(*health.Host); ok && s.Embedder != nil {
		h.Embeddings = s.Embedder
	}
	s.Watchers = Watchers(cfg, st, log)
	s.VisionErr = DescribeImages(ctx, cfg, environ, s.Watchers.Ingester(), log)
	return s, nil
}

// ServerOptions are the API's options over the services: the limits and
// agent rules of the configuration, the answerer, consolidation, health
// monitor and file pipeline. serve adds the tokens, the page and the write
// triggers.
func (s *Services) ServerOptions() server.Options {
	o := APIOptions(s.Config, s.Logger)
	o.Answer, o.Health = s.Answer, s.Health
	if s.Consolidate != nil { // a nil *Engine in the interface would not read as "none"
		o.Consolidate = s.Consolidate
	}
	o.Files, o.Watch = s.Watchers.Ingester(), s.Watchers
	return o
}

// API is the HTTP API over the services, as the daemon serves it without
// tokens, page or write triggers: what mcp --data calls in-process.
func (s *Services) API() *server.Server {
	return server.New(s.Store, s.Recall, s.ServerOptions())
}

// OnClose has Close call f: the last added first, so what was opened on top
// of another part is released before it.
func (s *Services) OnClose(f func() error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closers = append(s.closers, f)
}

// Close releases everything in the reverse order of opening (background
// work stops before the store closes) and returns every error. Later calls
// do nothing.
func (s *Services) Close() error {
	s.mu.Lock()
	closers := s.closers
	s.closers = nil
	s.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	return errors.Join(errs...)
}

// logDegraded warns about each part that runs degraded, as serve starts.
func (s *Services) logDegraded() {
	for _, d := range []struct {
		err  error
		what string
	}{
		{s.ConsolidateErr, "consolidation disabled"},
		{s.EmbedErr, "semantic recall disabled"},
		{s.VisionErr, "images fail until the vision model can be set up"},
		{s.AnswerErr, "answers are extractive: the LLM is unavailable"},
	} {
		if d.err != nil {
			s.Logger.Warn(d.what, "err", d.err)
		}
	}
}
