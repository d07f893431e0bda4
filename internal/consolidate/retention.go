package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// basePart is what retention kept of a day whose raw memories it pruned:
// the record it had then, which a rebuild of the day merges with the
// memories still there, and the ids that record summarised.
type basePart struct {
	Partial
	sourceIDs []int64
}

// dayInput returns the memories of day to consolidate, oldest first:
// flagged ones (forgotten claims said again) are left out, so nothing of
// them reaches a record or a fact. For a day retention pruned, it also
// returns the base the rebuild starts from.
func dayInput(ctx context.Context, a *store.Agent, day string) ([]store.Memory, *basePart, error) {
	all, err := a.DayMemories(ctx, day)
	if err != nil {
		return nil, nil, err
	}
	mems := slices.DeleteFunc(all, func(m store.Memory) bool { return m.Flagged })
	p, ok, err := a.PrunedDay(ctx, day)
	if err != nil || !ok {
		return mems, nil, err
	}
	b := &basePart{sourceIDs: p.Record.SourceIDs}
	r := p.Record
	b.Summary = r.Summary
	err = errors.Join(
		json.Unmarshal(r.KeyFacts, &b.KeyFacts),
		json.Unmarshal(r.Entities, &b.Entities),
		json.Unmarshal(r.Topics, &b.Topics),
		json.Unmarshal(r.Insights, &b.Insights))
	if err != nil {
		return nil, nil, fmt.Errorf("read the pruned record of %s: %w", day, err)
	}
	return mems, b, nil
}

// mergeIDs returns a's ids then those of b that a lacks, in order.
func mergeIDs(a, b []int64) []int64 {
	out := slices.Clone(a)
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Retention prunes consolidated raw memories older than RawDays days
// (store.Agent.Prune) and then gives the freed pages back (Vacuum): what
// runs after each nightly consolidation. RawDays <= 0 is off.
type Retention struct {
	RawDays  int
	Location *time.Location // day boundaries; nil is time.Local
}

// RetentionResult is what Retention did to one agent.
type RetentionResult struct {
	Agent  string             `json:"agent"`
	Pruned store.PruneResult  `json:"pruned"`
	Vacuum store.VacuumResult `json:"vacuum"`
}

// Apply prunes agent's days before now minus RawDays days and vacuums its
// file when anything was pruned (or the file still needs its one rewrite to
// incremental vacuum). A vacuum without room on the disk is skipped, not
// an error: the pruned pages are reused by new memories instead.
func (r Retention) Apply(ctx context.Context, st *store.Store, agent string, now time.Time) (RetentionResult, error) {
	res := RetentionResult{Agent: agent}
	if r.RawDays <= 0 {
		return res, nil
	}
	if err := checkClock(now); err != nil {
		return res, err
	}
	loc := r.Location
	if loc == nil {
		loc = time.Local
	}
	before := now.In(loc).AddDate(0, 0, -r.RawDays).Format(time.DateOnly)
	err := st.With(ctx, agent, false, func(a *store.Agent) error {
		var err error
		if res.Pruned, err = a.Prune(ctx, before); err != nil {
			return err
		}
		mode, err := a.AutoVacuum(ctx)
		if err != nil {
			return err
		}
		if res.Pruned.Memories == 0 && mode == 2 {
			return nil
		}
		res.Vacuum, err = a.Vacuum(ctx)
		if errors.Is(err, store.ErrNoRoom) {
			return nil
		}
		return err
	})
	if err != nil {
		return res, fmt.Errorf("retention of agent %q: %w", agent, err)
	}
	return res, nil
}

// tidy is an agent's housekeeping after its nights: the forgets of shared
// copies it still owes (store.SettleShares), the retention, then the merge
// of its memory indexes' segments.
func (e *Engine) tidy(ctx context.Context, agent string) (*RetentionResult, error) {
	if err := e.Store.SettleShares(ctx, agent); err != nil {
		e.log().Warn("forget shared copies", "agent", agent, "err", err)
	}
	res, err := e.retain(ctx, agent)
	if err == nil {
		e.mergeIndexes(ctx, agent)
	}
	return res, err
}

// mergeIndexes merges agent's memory indexes (store.Agent.MergeIndexes):
// the day's segments, which every search reads, become one. A failure
// costs only search speed: it is logged, never the night's error.
func (e *Engine) mergeIndexes(ctx context.Context, agent string) {
	err := e.Store.With(ctx, agent, false, func(a *store.Agent) error {
		before, after, err := a.MergeIndexes(ctx)
		if err == nil && after != before {
			e.log().Info("merged memory indexes", "agent", agent, "segments_before", before, "segments_after", after)
		}
		return err
	})
	if err != nil && ctx.Err() == nil {
		e.log().Warn("merge memory indexes", "agent", agent, "err", err)
	}
}

// retain applies the engine's retention to agent after its consolidation,
// nil when retention is off.
func (e *Engine) retain(ctx context.Context, agent string) (*RetentionResult, error) {
	if e.Retention.RawDays <= 0 {
		return nil, nil
	}
	r := e.Retention
	if r.Location == nil {
		r.Location = e.loc()
	}
	res, err := r.Apply(ctx, e.Store, agent, e.now())
	if err != nil {
		return &res, err
	}
	if res.Pruned.Memories > 0 || res.Vacuum.Converted {
		e.log().Info("retention", "agent", agent, "days", res.Pruned.Days, "memories", res.Pruned.Memories,
			"converted_to_incremental_vacuum", res.Vacuum.Converted, "bytes_before", res.Vacuum.BytesBefore,
			"bytes_after", res.Vacuum.BytesAfter)
	}
	return &res, nil
}

// SpentElsewhere sums what the runs of other processes (any holder but
// this engine's) on the engine's provider cost in [from, to), across every
// agent: what llm.Budget.Elsewhere asks, so the nightly job and the daemon
// share one budget per night.
func (e *Engine) SpentElsewhere(ctx context.Context, from, to time.Time) (calls, tokens int, err error) {
	agents, err := e.Store.Agents()
	if err != nil {
		return 0, 0, err
	}
	provider, me := e.Consolidator.Provider(), e.lessee()
	for _, name := range agents {
		err := e.Store.With(ctx, name, false, func(a *store.Agent) error {
			sp, err := a.SpentBy(ctx, provider, me, from, to)
			calls += sp.Calls
			tokens += sp.Tokens
			return err
		})
		if err != nil {
			return 0, 0, fmt.Errorf("what other processes spent: %w", err)
		}
	}
	return calls, tokens, nil
}
