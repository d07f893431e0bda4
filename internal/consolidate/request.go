package consolidate

import (
	"context"
	"fmt"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Request is an on-demand consolidation, from the CLI or the HTTP API.
type Request struct {
	// Date rebuilds that one day, whether or not it has unconsolidated
	// memories (today included).
	Date string `json:"date,omitempty"`
	// Since consolidates the days from Since to yesterday that have
	// unconsolidated memories. Without Date or Since: every such day.
	Since  string `json:"since,omitempty"`
	DryRun bool   `json:"dry_run,omitempty"`
}

// RequestError is a request that cannot be carried out as asked.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

// Validate checks the dates.
func (r Request) Validate() error {
	if r.Date != "" && r.Since != "" {
		return &RequestError{"give date or since, not both"}
	}
	for _, f := range []struct{ name, v string }{{"date", r.Date}, {"since", r.Since}} {
		if f.v == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, f.v); err != nil {
			return &RequestError{fmt.Sprintf("%s: %q is not a date such as 2026-02-01", f.name, f.v)}
		}
	}
	return nil
}

// Result is what a request did, or with DryRun what it would do.
type Result struct {
	Agent string      `json:"agent"`
	Runs  []store.Run `json:"runs"`
	Plan  *Plan       `json:"plan,omitempty"`
	// Retention is what retention did after the runs, when it is on.
	Retention *RetentionResult `json:"retention,omitempty"`
}

// Plan is what a consolidation would do, without calling anything.
type Plan = client.Plan

// DayPlan is the plan for one day. Calls is model calls (chunks, plus one
// to merge them when there are several); the offline consolidator makes none.
type DayPlan = client.DayPlan

// Estimator is a consolidator that calls a model and can say, without
// calling it, what a day cut into chunks would cost: calls, and tokens in
// and out by the same estimate a call is charged when the provider reports
// no usage. Without it a plan shows the memories' tokens.
type Estimator interface {
	Estimate(day string, chunks [][]store.Memory) (calls, tokens int)
}

// Do carries out a request for one agent.
func (e *Engine) Do(ctx context.Context, agent string, req Request) (Result, error) {
	if err := req.Validate(); err != nil {
		return Result{}, err
	}
	res := Result{Agent: agent, Runs: []store.Run{}}
	days := []string{req.Date}
	if req.Date == "" {
		var err error
		if days, err = e.pending(ctx, agent, req.Since, false); err != nil {
			return res, err
		}
	} else if today, err := e.Today(); err != nil {
		return res, err
	} else if req.Date > today {
		return res, &RequestError{fmt.Sprintf("date: %s has not happened yet (today is %s)", req.Date, today)}
	}
	if req.DryRun {
		p, err := e.plan(ctx, agent, days)
		res.Plan = p
		return res, err
	}
	runs, err := e.runDays(ctx, agent, days, nil)
	res.Runs = append(res.Runs, runs...)
	if req.Date == "" && err == nil {
		rr, rerr := e.tidy(ctx, agent)
		res.Retention = rr
		err = rerr
	}
	return res, err
}

func (e *Engine) plan(ctx context.Context, agent string, days []string) (*Plan, error) {
	p := &Plan{Provider: e.Consolidator.Provider(), Model: e.Consolidator.Model(), Days: []DayPlan{}}
	err := e.Store.With(ctx, agent, false, func(a *store.Agent) error {
		for _, d := range days {
			mems, _, err := dayInput(ctx, a, d)
			if err != nil {
				return err
			}
			dp := DayPlan{Day: d, Memories: len(mems)}
			for _, m := range mems {
				if !m.Consolidated {
					dp.Unconsolidated++
				}
				dp.EstimatedTokens += text.EstimateTokens(m.Content) + memoryOverhead
			}
			chunks := Chunks(mems, e.ChunkTokens)
			dp.Chunks = len(chunks)
			switch est, ok := e.Consolidator.(Estimator); {
			case ok && dp.Chunks > 0:
				dp.Calls, dp.EstimatedTokens = est.Estimate(d, chunks)
			case p.Provider != "offline" && dp.Chunks > 0:
				dp.Calls = dp.Chunks
				if dp.Chunks > 1 {
					dp.Calls++
				}
			}
			p.Days = append(p.Days, dp)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("plan consolidation of agent %q: %w", agent, err)
	}
	return p, nil
}
