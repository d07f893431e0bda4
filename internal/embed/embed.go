// Package embed keeps every memory's embedding up to date in the background,
// for the optional semantic arm of recall: capture never waits for a model.
package embed

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/dormouse-dev/dormouse/internal/backoff"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Embedder is what the worker needs of a model: *llm.Embedder provides it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error)
	Model() string
}

// Defaults of Worker's zero fields.
const (
	DefaultBatch      = 32
	DefaultEvery      = 5 * time.Second
	DefaultMaxBackoff = 5 * time.Minute
	// fullEvery is how often every agent is looked at, not only those
	// written to: opening each agent every few seconds would keep every
	// file open.
	fullEvery = 10 * time.Minute
	// QueryTimeout bounds embedding a question: recall goes on without the
	// semantic arm rather than wait longer.
	QueryTimeout = 2 * time.Second
	// maxTextBytes is how much of a memory is embedded: embedding models read
	// a few thousand tokens at most, and the start says what it is about.
	maxTextBytes = 8 << 10
)

// Worker embeds the memories that lack a vector of its model, in batches:
// every Every, and at once after a write (Notify). A provider that fails is
// tried again after a wait that doubles up to MaxBackoff; memories wait
// meanwhile, nothing is lost and capture never waits.
type Worker struct {
	Store      *store.Store
	Embedder   Embedder
	Batch      int           // memories per request; 0: DefaultBatch
	Every      time.Duration // 0: DefaultEvery
	MaxBackoff time.Duration // 0: DefaultMaxBackoff
	Logger     *slog.Logger

	nudge chan struct{}
	wg    sync.WaitGroup

	mu    sync.Mutex
	dirty map[string]bool // agents written to since their last pass
	// refused are the memories the model refused alone (too long for it,
	// say), per agent: skipped until restart rather than block the rest.
	refused   map[string]map[int64]bool
	backlog   map[string]int64
	lastErr   string
	lastOK    time.Time
	failures  int
	startOnce sync.Once
}

func (w *Worker) init() {
	w.startOnce.Do(func() {
		w.nudge = make(chan struct{}, 1)
		w.backlog = map[string]int64{}
		w.dirty = map[string]bool{}
		w.refused = map[string]map[int64]bool{}
		if w.Batch <= 0 {
			w.Batch = DefaultBatch
		}
		if w.Every <= 0 {
			w.Every = DefaultEvery
		}
		if w.MaxBackoff <= 0 {
			w.MaxBackoff = DefaultMaxBackoff
		}
		if w.Logger == nil {
			w.Logger = slog.New(slog.DiscardHandler)
		}
	})
}

// Start runs the worker until ctx ends; Wait then returns once it stopped.
func (w *Worker) Start(ctx context.Context) {
	w.init()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.run(ctx)
	}()
}

// Wait returns once the worker started by Start has stopped.
func (w *Worker) Wait() { w.wg.Wait() }

// Notify tells the worker an agent stored new memories (server.Options.OnWrite).
// It never blocks.
func (w *Worker) Notify(agent string) {
	w.init()
	w.mu.Lock()
	w.dirty[agent] = true
	w.mu.Unlock()
	select {
	case w.nudge <- struct{}{}:
	default:
	}
}

func (w *Worker) run(ctx context.Context) {
	wait := time.Duration(0) // the first pass at once, over every agent
	var lastFull time.Time
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-w.nudge:
			t.Stop()
			if w.failing() {
				// A nudge does not cut a back-off short: the provider is down.
				continue
			}
		}
		var err error
		if w.failing() || time.Since(lastFull) >= fullEvery {
			lastFull = time.Now()
			err = w.Pass(ctx)
		} else {
			err = w.pass(ctx, w.takeDirty())
		}
		wait = w.Every
		if err != nil && ctx.Err() == nil {
			wait = w.backoff()
			w.Logger.Warn("embedding memories failed; trying again later", "err", err, "retry_in", wait.Round(time.Second))
		}
	}
}

func (w *Worker) failing() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failures > 0
}

func (w *Worker) backoff() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return backoff.Exp(w.Every, w.MaxBackoff, w.failures)
}

// takeDirty returns the agents written to since the last pass, and forgets them.
func (w *Worker) takeDirty() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for a := range w.dirty {
		out = append(out, a)
	}
	clear(w.dirty)
	return out
}

// Pass embeds every agent's waiting memories, batch by batch, and updates
// the backlog; it stops at the first failure of the provider, which it
// returns.
func (w *Worker) Pass(ctx context.Context) error {
	w.init()
	agents, err := w.Store.Agents()
	if err != nil {
		return err
	}
	w.takeDirty() // every agent is looked at
	return w.pass(ctx, agents)
}

func (w *Worker) pass(ctx context.Context, agents []string) error {
	var errs []error
	for _, name := range agents {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err := w.agent(ctx, name)
		if err == nil || errors.Is(err, store.ErrNotFound) { // deleted meanwhile
			continue
		}
		if errors.Is(err, llm.ErrUnavailable) || errors.Is(err, llm.ErrRefused) || errors.Is(err, llm.ErrBadEmbedding) {
			w.fail(err)
			return err // the provider: the next agent would fail the same
		}
		errs = append(errs, err) // this agent's file: the others go on
	}
	if err := errors.Join(errs...); err != nil {
		w.fail(err)
		return err
	}
	w.mu.Lock()
	w.failures, w.lastErr = 0, ""
	w.mu.Unlock()
	return nil
}

