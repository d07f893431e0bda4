package consolidate

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// CatchUp consolidates every past day of every agent that still has
// unconsolidated memories: what the daemon does at start-up, after a night
// the box was off. Errors are logged, not returned; a busy agent is left to
// whoever holds it. It runs at background priority (inBackground), beside
// the capture it must not stall.
func (e *Engine) CatchUp(ctx context.Context) {
	if _, err := e.Today(); err != nil {
		e.log().Error("catch-up consolidation skipped", "err", err)
		return
	}
	agents, err := e.Store.Agents()
	if err != nil {
		e.log().Error("catch-up consolidation: list agents", "err", err)
		return
	}
	inBackground(e.log(), func() { e.catchUp(ctx, agents) })
}

func (e *Engine) catchUp(ctx context.Context, agents []string) {
	for _, a := range agents {
		if ctx.Err() != nil {
			return
		}
		runs, err := e.catchUpAgent(ctx, a)
		if err == nil {
			_, err = e.tidy(ctx, a)
		}
		switch {
		case err == nil && len(runs) > 0:
			e.log().Info("caught up", "agent", a, "days", len(runs))
		case errors.Is(err, ErrBusy):
			e.log().Info("catch-up skipped: agent busy", "agent", a)
		case err != nil && ctx.Err() == nil:
			e.log().Warn("catch-up consolidation", "agent", a, "err", err)
		}
	}
}

// catchUpAgent consolidates agent's past days, as RunAll does, resting
// after each day as long as its CPU took (pace), and giving way to capture
// before each day and after the last, before the retention
// (giveWayToCapture).
func (e *Engine) catchUpAgent(ctx context.Context, agent string) ([]store.Run, error) {
	plan, err := e.pending(ctx, agent, "", false)
	if err != nil || len(plan) == 0 {
		return nil, err
	}
	e.giveWayToCapture(ctx)
	return e.runDays(ctx, agent, plan, func(ctx context.Context, cpu time.Duration) {
		pace(ctx, cpu)
		e.giveWayToCapture(ctx)
	})
}

// pace waits for cpu, or until ctx ends. Background work rests as long as
// it ran, so it takes at most half a core: on 2 cores, consolidating day
// after day without a rest raised capture's single-write p95 from 1 to
// 4.5-5 ms, since a write then often met a day's commit or the garbage
// its extraction left; resting halved that (2.7-2.9 ms), for a catch-up
// still shorter than before the extractors' word checks. The time is the
// thread's CPU, not the wall clock, so a day spent waiting for an LLM
// costs no rest.
func pace(ctx context.Context, cpu time.Duration) {
	if cpu <= 0 {
		return
	}
	t := time.NewTimer(cpu)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Backlog rebuilds today's record of an agent early, once it has Threshold
// unconsolidated memories from today. Writes are reported with Notify; the
// check runs Debounce after the first of a burst, so a burst of writes
// costs one check.
type Backlog struct {
	Engine    *Engine
	Threshold int // <= 0: never
	Debounce  time.Duration

	mu      sync.Mutex
	ctx     context.Context
	pending map[string]bool
	wg      sync.WaitGroup
}

// Start arms the trigger until ctx ends; Wait then returns once running
// checks and consolidations have stopped.
func (b *Backlog) Start(ctx context.Context) {
	b.mu.Lock()
	b.ctx = ctx
	b.pending = map[string]bool{}
	b.mu.Unlock()
}

// Wait waits for the checks and consolidations started so far.
func (b *Backlog) Wait() { b.wg.Wait() }

// Notify reports that agent stored new memories.
func (b *Backlog) Notify(agent string) {
	if b.Threshold <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx == nil || b.ctx.Err() != nil || b.pending[agent] {
		return
	}
	b.pending[agent] = true
	ctx := b.ctx
	b.wg.Go(func() {
		t := time.NewTimer(b.Debounce)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b.mu.Lock()
		delete(b.pending, agent)
		b.mu.Unlock()
		b.check(ctx, agent)
	})
}

func (b *Backlog) check(ctx context.Context, agent string) {
	log := b.Engine.log().With("agent", agent)
	today, err := b.Engine.Today()
	if err != nil {
		log.Warn("backlog check skipped", "err", err)
		return
	}
	backlog := 0
	err = b.Engine.Store.With(ctx, agent, false, func(a *store.Agent) error {
		days, err := a.UnconsolidatedDays(ctx, "")
		for _, d := range days {
			if d.Day == today {
				backlog = d.Unconsolidated
			}
		}
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("backlog check", "err", err)
		}
		return
	}
	if backlog < b.Threshold {
		return
	}
	log.Info("backlog over threshold: rebuilding today's record", "backlog", backlog, "threshold", b.Threshold)
	b.Engine.giveWayToCapture(ctx)
	inBackground(log, func() {
		if _, err := b.Engine.Run(ctx, agent, today); err != nil && !errors.Is(err, ErrBusy) && ctx.Err() == nil {
			log.Warn("early consolidation", "err", err)
		}
	})
}
