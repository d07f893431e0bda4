package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// These tests run consolidations through the engine against each fake
// provider and look at what was stored.

var tonight = time.Date(2026, 3, 3, 0, 5, 0, 0, time.UTC)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// day stores the two notes on day (memory ids 1 and 2 on a first day).
func day(t *testing.T, st *store.Store, d time.Time) {
	t.Helper()
	var ins []capture.Input
	for _, n := range notes {
		at := time.Date(d.Year(), d.Month(), d.Day(), n.Time.Hour(), n.Time.Minute(), 0, 0, time.UTC)
		ins = append(ins, capture.Input{Content: n.Content, Role: n.Role, SessionID: "s", Timestamp: at.Format(time.RFC3339)})
	}
	err := st.With(t.Context(), "main", true, func(a *store.Agent) error {
		_, err := capture.Ingest(t.Context(), a, ins, capture.Limits{MaxContent: 1 << 16}, time.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func engine(st *store.Store, c *llm.Client) *consolidate.Engine {
	return &consolidate.Engine{Store: st, Consolidator: consolidate.LLM{Client: c, Location: time.UTC}, Location: time.UTC,
		Now: func() time.Time { return tonight }}
}

func inspect(t *testing.T, st *store.Store) (store.Stats, []store.Consolidation, []store.Fact, []store.Run) {
	t.Helper()
	var s store.Stats
	var recs []store.Consolidation
	var facts []store.Fact
	var runs []store.Run
	err := st.With(t.Context(), "main", false, func(a *store.Agent) error {
		var err error
		if s, err = a.Stats(t.Context()); err != nil {
			return err
		}
		if recs, err = a.Consolidations(t.Context(), "", "", 0); err != nil {
			return err
		}
		if facts, err = a.Facts(t.Context(), store.FactFilter{}); err != nil {
			return err
		}
		runs, err = a.Runs(t.Context(), "", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, recs, facts, runs
}

func TestEngineStoresWhatTheModelSaid(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
			h := newHarness(t, p, []step{{answer: fenced}}, nil)
			run, err := engine(st, h.client).Run(t.Context(), "main", "2026-03-02")
			if err != nil {
				t.Fatal(err)
			}
			s, recs, facts, runs := inspect(t, st)
			if s.Unconsolidated != 0 || len(recs) != 1 {
				t.Fatalf("stats %+v, records %d; want one record and every memory consolidated", s, len(recs))
			}
			if recs[0].Summary != "Alice became team lead of Atlas; the beta ships on Friday." ||
				recs[0].Model != p.name+"/"+llm.DefaultModel(p.name) {
				t.Errorf("record = %+v", recs[0])
			}
			if len(facts) != 2 || !strings.Contains(facts[0].Content+facts[1].Content, "team lead") {
				t.Errorf("facts = %+v, want the model's two", facts)
			}
			want := store.Run{Provider: p.name, Model: llm.DefaultModel(p.name), Calls: 1, TokensIn: 812, TokensOut: 164,
				Status: store.RunOK, Memories: 2, Facts: 2}
			got := store.Run{Provider: run.Provider, Model: run.Model, Calls: run.Calls, TokensIn: run.TokensIn,
				TokensOut: run.TokensOut, Status: run.Status, Memories: run.Memories, Facts: run.Facts}
			if got != want || len(runs) != 1 || runs[0].TokensIn != 812 {
				t.Errorf("run = %+v, want %+v; stored %+v", got, want, runs)
			}
		})
	}
}

// TestNeverValidJSONCommitsNothing: the failure path leaves the memories
// unconsolidated and records a failed run with what it cost.
func TestNeverValidJSONCommitsNothing(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
			h := newHarness(t, p, []step{{answer: broken}}, nil)
			_, err := engine(st, h.client).Run(t.Context(), "main", "2026-03-02")
			if !errors.Is(err, llm.ErrInvalidJSON) {
				t.Fatalf("Run error = %v, want ErrInvalidJSON", err)
			}
			s, recs, facts, runs := inspect(t, st)
			if s.Unconsolidated != 2 || len(recs) != 0 || len(facts) != 0 {
				t.Errorf("stats %+v, %d records, %d facts; want nothing committed", s, len(recs), len(facts))
			}
			if len(runs) != 1 || runs[0].Status != store.RunFailed || runs[0].Calls != 2 || runs[0].TokensIn != 2*812 ||
				!strings.Contains(runs[0].Error, "not valid JSON") {
				t.Errorf("runs = %+v, want one failed run of two calls", runs)
			}
			if n := len(h.fake.requests()); n != 2 {
				t.Errorf("%d requests, want the call and one repair", n)
			}
		})
	}
}

// TestBudgetStopsTheNightCleanly: with a budget of one call, the first day
// is consolidated, the second is left for the next night with a partial
// run row, and the next night finishes it.
func TestBudgetStopsTheNightCleanly(t *testing.T) {
	st := openStore(t)
	day(t, st, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
	now := tonight
	h := newHarness(t, providers[0], []step{{answer: valid}}, func(c *llm.Config) {
		c.Budget = &llm.Budget{MaxCalls: 1, Location: time.UTC}
		c.Now = func() time.Time { return now }
	})
	e := engine(st, h.client)
	e.Now = func() time.Time { return now }

	res, err := e.Do(t.Context(), "main", consolidate.Request{})
	if err != nil {
		t.Fatalf("Do: %v; a spent budget is a clean stop", err)
	}
	if len(res.Runs) != 2 || res.Runs[0].Status != store.RunOK || res.Runs[1].Status != store.RunPartial ||
		!strings.Contains(res.Runs[1].Error, "budget") {
		t.Fatalf("runs = %+v, want ok then partial saying why", res.Runs)
	}
	s, recs, _, _ := inspect(t, st)
	if s.Unconsolidated != 2 || len(recs) != 1 || recs[0].Date != "2026-03-01" {
		t.Errorf("stats %+v, records %+v; want 2026-03-02 left unconsolidated", s, recs)
	}

	now = now.Add(24 * time.Hour)
	res, err = e.Do(t.Context(), "main", consolidate.Request{})
	if err != nil || len(res.Runs) != 1 || res.Runs[0].Day != "2026-03-02" || res.Runs[0].Status != store.RunOK {
		t.Fatalf("next night: %+v, %v; want 2026-03-02 consolidated", res.Runs, err)
	}
	if s, _, _, _ := inspect(t, st); s.Unconsolidated != 0 {
		t.Errorf("after the next night: %+v", s)
	}
}

// TestDryRunEstimatesAsCallsAreCharged: the plan's tokens come from the
// estimator a call is charged with when the provider reports no usage.
func TestDryRunEstimatesAsCallsAreCharged(t *testing.T) {
	st := openStore(t)
	day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
	h := newHarness(t, providers[1], []step{{answer: valid, noUsage: true}}, nil)
	e := engine(st, h.client)
	e.ChunkTokens = consolidate.LLM{Client: h.client}.ChunkTokens()
	res, err := e.Do(t.Context(), "main", consolidate.Request{Date: "2026-03-02", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	plan := res.Plan.Days[0]
	if len(h.fake.requests()) != 0 || plan.Calls != 1 || plan.Chunks != 1 {
		t.Fatalf("plan %+v after %d requests; want one call planned and none made", plan, len(h.fake.requests()))
	}
	run, err := e.Run(t.Context(), "main", "2026-03-02")
	if err != nil {
		t.Fatal(err)
	}
	if run.TokensIn > plan.EstimatedTokens || run.TokensIn < plan.EstimatedTokens/2 {
		t.Errorf("charged %d tokens in, planned %d in and out", run.TokensIn, plan.EstimatedTokens)
	}
}

// TestBigDayIsMappedAndReduced: a day larger than a chunk costs one call
// per chunk and one to merge them, and the merge sees the partial records.
func TestBigDayIsMappedAndReduced(t *testing.T) {
	st := openStore(t)
	day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
	h := newHarness(t, providers[2], []step{{answer: valid}}, nil)
	e := engine(st, h.client)
	e.ChunkTokens = 20 // one memory a chunk
	run, err := e.Run(t.Context(), "main", "2026-03-02")
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.fake.requests()
	if run.Calls != 3 || len(reqs) != 3 || run.TokensIn != 3*812 {
		t.Fatalf("run %+v after %d requests; want 2 maps and 1 reduce", run, len(reqs))
	}
	s := providers[2].decode(t, reqs[2])
	if !strings.Contains(s.System, "merge partial consolidations") || !strings.Contains(s.Turns[0], "Part 2: {") {
		t.Errorf("reduce request: system %q, turns %q", s.System, s.Turns)
	}
}

// TestReduceInGroupsWhenPartialsDoNotFit: with a small context, partial
// records are merged a few at a time, never in a request larger than the
// context leaves room for.
func TestReduceInGroupsWhenPartialsDoNotFit(t *testing.T) {
	st := openStore(t)
	var ins []capture.Input
	for i := range 6 {
		at := time.Date(2026, 3, 2, 9+i, 0, 0, 0, time.UTC)
		ins = append(ins, capture.Input{Content: fmt.Sprintf("Memory %d about Atlas.", i), Role: "user", SessionID: "s",
			Timestamp: at.Format(time.RFC3339)})
	}
	if err := st.With(t.Context(), "main", true, func(a *store.Agent) error {
		_, err := capture.Ingest(t.Context(), a, ins, capture.Limits{MaxContent: 1 << 16}, time.Now())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, providers[0], []step{{answer: valid}}, func(c *llm.Config) {
		c.ContextWindow, c.MaxTokens = 2048, 700
	})
	e := engine(st, h.client)
	e.ChunkTokens = 20
	run, err := e.Run(t.Context(), "main", "2026-03-02")
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.fake.requests()
	t.Logf("%d calls for 6 chunks", run.Calls)
	if run.Calls <= 7 || len(reqs) != run.Calls {
		t.Errorf("%d calls for 6 chunks; want 6 maps and more than one merge", run.Calls)
	}
	for i, r := range reqs[6:] {
		if est := len(r.body) / 4; est > 2048 {
			t.Errorf("merge request %d is about %d tokens, beyond the 2048-token context", i, est)
		}
	}
}

// TestDeadProviderCommitsNothing: a provider that only answers 500 costs
// retries, then the circuit opens; every day stays unconsolidated with a
// failed run row.
func TestDeadProviderCommitsNothing(t *testing.T) {
	st := openStore(t)
	day(t, st, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
	h := newHarness(t, providers[3], []step{{status: 500}}, func(c *llm.Config) {
		c.MaxRetries = 1
		c.BreakerThreshold = 1
	})
	res, err := engine(st, h.client).Do(t.Context(), "main", consolidate.Request{})
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("Do error = %v, want ErrUnavailable", err)
	}
	s, recs, facts, runs := inspect(t, st)
	if s.Unconsolidated != 4 || len(recs) != 0 || len(facts) != 0 {
		t.Errorf("stats %+v, %d records, %d facts; want nothing committed", s, len(recs), len(facts))
	}
	if len(res.Runs) != 2 || len(runs) != 2 || runs[0].Status != store.RunFailed || runs[1].Status != store.RunFailed {
		t.Errorf("runs = %+v, want two failed", runs)
	}
	if n := len(h.fake.requests()); n != 2 {
		t.Errorf("%d requests; want 2 for the first day and none once the circuit is open", n)
	}
}