func (w *Worker) fail(err error) {
	w.mu.Lock()
	w.failures++
	w.lastErr = err.Error()
	w.mu.Unlock()
}

// agent embeds one agent's waiting memories. The agent is held only to read
// and to write, never during a call to the model.
func (w *Worker) agent(ctx context.Context, name string) error {
	model := w.Embedder.Model()
	defer w.count(ctx, name, model)
	for ctx.Err() == nil {
		var todo []store.ToEmbed
		w.mu.Lock()
		skip := w.refused[name]
		w.mu.Unlock()
		err := w.Store.With(ctx, name, false, func(a *store.Agent) error {
			all, err := a.Unembedded(ctx, model, w.Batch+len(skip))
			for _, m := range all {
				if !skip[m.ID] && len(todo) < w.Batch {
					todo = append(todo, m)
				}
			}
			return err
		})
		if err != nil || len(todo) == 0 {
			return err
		}
		texts := make([]string, len(todo))
		for i, m := range todo {
			texts[i] = text.Clip(m.Text, maxTextBytes)
		}
		vecs, _, err := w.Embedder.Embed(ctx, texts)
		if errors.Is(err, llm.ErrRefused) || errors.Is(err, llm.ErrBadEmbedding) {
			// One memory may be what the model refuses: one at a time, and
			// the one refused alone is skipped.
			todo, vecs, err = w.oneByOne(ctx, name, todo, texts)
		}
		if err != nil {
			return err
		}
		if len(todo) == 0 {
			continue
		}
		put := make([]store.MemoryVector, len(todo))
		for i, m := range todo {
			put[i] = store.MemoryVector{ID: m.ID, Vec: vecs[i]}
		}
		err = w.Store.With(ctx, name, false, func(a *store.Agent) error {
			return a.PutEmbeddings(ctx, model, put)
		})
		if err != nil {
			return err
		}
		w.mu.Lock()
		w.lastOK = time.Now()
		w.mu.Unlock()
		w.Logger.Debug("embedded memories", "agent", name, "memories", len(put))
	}
	return ctx.Err()
}

// oneByOne embeds texts one at a time after the batch was refused; it
// returns the memories embedded and their vectors. Those refused alone are
// marked to be skipped, but only when another was embedded (the model
// works): when none was, the refusal is returned. Any other failure (the
// provider down) is returned.
func (w *Worker) oneByOne(ctx context.Context, name string, todo []store.ToEmbed, texts []string) ([]store.ToEmbed, [][]float32, error) {
	var done []store.ToEmbed
	var vecs [][]float32
	var refused []int64
	var last error
	for i, m := range todo {
		v, _, err := w.Embedder.Embed(ctx, texts[i:i+1])
		switch {
		case errors.Is(err, llm.ErrRefused) || errors.Is(err, llm.ErrBadEmbedding):
			refused = append(refused, m.ID)
			last = err
		case err != nil:
			return nil, nil, err
		default:
			done = append(done, m)
			vecs = append(vecs, v[0])
		}
	}
	if len(done) == 0 {
		// Nothing embedded: the model or the request may be wrong, not a memory.
		return nil, nil, last
	}
	w.mu.Lock()
	for _, id := range refused {
		if w.refused[name] == nil {
			w.refused[name] = map[int64]bool{}
		}
		w.refused[name][id] = true
		w.Logger.Warn("the model refused a memory; it is not embedded", "agent", name, "memory", id, "err", last)
	}
	w.mu.Unlock()
	return done, vecs, nil
}

func (w *Worker) count(ctx context.Context, name, model string) {
	var n int
	err := w.Store.With(ctx, name, false, func(a *store.Agent) error {
		var err error
		n, err = a.UnembeddedCount(ctx, model)
		return err
	})
	if err != nil {
		return
	}
	w.mu.Lock()
	w.backlog[name] = int64(n)
	w.mu.Unlock()
}

// Status is the worker's state for GET /health.
func (w *Worker) Status() health.Embeddings {
	w.init()
	w.mu.Lock()
	defer w.mu.Unlock()
	s := health.Embeddings{Model: w.Embedder.Model(), Error: w.lastErr}
	for _, n := range w.backlog {
		s.Backlog += n
	}
	if !w.lastOK.IsZero() {
		t := w.lastOK.UTC()
		s.LastSuccess = &t
	}
	return s
}

// Query embeds questions for recall with the worker's model (it implements
// recall.QueryEmbedder), within QueryTimeout.
type Query struct {
	Embedder Embedder
	Timeout  time.Duration // 0: QueryTimeout
}

// Model names the model whose vectors the question's is compared with.
func (q Query) Model() string { return q.Embedder.Model() }

// EmbedQuery returns the question's vector.
func (q Query) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	d := q.Timeout
	if d <= 0 {
		d = QueryTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	vecs, _, err := q.Embedder.Embed(ctx, []string{text.Clip(query, maxTextBytes)})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}
