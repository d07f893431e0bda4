package cli

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/replicate"
	"github.com/dormouse-dev/dormouse/internal/store"
)

type replicaRestore struct {
	agent, at, addr string
	all, force      bool
}

// replicaRestored is one agent brought back from its replica.
type replicaRestored struct {
	Agent          string    `json:"agent"`
	From           string    `json:"from"`
	At             time.Time `json:"at,omitzero"` // zero: the latest state
	To             string    `json:"to"`
	Aside          []string  `json:"aside,omitempty"`
	Memories       int64     `json:"memories"`
	Consolidations int64     `json:"consolidations"`
	Facts          int64     `json:"facts"`
}

// runRestoreReplica is restore --from-replica: each agent's replica is
// fetched (Litestream checks its integrity), verified again as an agent
// file, put in place (a file it replaces is kept aside, and only with
// --force), and counted.
func runRestoreReplica(ctx context.Context, env Env, l *localFlags, r replicaRestore) error {
	if (r.agent == "") == !r.all {
		return usagef("--from-replica wants --agent NAME or --all")
	}
	var at time.Time
	if r.at != "" {
		var err error
		if at, err = time.Parse(time.RFC3339, r.at); err != nil {
			return usagef("--at: want an RFC 3339 time such as 2026-05-01T18:00:00Z, got %q", r.at)
		}
	}
	cfg, err := l.load(env)
	if err != nil {
		return err
	}
	if cfg.Replication.URL == "" {
		return fmt.Errorf("replication.url is not set: the configuration must name the replica to restore from (the same file and /etc/default/dormouse as the box that replicated)")
	}
	if err := refuseRootWrite(env, cfg.DataDir); err != nil {
		return err
	}
	a := cmp.Or(r.addr, env.getenv("DORMOUSE_ADDR"), dialable(cfg.Listen))
	if daemonAnswers(ctx, a) && !r.force {
		return fmt.Errorf("a daemon answers at %s and would use the agents' files while they are replaced: stop it first (sudo systemctl stop dormouse), or pass --force if it uses another data directory", a)
	}
	bin, err := replicate.FindBinary(cfg.Replication.Litestream)
	if err != nil {
		return err
	}
	o := replicate.RestoreOptions{Binary: bin, Target: daemon.ReplicationTarget(cfg),
		Environ: replicate.Environ(env.Environ), DataDir: cfg.DataDir, At: at, Force: r.force}
	agents := []string{r.agent}
	if r.all {
		if agents, err = replicate.Agents(ctx, o.Target, o.Environ); err != nil {
			return err
		}
		if len(agents) == 0 {
			return fmt.Errorf("no agent has a replica in %s", o.Target.Redacted())
		}
	}
	var done []replicaRestored
	for _, name := range agents {
		o.Agent = name
		res, err := restoreOne(ctx, o)
		if err != nil {
			_ = printRestored(env, l, done)
			return err
		}
		done = append(done, res)
	}
	return printRestored(env, l, done)
}

func restoreOne(ctx context.Context, o replicate.RestoreOptions) (replicaRestored, error) {
	staged, err := replicate.Stage(ctx, o)
	if err != nil {
		return replicaRestored{}, err
	}
	put, err := backup.Restore(ctx, backup.RestoreOptions{DataDir: o.DataDir, Agent: o.Agent, From: staged})
	_ = os.Remove(staged) // copied into place, or refused
	if err != nil {
		return replicaRestored{}, err
	}
	res := replicaRestored{Agent: o.Agent, From: o.Target.Redacted(), At: o.At, To: put.To, Aside: put.Aside}
	st, err := countAgent(ctx, o.DataDir, o.Agent)
	if err != nil {
		return res, fmt.Errorf("restore agent %q: count what came back: %w", o.Agent, err)
	}
	res.Memories, res.Consolidations, res.Facts = st.Memories, st.Consolidations, st.Facts
	return res, nil
}

// countAgent opens the restored file as the daemon would (leaving its
// checkpoints to Litestream) and counts its records.
func countAgent(ctx context.Context, dataDir, agent string) (store.Stats, error) {
	st, err := store.Open(ctx, store.Options{Dir: dataDir, LeaveCheckpoints: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return store.Stats{}, err
	}
	defer st.Close()
	var stats store.Stats
	err = st.With(ctx, agent, false, func(a *store.Agent) error {
		stats, err = a.Stats(ctx)
		return err
	})
	return stats, err
}

func printRestored(env Env, l *localFlags, done []replicaRestored) error {
	if l.json {
		return printJSON(env.Stdout, map[string]any{"restored": nonNil(done)})
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATE\tMEMORIES\tDAYS\tFACTS\tFILE (integrity checked)")
	for _, r := range done {
		state := "latest"
		if !r.At.IsZero() {
			state = "at " + r.At.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", r.Agent, state, r.Memories, r.Consolidations, r.Facts, r.To)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range done {
		for _, p := range r.Aside {
			fmt.Fprintf(env.Stdout, "the file agent %q had is kept as %s\n", r.Agent, p)
		}
	}
	return nil
}
