package cli

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// localFlags are the flags of the verbs that always work on the files.
type localFlags struct {
	configPath string
	data       string
	json       bool
}

// filesCommand starts the flags of a verb that always works on the files.
func filesCommand(env Env, name, synopsis string) (*flag.FlagSet, *localFlags) {
	fs, l := newFlags(env, name, synopsis), &localFlags{}
	l.register(fs)
	return fs, l
}

func (l *localFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.configPath, "config", "", "configuration file (default "+config.DefaultPath+" if it exists; env DORMOUSE_CONFIG)")
	fs.StringVar(&l.data, "data", "", "data directory (default: the configured data_dir)")
	fs.BoolVar(&l.json, "json", false, "print JSON")
}

func (l *localFlags) load(env Env) (config.Config, error) {
	flags := map[string]string{}
	if l.data != "" {
		flags["data_dir"] = l.data
	}
	return loadConfig(env, l.configPath, flags)
}

func runBackup(ctx context.Context, env Env, args []string) error {
	fs, l := filesCommand(env, "backup", "[--agent A] [--dest DIR] [--keep N] [flags]   (default: every agent)")
	agent := fs.String("agent", "", "back up only this agent")
	dest := fs.String("dest", "", "backup directory (default: the configured backup.dir, or DATA/backups)")
	keep := fs.Int("keep", 0, "backups kept per agent (default: the configured backup.keep)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *agent != "" {
		if err := store.ValidateAgentName(*agent); err != nil {
			return usagef("--agent: %v", err)
		}
	}
	if *keep < 0 || *keep > 1000 {
		return usagef("--keep: want 1 to 1000, got %d", *keep)
	}
	cfg, err := l.load(env)
	if err != nil {
		return err
	}
	o := backup.Options{Dir: cfg.BackupDir(), Keep: cfg.Backup.Keep, Logger: envLogger(env, cfg.LogLevel)}
	if *dest != "" {
		o.Dir = *dest
	}
	if *keep > 0 {
		o.Keep = *keep
	}
	for _, d := range []string{cfg.DataDir, o.Dir} {
		if err := refuseRootWrite(env, d); err != nil {
			return err
		}
	}
	st, err := store.Open(ctx, daemon.StoreOptions(cfg, o.Logger))
	if err != nil {
		return err
	}
	defer st.Close()
	var res []backup.Result
	if *agent != "" {
		r, err := backup.Agent(ctx, st, *agent, o)
		if err != nil {
			return err
		}
		res = []backup.Result{r}
	} else {
		res, err = backup.All(ctx, st, o)
	}
	if l.json {
		if perr := printJSON(env.Stdout, map[string]any{"backups": nonNil(res)}); perr != nil {
			return perr
		}
		return err
	}
	if len(res) == 0 && err == nil {
		fmt.Fprintln(env.Stdout, "no agents to back up")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSIZE\tTOOK\tREMOVED\tBACKUP (verified)")
	for _, r := range res {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", r.Agent, text.Size(r.Bytes),
			(time.Duration(r.TookMS) * time.Millisecond).String(), len(r.Removed), r.Path)
	}
	if ferr := tw.Flush(); ferr != nil {
		return ferr
	}
	return err
}

func runRestore(ctx context.Context, env Env, args []string) error {
	fs, l := filesCommand(env, "restore", "--agent A [--from FILE] [--list] [--force] [flags]\n       dormouse restore --from-replica (--agent A | --all) [--at TIME] [--force] [flags]\n       dormouse restore --drill [--agent A | --all] [flags]")
	agent := fs.String("agent", "", "the agent whose file is replaced (required but with --from-replica --all)")
	replica := fs.Bool("from-replica", false, "restore from the replica of replication.url instead of a backup")
	all := fs.Bool("all", false, "with --from-replica: every agent that has a replica; with --drill: every agent (the default)")
	drill := fs.Bool("drill", false, "restore each agent's latest replica into a temporary directory, check it against the live file and record the result for /health (the daemon may run)")
	at := fs.String("at", "", "with --from-replica: the state at this time (RFC 3339, such as 2026-05-01T18:00:00Z); default the latest")
	from := fs.String("from", "", "the backup file to restore (default: the agent's newest in the backup directory)")
	dir := fs.String("dest", "", "backup directory to look in (default: the configured backup.dir, or DATA/backups)")
	list := fs.Bool("list", false, "list the agent's backups and change nothing")
	force := fs.Bool("force", false, "restore although a daemon answers at the configured address (the agent's file itself must still be closed)")
	addr := fs.String("addr", "", "daemon address to check (env DORMOUSE_ADDR; default: the configured listen address)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *drill {
		if *replica || *at != "" || *from != "" || *force || *list || (*all && *agent != "") {
			return usagef("--drill goes with --agent NAME or --all only")
		}
		if *agent != "" {
			if err := store.ValidateAgentName(*agent); err != nil {
				return usagef("--agent: %v", err)
			}
		}
		return runDrill(ctx, env, l, *agent)
	}
	if *replica {
		return runRestoreReplica(ctx, env, l, replicaRestore{agent: *agent, all: *all, at: *at, force: *force, addr: *addr})
	}
	if *all || *at != "" {
		return usagef("--all and --at go with --from-replica")
	}
	if *agent == "" {
		return usagef("--agent is required")
	}
	if err := store.ValidateAgentName(*agent); err != nil {
		return usagef("--agent: %v", err)
	}
	cfg, err := l.load(env)
	if err != nil {
		return err
	}
	bdir := cfg.BackupDir()
	if *dir != "" {
		bdir = *dir
	}
	if *list {
		bs, err := backup.List(bdir, *agent)
		if err != nil {
			return err
		}
		if l.json {
			return printJSON(env.Stdout, map[string]any{"backups": nonNil(bs)})
		}
		if len(bs) == 0 {
			fmt.Fprintf(env.Stdout, "no backups of agent %q in %s\n", *agent, bdir)
			return nil
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TIME (UTC)\tSIZE\tFILE")
		for _, b := range bs {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Time.Format(time.DateTime), text.Size(b.Bytes), b.Path)
		}
		return tw.Flush()
	}
	if err := refuseRootWrite(env, cfg.DataDir); err != nil {
		return err
	}
	a := *addr
	if a == "" {
		a = env.getenv("DORMOUSE_ADDR")
	}
	if a == "" {
		a = dialable(cfg.Listen)
	}
	if daemonAnswers(ctx, a) && !*force {
		return fmt.Errorf("a daemon answers at %s and may reopen agent %q while its file is replaced: stop it first (sudo systemctl stop dormouse), restore, then start it again; or pass --force if that daemon uses another data directory", a, *agent)
	}
	res, err := backup.Restore(ctx, backup.RestoreOptions{DataDir: cfg.DataDir, Agent: *agent, From: *from, BackupDir: bdir})
	if err != nil {
		return err
	}
	if l.json {
		return printJSON(env.Stdout, res)
	}
	fmt.Fprintf(env.Stdout, "restored agent %q from %s (verified)\n", res.Agent, res.From)
	for _, p := range res.Aside {
		fmt.Fprintf(env.Stdout, "the file it replaced is kept as %s\n", p)
	}
	return nil
}

// daemonAnswers reports whether a Dormouse daemon's /healthz answers at addr.
func daemonAnswers(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return true // whatever it says (503 while starting or draining), something serves there
}
