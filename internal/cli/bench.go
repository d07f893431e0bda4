package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"text/tabwriter"
	"time"

	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/locomo"
	"github.com/dormouse-dev/dormouse/internal/locomo/dataset"
)

func runBench(ctx context.Context, env Env, args []string) error {
	name, rest, ok, err := splitVerb(env, args, "Usage: dormouse bench locomo [--data FILE] [--samples 0-4] [--k 5,10,25,50] [--json] [--questions FILE [--explain]]\n"+
		"\nBenchmarks:\n  locomo   evidence recall@k on the LoCoMo conversations (offline, in a temporary data directory)",
		"name a benchmark")
	if !ok {
		return err
	}
	if name != "locomo" {
		return usagef("unknown benchmark %q (known: locomo)", name)
	}
	return runBenchLocomo(ctx, env, rest)
}

func runBenchLocomo(ctx context.Context, env Env, args []string) error {
	fs := newFlags(env, "bench locomo", "[--data FILE] [--samples 0-4] [--k 5,10,25,50] [--json] [--questions FILE [--explain]]")
	data := fs.String("data", "", "the LoCoMo file (locomo10.json); default: the copy in the user cache, downloaded from --source "+
		"when absent (CC BY-NC 4.0: non-commercial use only)")
	source := fs.String("source", dataset.URL, "where to download the LoCoMo file from when it is not cached (checked against its sha256)")
	samples := fs.String("samples", "all", "samples to run: a range such as 0-4 (development) or 5-9 (held out), a list, or all")
	kflag := fs.String("k", "5,10,25,50", "recall@k cut-offs, in turns")
	configPath := fs.String("config", "", "configuration file whose storage, capture, consolidation and recall settings are "+
		"used, offline (default: built-in defaults and the usual configuration file if it exists)")
	asJSON := fs.Bool("json", false, "print JSON")
	questions := fs.String("questions", "", "also write each question's outcome to this file, a JSON line each "+
		"(where each evidence turn ranked, recall at each k, the returned turns)")
	explain := fs.Bool("explain", false, "with --questions: add the returned items with their score parts")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *explain && *questions == "" {
		return usagef("--explain needs --questions FILE")
	}
	ks, err := locomo.ParseKs(*kflag)
	if err != nil {
		return usagef("--%v", err)
	}
	if *data == "" {
		if *data, err = cachedLocomo(ctx, env, *source); err != nil {
			return err
		}
	}
	set, err := locomo.Load(*data)
	if err != nil {
		return err
	}
	idx, err := locomo.ParseSamples(*samples, len(set))
	if err != nil {
		return usagef("--%v", err)
	}
	cfg, err := loadConfig(env, *configPath, nil)
	if err != nil {
		return err
	}
	log := newLogger(env.Stderr, "warn")
	svc, err := daemon.OpenBench(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer svc.Close()
	eng := svc.Recall
	opts := locomo.Options{Samples: idx, Ks: ks, Store: svc.Store, Consolidate: svc.Consolidate, Engine: eng, Logger: log}
	var qf *os.File
	var qerr error
	if *questions != "" {
		eng.Explain = *explain
		qf, err = os.OpenFile(*questions, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("create the questions file: %w", err)
		}
		defer qf.Close()
		enc := json.NewEncoder(qf)
		opts.Each = func(o locomo.Outcome) {
			if qerr == nil {
				qerr = enc.Encode(o.Line(ks[len(ks)-1]))
			}
		}
	}
	rep, err := locomo.Run(ctx, set, opts)
	if err != nil {
		return err
	}
	if qf != nil {
		if qerr == nil {
			qerr = qf.Close()
		}
		if qerr != nil {
			return fmt.Errorf("write the questions file %s: %w", *questions, qerr)
		}
	}
	if *asJSON {
		return printJSON(env.Stdout, rep)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "category\tn\t")
	for _, k := range ks {
		fmt.Fprintf(tw, "R@%d\t", k)
	}
	for _, k := range ks {
		fmt.Fprintf(tw, "tok@%d\t", k)
	}
	fmt.Fprintln(tw)
	row := func(name string, s locomo.Score) {
		fmt.Fprintf(tw, "%s\t%d\t", name, s.N)
		for _, k := range ks {
			fmt.Fprintf(tw, "%.1f\t", 100*s.Recall[fmt.Sprint(k)])
		}
		for _, k := range ks {
			fmt.Fprintf(tw, "%.0f\t", s.Tokens[fmt.Sprint(k)])
		}
		fmt.Fprintln(tw)
	}
	for _, c := range rep.CategoryKeys() {
		var n int
		fmt.Sscan(c, &n)
		row(c+" "+locomo.CategoryNames[n], rep.Categories[c])
	}
	row("overall", rep.Overall)
	tw.Flush()
	fmt.Fprintf(env.Stdout, "\nsamples %v, %d memories, %d questions without usable evidence skipped, %.1f s (ingest %.1f, consolidate %.1f, recall %.1f)\n",
		rep.Samples, rep.Memories, rep.Skipped, rep.Seconds, rep.Timing["ingest"], rep.Timing["consolidate"], rep.Timing["recall"])
	return nil
}

// cachedLocomo is the LoCoMo file in the user cache, downloaded from source
// first when it is not there yet, saying so and under which licence.
func cachedLocomo(ctx context.Context, env Env, source string) (string, error) {
	p, err := dataset.CachePath()
	if err != nil {
		return "", err
	}
	if dataset.Check(p) != nil {
		fmt.Fprintf(env.Stderr, "downloading the LoCoMo data (Snap Research, CC BY-NC 4.0: non-commercial use only) from %s into %s\n", source, p)
	}
	return dataset.Cached(ctx, &http.Client{Timeout: 5 * time.Minute}, source)
}
