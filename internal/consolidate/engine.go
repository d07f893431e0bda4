package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dormouse-dev/dormouse/internal/when"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/extract"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Engine consolidates an agent's days: select a day's memories, chunk them
// to the consolidator's context, map, reduce, and commit the record, its
// facts, the marks on its memories and the run row in one transaction.
// Only one consolidation runs per agent at a time, across processes.
type Engine struct {
	Store        *store.Store
	Consolidator Consolidator
	Location     *time.Location   // day boundaries; nil is time.Local
	ChunkTokens  int              // memory tokens per chunk; <= 0 is DefaultChunkTokens
	LeaseTTL     time.Duration    // <= 0 is DefaultLeaseTTL
	Holder       string           // lease holder; "" is host:pid:n
	Now          func() time.Time // nil is time.Now
	Logger       *slog.Logger
	// Retention runs after the nightly consolidation of an agent (Do
	// without a date, and CatchUp); its zero value is off.
	Retention Retention

	holderOnce sync.Once
	holder     string
	// running is the agents this engine consolidates now: the lease is
	// its holder's again for the asking, so it cannot keep this process's
	// own runs apart.
	running sync.Map
}

// Defaults of an Engine's zero fields.
const (
	DefaultChunkTokens = 6000
	DefaultLeaseTTL    = 10 * time.Minute
)

// leaseName is the lease every consolidation of an agent takes.
const leaseName = "consolidate"

// dayAttempts bounds how often Run consolidates a day afresh when one of its
// memories was forgotten meanwhile: a delete is brief, and a day that keeps
// changing is answered ErrDayChanged rather than retried for ever.
const dayAttempts = 3

// memoryOverhead is what a memory costs in a prompt beside its content: its
// id, time and role.
const memoryOverhead = llm.NoteOverhead

var (
	// ErrBusy means another consolidation of the agent holds the lease.
	ErrBusy = errors.New("another consolidation of this agent is running")
	// ErrDayChanged means memories of the day kept being forgotten while
	// it was consolidated, try after try: nothing was committed.
	ErrDayChanged = errors.New("the day's memories changed during the consolidation")
)

var holders atomic.Int64

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Engine) loc() *time.Location {
	if e.Location == nil {
		return time.Local
	}
	return e.Location
}

func (e *Engine) log() *slog.Logger {
	if e.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Logger
}

func (e *Engine) ttl() time.Duration {
	if e.LeaseTTL <= 0 {
		return DefaultLeaseTTL
	}
	return e.LeaseTTL
}

func (e *Engine) lessee() string {
	e.holderOnce.Do(func() {
		e.holder = e.Holder
		if e.holder == "" {
			// The time tells apart two processes that had the same pid the
			// same night: runs are counted by holder (SpentElsewhere).
			e.holder = holderName(holders.Add(1), time.Now().UnixMilli())
		}
	})
	return e.holder
}

// checkClock refuses to consolidate on a clock before when.EarliestPlausible.
func checkClock(now time.Time) error {
	if err := when.CheckClock(now); err != nil {
		return fmt.Errorf("not consolidating until the clock is set: %w", err)
	}
	return nil
}

// Today is the current local day, once the clock is plausible.
func (e *Engine) Today() (string, error) {
	now := e.now()
	if err := checkClock(now); err != nil {
		return "", err
	}
	return now.In(e.loc()).Format(time.DateOnly), nil
}

// Chunks splits a day's memories, in order, into chunks of at most budget
// estimated tokens each; a memory larger than budget is a chunk of its own.
func Chunks(mems []store.Memory, budget int) [][]store.Memory {
	if budget <= 0 {
		budget = DefaultChunkTokens
	}
	var out [][]store.Memory
	start, used := 0, 0
	for i := range mems {
		cost := text.EstimateTokens(mems[i].Content) + memoryOverhead
		if i > start && used+cost > budget {
			out = append(out, mems[start:i])
			start, used = i, 0
		}
		used += cost
	}
	if start < len(mems) {
		out = append(out, mems[start:])
	}
	return out
}

