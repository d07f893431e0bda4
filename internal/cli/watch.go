package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/watch"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

func runWatch(ctx context.Context, env Env, args []string) error {
	verb, rest, ok, err := splitVerb(env, args, "Usage: dormouse watch list|scan|status [flags]\n\n"+
		"  list    the watched folders in the configuration\n"+
		"  scan    scan every watched folder now (or --agent's), comparing SHA-256 hashes\n"+
		"  status  each folder's watcher and every failing file\n\n"+
		"Run 'dormouse watch VERB --help' for a verb's flags.",
		"watch needs a verb: list, scan or status")
	if !ok {
		return err
	}
	fs, c := hostCommand(env, "watch "+verb, "[flags]")
	agent := fs.String("agent", "", "only this agent's folders (scan)")
	if err := parseNone(fs, rest); err != nil {
		return err
	}
	switch verb {
	case "list":
		return watchList(env, c)
	case "scan":
		return watchScan(ctx, env, c, *agent)
	case "status":
		return watchStatus(ctx, env, c)
	}
	return usagef("unknown watch verb %q: want list, scan or status", verb)
}

func watchList(env Env, c *common) error {
	cfg, err := loadConfig(env, c.configPath, nil)
	if err != nil {
		return err
	}
	folders := daemon.WatchFolders(cfg)
	if c.json {
		return printJSON(env.Stdout, map[string]any{"folders": nonNil(folders)})
	}
	if len(folders) == 0 {
		fmt.Fprintln(env.Stdout, "no watched folders (add them under watch: in the configuration)")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tAGENT\tMODE\tRECURSIVE\tRESCAN\tEXCLUDE")
	for _, f := range folders {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\n", f.Path, f.Agent, f.Mode, f.Recursive, f.Rescan,
			strings.Join(f.Exclude, " "))
	}
	return tw.Flush()
}

func watchScan(ctx context.Context, env Env, c *common, agent string) error {
	b, err := c.open(ctx, env, c.data != "")
	if err != nil {
		return err
	}
	defer b.Close()
	res, scanErr, err := b.WatchScan(ctx, agent)
	if err != nil {
		return err
	}
	if c.json {
		if perr := printJSON(env.Stdout, map[string]any{"scans": nonNil(res), "error": scanErr}); perr != nil {
			return perr
		}
	} else {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PATH\tAGENT\tFILES\tINGESTED\tMEMORIES\tUNCHANGED\tSKIPPED\tFAILED\tREMOVED\tRETIRED\tTOOK")
		for _, r := range res {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", r.Path, r.Agent, r.Seen, r.Ingested,
				r.Memories, r.Unchanged, r.Skipped, r.Failed, r.Removed, r.Retired, r.Duration)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if scanErr != "" {
		return fmt.Errorf("scan: %s", scanErr)
	}
	return nil
}

func watchStatus(ctx context.Context, env Env, c *common) error {
	b, err := c.open(ctx, env, false)
	if err != nil {
		return err
	}
	defer b.Close()
	rep, err := b.WatchStatus(ctx)
	if err != nil {
		return err
	}
	if c.json {
		rep.Folders, rep.Failing = nonNil(rep.Folders), nonNil(rep.Failing)
		return printJSON(env.Stdout, rep)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tAGENT\tMODE\tWATCHING\tDIRS\tTRACKED\tPENDING\tLAST SCAN\tPROBLEM")
	for _, f := range rep.Folders {
		last := "-"
		if f.LastScan != nil {
			last = f.LastScan.Started.Local().Format(time.DateTime) + " (" + f.LastScan.Duration + ")"
		}
		problem := strings.TrimSpace(f.Error + " " + f.WatchError)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%d\t%d\t%d\t%s\t%s\n", f.Path, f.Agent, f.Mode, f.Watching, f.WatchedDirs,
			f.FilesTracked, f.Pending, last, problem)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Failing) == 0 {
		fmt.Fprintln(env.Stdout, "\nno failing files")
		return nil
	}
	fmt.Fprintf(env.Stdout, "\n%d failing files:\n", len(rep.Failing))
	tw = tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tFILE\tATTEMPTS\tNEXT RETRY\tERROR")
	for _, f := range rep.Failing {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", f.Agent, f.Root+"/"+f.Path, f.Attempts,
			f.NextRetry.Local().Format(time.DateTime), f.Error)
	}
	return tw.Flush()
}

// WatchScan scans the watched folders (or agent's) from the files; a scan
// that failed is said in the string, as the daemon says it.
func (l *local) WatchScan(ctx context.Context, agent string) ([]client.ScanResult, string, error) {
	if err := l.s.VisionErr; err != nil {
		l.s.Logger.Warn("images fail until the vision model can be set up", "err", err)
	}
	scans, err := l.s.Watchers.Scan(ctx, agent)
	if err != nil {
		return scans, err.Error(), nil
	}
	return scans, "", nil
}

// WatchStatus is the folders and failing files from the files: no watcher
// runs here, so the configuration and the files' recorded state.
func (l *local) WatchStatus(ctx context.Context) (client.WatchStatus, error) {
	folders, err := l.s.Watchers.Status(ctx)
	if err != nil {
		return client.WatchStatus{}, err
	}
	failing, err := watch.FailingFiles(ctx, l.st, nil)
	return client.WatchStatus{Folders: folders, Failing: wire.FailingFiles(failing)}, err
}

// ingestFile runs `dormouse ingest --file PATH`: the file pipeline, through the daemon or on the
// agent files directly.
func ingestFile(ctx context.Context, env Env, c *common, name string) error {
	fi, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("ingest --file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return usagef("--file %s is not a regular file", name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("ingest --file: %w", err)
	}
	b, err := c.open(ctx, env, true)
	if err != nil {
		return err
	}
	defer b.Close()
	out, err := b.UploadFile(ctx, c.agent, name, data, fi.ModTime())
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, out)
	}
	switch {
	case out.Reused:
		fmt.Fprintf(env.Stdout, "%s: already stored (same content)\n", out.Path)
	default:
		fmt.Fprintf(env.Stdout, "%s: stored %d memories\n", out.Path, out.Inserted)
	}
	return nil
}

// UploadFile ingests one file through the watched folders' pipeline. A
// vision model that cannot be set up fails an image with its error; other
// files need none.
func (l *local) UploadFile(ctx context.Context, agent, name string, data []byte, mtime time.Time) (client.FileOutcome, error) {
	o, err := l.s.Watchers.Ingester().Upload(ctx, agent, name, data, mtime)
	return wire.FileOutcome(o), err
}

// printFailingFiles adds the failing files of watched folders to `dormouse status`. A daemon that
// watches nothing (or predates watched folders) has none to show.
func printFailingFiles(ctx context.Context, env Env, b backend) {
	var failing []client.FailingFile
	switch be := b.(type) {
	case remote:
		rep, err := be.WatchStatus(ctx)
		if err != nil {
			return
		}
		failing = rep.Failing
	case *local:
		ff, err := watch.FailingFiles(ctx, be.st, nil)
		if err != nil {
			fmt.Fprintf(env.Stdout, "\nfailing files: %v\n", err)
			return
		}
		failing = wire.FailingFiles(ff)
	}
	if len(failing) == 0 {
		return
	}
	fmt.Fprintf(env.Stdout, "\n%d failing files (dormouse watch status for all):\n", len(failing))
	for i, f := range failing {
		if i == 10 {
			fmt.Fprintf(env.Stdout, "  … and %d more\n", len(failing)-10)
			break
		}
		fmt.Fprintf(env.Stdout, "  %s %s/%s: %s\n", f.Agent, f.Root, f.Path, f.Error)
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
