package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/replicate"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// runDrill is restore --drill: each agent's latest replica is restored
// into a temporary directory and checked against the live file, which it
// only reads, so the daemon and Litestream may keep running. The results
// are kept for /health, and one line per agent goes to stdout (the journal
// under the timer).
func runDrill(ctx context.Context, env Env, l *localFlags, agent string) error {
	cfg, err := l.load(env)
	if err != nil {
		return err
	}
	// The weekly timer drills every agent on every box: one that does not
	// replicate, or has no agent yet, has nothing to drill and is not a
	// failed unit. Asked for one agent, the same is an error.
	if cfg.Replication.URL == "" {
		return nothingToDrill(env, agent, "replication.url is not set: there is no replica to drill")
	}
	bin, err := replicate.FindBinary(cfg.Replication.Litestream)
	if err != nil {
		return err
	}
	agents := []string{agent}
	if agent == "" {
		if agents, err = store.AgentNames(filepath.Join(cfg.DataDir, "agents")); err != nil {
			return err
		}
		if len(agents) == 0 {
			return nothingToDrill(env, agent, "no agent has a file in "+cfg.DataDir+": nothing to drill")
		}
	}
	res := replicate.Drill(ctx, replicate.DrillOptions{Binary: bin, Target: daemon.ReplicationTarget(cfg),
		Environ: replicate.Environ(env.Environ), DataDir: cfg.DataDir, Agents: agents, Wait: replicate.RecoveryPoint})
	if err := replicate.RecordDrills(cfg.DataDir, res, agent == ""); err != nil {
		return fmt.Errorf("record the drill for /health: %w", err)
	}
	if l.json {
		if err := printJSON(env.Stdout, map[string]any{"drills": res}); err != nil {
			return err
		}
	}
	failed := 0
	for _, r := range res {
		if !r.OK {
			failed++
		}
		if !l.json {
			fmt.Fprintln(env.Stdout, drillLine(r))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d restore drills failed", failed, len(res))
	}
	return nil
}

// nothingToDrill is why for one agent asked for, or a line on stdout for
// all (agent "").
func nothingToDrill(env Env, agent, why string) error {
	if agent != "" {
		return errors.New(why)
	}
	fmt.Fprintln(env.Stdout, "drill: "+why)
	return nil
}

func drillLine(r replicate.DrillResult) string {
	if !r.OK {
		return fmt.Sprintf("drill %s: FAILED: %s", r.Agent, r.Reason)
	}
	return fmt.Sprintf("drill %s: ok: integrity ok; restored %d memories (to id %d), %d days, %d facts; live %d memories (to id %d), %d days, %d facts; %.1fs",
		r.Agent, r.Restored.Memories, r.Restored.LastMemoryID, r.Restored.Consolidations, r.Restored.Facts,
		r.Live.Memories, r.Live.LastMemoryID, r.Live.Consolidations, r.Live.Facts, r.Seconds)
}