// Run consolidates one day of one agent. Any failure commits nothing but a
// failed run row (none when ctx was cancelled: shutting down is not a
// failure); the memories stay unconsolidated. A day without memories is an
// ok run that writes nothing.
func (e *Engine) Run(ctx context.Context, agent, day string) (store.Run, error) {
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return store.Run{}, fmt.Errorf("consolidate agent %q: day %q is not a date such as 2026-02-01", agent, day)
	}
	now := e.now()
	if err := checkClock(now); err != nil {
		return store.Run{}, err
	}
	a, err := e.Store.Acquire(ctx, agent, false)
	if err != nil {
		return store.Run{}, fmt.Errorf("consolidate %s of agent %q: %w", day, agent, err)
	}
	defer e.Store.Release(a)
	if _, busy := e.running.LoadOrStore(agent, struct{}{}); busy {
		return store.Run{}, fmt.Errorf("consolidate %s of agent %q: %w", day, agent, ErrBusy)
	}
	defer e.running.Delete(agent)
	holder := e.lessee()
	got, err := a.AcquireLease(ctx, leaseName, holder, now, e.ttl())
	if err != nil {
		return store.Run{}, fmt.Errorf("consolidate %s of agent %q: %w", day, agent, err)
	}
	if !got {
		got, err = e.takeOverDead(ctx, a, holder, now)
	}
	if err != nil {
		return store.Run{}, fmt.Errorf("consolidate %s of agent %q: %w", day, agent, err)
	}
	if !got {
		return store.Run{}, fmt.Errorf("consolidate %s of agent %q: %w", day, agent, ErrBusy)
	}
	defer func() {
		if err := a.ReleaseLease(context.WithoutCancel(ctx), leaseName, holder); err != nil {
			e.log().Warn("release consolidation lease", "agent", agent, "err", err)
		}
	}()

	// Keep the lease while the work lasts (a model call may be slow); if it
	// is lost anyway, stop: the commit would be refused.
	work, stop := context.WithCancelCause(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		e.keepLease(work, a, holder, stop)
	}()
	defer func() { stop(nil); <-renewed }()

	run := store.Run{Day: day, StartedAt: now, Provider: e.Consolidator.Provider(), Model: e.Consolidator.Model(), Holder: holder}
	start := time.Now()
	committed, err := e.consolidateDay(work, a, &run, holder)
	if cause := context.Cause(work); err != nil && errors.Is(cause, store.ErrLeaseLost) {
		err = cause
	}
	run.FinishedAt = e.now()
	run.DurationMS = time.Since(start).Milliseconds()
	log := e.log().With("agent", agent, "day", day)
	if err != nil {
		run.Status, run.Error = store.RunFailed, err.Error()
		if errors.Is(err, llm.ErrBudget) {
			run.Status = store.RunPartial
		}
		if ctx.Err() == nil {
			if rec, rerr := a.RecordRun(ctx, run); rerr != nil {
				log.Error("record "+run.Status+" consolidation", "err", rerr)
			} else {
				run = rec
			}
		}
		log = log.With("run_id", run.ID) // 0 when it could not be recorded
		if run.Status == store.RunPartial {
			log.Warn("LLM budget spent: stopping; this day and the rest stay unconsolidated until the next night", "err", err)
		} else {
			log.Warn("consolidation failed; its memories stay unconsolidated", "err", err)
		}
		return run, fmt.Errorf("consolidate %s of agent %q: %w", day, agent, err)
	}
	if committed != nil {
		run = committed.Run
	}
	log.Info("consolidated", "run_id", run.ID, "memories", run.Memories, "facts", run.Facts, "calls", run.Calls,
		"tokens_in", run.TokensIn, "tokens_out", run.TokensOut, "took_ms", run.DurationMS)
	return run, nil
}

// takeOverDead takes the lease from a holder on this host whose process is
// gone (killed mid-run), so the agent is not blocked until its TTL. A live
// holder, or one of another host, keeps it.
func (e *Engine) takeOverDead(ctx context.Context, a *store.Agent, holder string, now time.Time) (bool, error) {
	leases, err := a.Leases(ctx)
	if err != nil {
		return false, err
	}
	for _, l := range leases {
		if l.Name != leaseName || !deadHolder(l.Holder) {
			continue
		}
		got, err := a.TakeOverLease(ctx, leaseName, l.Holder, holder, now, e.ttl())
		if got {
			e.log().Warn("took over the consolidation lease of a process that is gone", "holder", l.Holder)
		}
		return got, err
	}
	return false, nil
}

