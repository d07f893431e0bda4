package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
)

func runConsolidate(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "consolidate", "[--agent A | --all] [--date YYYY-MM-DD | --since YYYY-MM-DD] [--dry-run] [flags]")
	all := fs.Bool("all", false, "every agent (what the nightly timer runs)")
	var req consolidate.Request
	fs.StringVar(&req.Date, "date", "", "rebuild this one day (YYYY-MM-DD, local time; today included)")
	fs.StringVar(&req.Since, "since", "", "the days from this one to yesterday that have unconsolidated memories (default: all of them)")
	fs.BoolVar(&req.DryRun, "dry-run", false, "print the plan (days, memories, chunks, estimated tokens) and change nothing")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	agentSet := false
	fs.Visit(func(f *flag.Flag) { agentSet = agentSet || f.Name == "agent" })
	if *all && agentSet {
		return usagef("give --agent or --all, not both")
	}
	if err := req.Validate(); err != nil {
		return usagef("%v", err)
	}
	b, err := c.open(ctx, env, !req.DryRun)
	if err != nil {
		return err
	}
	defer b.Close()
	agents := []string{c.agent}
	if *all {
		if agents, err = b.Agents(ctx); err != nil {
			return err
		}
	}

	results := []client.ConsolidateResult{}
	var errs []error
	for _, a := range agents {
		res, err := b.Consolidate(ctx, a, req)
		if res.Agent == "" {
			res.Agent = a
		}
		results = append(results, res)
		switch {
		case err == nil:
		case *all && busy(err):
			// Someone else (the daemon) is consolidating this agent now.
			fmt.Fprintf(env.Stderr, "dormouse consolidate: agent %q skipped: %v\n", a, err)
		default:
			errs = append(errs, fmt.Errorf("agent %q: %w", a, err))
		}
		if ctx.Err() != nil {
			break
		}
	}
	if c.json {
		if err := printJSON(env.Stdout, map[string]any{"results": results}); err != nil {
			return err
		}
		return errors.Join(errs...)
	}
	empty := true
	for _, r := range results {
		empty = empty && len(r.Runs) == 0 && (r.Plan == nil || len(r.Plan.Days) == 0)
	}
	if empty {
		if len(errs) == 0 {
			return explainNothing(ctx, env, b, c.configPath, results)
		}
		return errors.Join(errs...)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	if req.DryRun {
		fmt.Fprintln(tw, "AGENT\tDAY\tMEMORIES\tUNCONSOLIDATED\tCHUNKS\tCALLS\tEST. TOKENS")
		for _, r := range results {
			if r.Plan == nil {
				continue
			}
			for _, d := range r.Plan.Days {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\n", r.Agent, d.Day, d.Memories, d.Unconsolidated, d.Chunks, d.Calls, d.EstimatedTokens)
			}
		}
	} else {
		fmt.Fprintln(tw, "AGENT\tDAY\tSTATUS\tMEMORIES\tFACTS\tCALLS\tTOKENS IN/OUT\tTOOK")
		for _, r := range results {
			for _, run := range r.Runs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d/%d\t%dms\n", r.Agent, run.Day, run.Status, run.Memories,
					run.Facts, run.Calls, run.TokensIn, run.TokensOut, run.DurationMS)
			}
		}
	}
	tw.Flush()
	return errors.Join(errs...)
}

// explainNothing says why nothing was consolidated. Memories still
// waiting (status counts them) are today's: a day is consolidated once it
// has ended, at midnight in the configured time zone, and --date does it
// now.
func explainNothing(ctx context.Context, env Env, b backend, configPath string, results []client.ConsolidateResult) error {
	fmt.Fprintln(env.Stdout, "nothing to consolidate")
	cfg, err := loadConfig(env, configPath, nil)
	if err != nil {
		return err
	}
	loc := cfg.Location()
	now := time.Now().In(loc)
	today := now.Format(time.DateOnly)
	for _, r := range results {
		st, err := b.Stats(ctx, r.Agent)
		if err != nil {
			return fmt.Errorf("count agent %q's waiting memories: %w", r.Agent, err)
		}
		if st.Unconsolidated == 0 {
			continue
		}
		fmt.Fprintf(env.Stdout, "agent %q: %d memories wait for their day to end: today (%s) is consolidated after midnight (00:00 %s, timezone %s);"+
			" to consolidate it now: dormouse consolidate --agent %s --date %s\n",
			r.Agent, st.Unconsolidated, today, now.Format("MST"), loc, r.Agent, today)
	}
	return nil
}

// busy reports a consolidation refused because another holds the agent's
// lease, whether it came from the files or over HTTP.
func busy(err error) bool {
	var ae *client.APIError
	return errors.Is(err, consolidate.ErrBusy) || errors.As(err, &ae) && ae.Code == "busy"
}
