package cli

import (
	"context"
	"errors"

	"github.com/dormouse-dev/dormouse/internal/eval"
)

// errEvalFailed is a finished evaluation that did not pass: exit code 1
// after the report.
var errEvalFailed = errors.New("some probes failed or leak (see the report)")

func runEval(ctx context.Context, env Env, args []string) error {
	fs := newFlags(env, "eval", "--scenarios DIR [--json]")
	configPath := fs.String("config", "", "configuration file: the recall, consolidation and LLM settings to evaluate (default "+
		"/etc/dormouse/dormouse.yaml if it exists; env DORMOUSE_CONFIG)")
	dir := fs.String("scenarios", "", "directory of scenario *.yaml files (required)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if *dir == "" {
		return usagef("--scenarios DIR is required")
	}
	cfg, err := loadConfig(env, *configPath, nil)
	if err != nil {
		return err
	}
	scs, err := eval.LoadDir(*dir, cfg.Location())
	if err != nil {
		return usagef("%v", err)
	}
	r := &eval.Runner{Config: cfg, Environ: env.Environ, Logger: newLogger(env.Stderr, "warn")}
	rep := r.RunAll(ctx, scs)
	if *asJSON {
		err = printJSON(env.Stdout, rep)
	} else {
		err = rep.WriteText(env.Stdout)
	}
	if err != nil {
		return err
	}
	if !rep.Passed() {
		return errEvalFailed
	}
	return nil
}