// keepLease renews holder's lease every third of its TTL until ctx ends,
// and cancels the work when the lease is lost.
func (e *Engine) keepLease(ctx context.Context, a *store.Agent, holder string, stop context.CancelCauseFunc) {
	t := time.NewTicker(e.ttl() / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := a.RenewLease(ctx, leaseName, holder, e.now(), e.ttl()); err != nil {
			if ctx.Err() == nil {
				stop(err)
			}
			return
		}
	}
}

// consolidateDay consolidates the day afresh, up to dayAttempts times, while
// the commit finds a memory it read forgotten.
func (e *Engine) consolidateDay(ctx context.Context, a *store.Agent, run *store.Run, holder string) (*store.Committed, error) {
	for attempt := 1; ; attempt++ {
		c, err := e.consolidate(ctx, a, run, holder)
		if !errors.Is(err, store.ErrSourceGone) {
			return c, err
		}
		if attempt == dayAttempts {
			return nil, fmt.Errorf("%w, %d times: %w", ErrDayChanged, attempt, err)
		}
		e.log().Debug("a memory of the day was forgotten during its consolidation: again", "day", run.Day, "attempt", attempt, "err", err)
	}
}

// consolidate does the work of Run under the lease; nil, nil for an empty
// day. What run counted already (an earlier attempt's calls) is kept.
func (e *Engine) consolidate(ctx context.Context, a *store.Agent, run *store.Run, holder string) (*store.Committed, error) {
	mems, base, err := dayInput(ctx, a, run.Day)
	if err != nil {
		return nil, err
	}
	run.Status = store.RunOK
	read := make([]int64, len(mems))
	for i, m := range mems {
		read[i] = m.ID
	}
	mems, flag, err := withoutRejected(ctx, a, mems)
	if err != nil {
		return nil, err
	}
	if len(mems) == 0 {
		return nil, a.FlagMemories(ctx, flag)
	}
	usage := Usage{Calls: run.Calls, TokensIn: run.TokensIn, TokensOut: run.TokensOut}
	chunks := Chunks(mems, e.ChunkTokens)
	parts := make([]Partial, 0, len(chunks)+1)
	if base != nil { // what retention pruned of the day, as its record had it
		parts = append(parts, base.Partial)
	}
	for i, c := range chunks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, u, err := e.Consolidator.Map(ctx, run.Day, c)
		usage.add(u)
		run.Calls, run.TokensIn, run.TokensOut = usage.Calls, usage.TokensIn, usage.TokensOut
		if err != nil {
			return nil, fmt.Errorf("map chunk %d of %d: %w", i+1, len(chunks), err)
		}
		parts = append(parts, p)
	}
	day := parts[0]
	if len(parts) > 1 {
		var u Usage
		day, u, err = e.Consolidator.Reduce(ctx, run.Day, parts)
		usage.add(u)
		run.Calls, run.TokensIn, run.TokensOut = usage.Calls, usage.TokensIn, usage.TokensOut
		if err != nil {
			return nil, fmt.Errorf("reduce %d chunks: %w", len(parts), err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec, facts, err := record(run.Day, e.Consolidator.Provider()+"/"+e.Consolidator.Model(), mems, day)
	if err != nil {
		return nil, err
	}
	if base != nil {
		rec.SourceIDs = mergeIDs(base.sourceIDs, rec.SourceIDs)
	}
	current := slices.DeleteFunc(slices.Clone(mems), func(m store.Memory) bool { return m.SupersededBy != nil })
	facts = statedBy(facts, current) // a rebuild does not state again what a correction retired
	run.FinishedAt = e.now()
	run.DurationMS = run.FinishedAt.Sub(run.StartedAt).Milliseconds()
	c, err := a.CommitConsolidation(ctx, store.Commit{
		Record: rec, Facts: facts, Run: *run, Lease: leaseName, Holder: holder, Now: e.now(), Memories: read, Flag: flag,
		Retires: claim.Single, Rekey: extract.FactKey,
		Profile: dayProfile(current, facts, day.Profile),
	})
	if err != nil {
		return nil, err
	}
	if err := retireCorrected(ctx, a, mems); err != nil {
		return nil, err
	}
	return &c, nil
}

// record turns a day's reduced partial into the stored record and facts.
// A fact is valid from its earliest source memory; facts are committed in
// that order, so a later value of the same attribute supersedes an earlier.
func record(day, model string, mems []store.Memory, p Partial) (store.Consolidation, []store.Fact, error) {
	ts := make(map[int64]time.Time, len(mems))
	ids := make([]int64, len(mems))
	for i, m := range mems {
		ids[i] = m.ID
		ts[m.ID] = m.Timestamp
	}
	enc := func(v any) (json.RawMessage, error) { return json.Marshal(v) }
	kf, err1 := enc(nonNil(p.KeyFacts))
	ents, err2 := enc(nonNil(p.Entities))
	tops, err3 := enc(nonNil(p.Topics))
	ins, err4 := enc(nonNil(p.Insights))
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return store.Consolidation{}, nil, fmt.Errorf("encode record of %s: %w", day, err)
	}
	facts := make([]store.Fact, 0, len(p.KeyFacts))
	for _, k := range p.KeyFacts {
		var from time.Time
		var src []int64
		for _, id := range k.MemoryIDs {
			t, ok := ts[id]
			if !ok {
				continue // a model may cite an id it was not given
			}
			src = append(src, id)
			if from.IsZero() || t.Before(from) {
				from = t
			}
		}
		if len(src) == 0 {
			continue
		}
		facts = append(facts, store.Fact{
			Entity: k.Entity, EntityType: k.EntityType, Attribute: extract.AttributeKey(k.Attribute), Value: k.Value, // an LLM's words too
			FactType: k.FactType, Content: k.Content, Confidence: k.Confidence,
			SourceMemoryIDs: src, ValidFrom: from,
		})
	}
	slices.SortStableFunc(facts, func(a, b store.Fact) int { return a.ValidFrom.Compare(b.ValidFrom) })
	return store.Consolidation{
		Date: day, Summary: p.Summary, KeyFacts: kf, Entities: ents, Topics: tops, Insights: ins,
		SourceIDs: ids, Model: model,
	}, facts, nil
}

// RunAll consolidates every day of agent that has unconsolidated memories,
// oldest first: the days before today, and today too when today is true.
// A failed day does not stop the others; a busy agent or a cancelled ctx
// does.
func (e *Engine) RunAll(ctx context.Context, agent string, today bool) ([]store.Run, error) {
	plan, err := e.pending(ctx, agent, "", today)
	if err != nil {
		return nil, err
	}
	return e.runDays(ctx, agent, plan, nil)
}

// runDays consolidates days in order. after, if not nil, runs after each
// day with the CPU time the calling thread spent on it.
func (e *Engine) runDays(ctx context.Context, agent string, days []string, after func(context.Context, time.Duration)) ([]store.Run, error) {
	var runs []store.Run
	var errs []error
	for _, d := range days {
		cpu := threadCPU()
		run, err := e.Run(ctx, agent, d)
		if after != nil {
			after(ctx, threadCPU()-cpu)
		}
		if run.Day != "" {
			runs = append(runs, run)
		}
		if errors.Is(err, llm.ErrBudget) {
			break // a clean stop: the run row says partial, the rest waits for the next night
		}
		if err != nil {
			errs = append(errs, err)
			if errors.Is(err, ErrBusy) || errors.Is(err, when.ErrImplausibleClock) || ctx.Err() != nil {
				break
			}
		}
	}
	return runs, errors.Join(errs...)
}

// pending lists the days of agent with unconsolidated memories from since
// ("" for all), before today unless today is true.
func (e *Engine) pending(ctx context.Context, agent, since string, today bool) ([]string, error) {
	now, err := e.Today()
	if err != nil {
		return nil, err
	}
	before := now
	if today {
		before = ""
	}
	var days []string
	err = e.Store.With(ctx, agent, false, func(a *store.Agent) error {
		dc, err := a.UnconsolidatedDays(ctx, before)
		for _, d := range dc {
			if d.Day >= since {
				days = append(days, d.Day)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list days to consolidate for agent %q: %w", agent, err)
	}
	return days, nil
}
