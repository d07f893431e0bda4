package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/doctor"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/replicate"
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runDoctor(ctx context.Context, env Env, args []string) error {
	fs, l := filesCommand(env, "doctor", "[--config FILE] [--data DIR] [--watch DIR]... [--json]")
	var watch stringList
	fs.Var(&watch, "watch", "a folder the daemon must read (repeatable): checks the sandbox shows it")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	var checks []doctor.Check
	cfg, err := l.load(env)
	if err != nil {
		checks = append(checks, doctor.Check{Name: "config", Status: doctor.Fail, Detail: err.Error(),
			Fix: "fix the setting named above in " + configFile(env, l.configPath) + " (every key is documented there), then sudo systemctl restart dormouse"})
	} else {
		checks = append(checks, doctor.Check{Name: "config", Status: doctor.OK, Detail: "loaded " + configFile(env, l.configPath)})
		log := newLogger(env.Stderr, "error")
		lc := daemon.LLMConfig(cfg, env.Environ, log)
		checks = append(checks, doctor.Run(ctx, doctor.Options{
			Config:         cfg,
			Store:          daemon.StoreOptions(cfg, log),
			Environ:        env.Environ,
			Euid:           env.Euid,
			WatchedFolders: watch,
			ProbeProvider:  func(ctx context.Context) error { return llm.Probe(ctx, lc, nil) },
			NotProbed:      llm.ErrNotProbed,
			ListModels:     func(ctx context.Context) ([]string, error) { return llm.Models(ctx, lc, nil) },
			ProbeReplica:   probeReplica(cfg, env.Environ),
			ReplicaTarget:  daemon.ReplicationTarget(cfg).Redacted(),
			ReplicaStaging: replicate.NewLayout(cfg.DataDir).StagingBytes(),
			WantModels:     wantModels(cfg),
		})...)
	}
	if l.json {
		if err := printJSON(env.Stdout, map[string]any{"checks": checks, "failed": doctor.Failed(checks)}); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			fmt.Fprintf(env.Stdout, "%-4s  %-28s %s\n", strings.ToUpper(c.Status), c.Name, c.Detail)
			if c.Fix != "" && c.Status != doctor.OK {
				for _, line := range strings.Split(strings.TrimRight(c.Fix, "\n"), "\n") {
					fmt.Fprintf(env.Stdout, "      %-28s → %s\n", "", line)
				}
			}
		}
	}
	n := 0
	for _, c := range checks {
		if c.Status == doctor.Fail {
			n++
		}
	}
	if n > 0 {
		return errors.New(fmt.Sprint(n, " check(s) failed"))
	}
	return nil
}

// configFile names the file the configuration came from, for messages.
func configFile(env Env, flagPath string) string {
	switch {
	case flagPath != "":
		return flagPath
	case env.getenv("DORMOUSE_CONFIG") != "":
		return env.getenv("DORMOUSE_CONFIG")
	}
	if _, err := os.Stat(config.DefaultPath); err == nil {
		return config.DefaultPath
	}
	return "the built-in defaults (no " + config.DefaultPath + ")"
}

// wantModels are the models the configuration asks the provider for.
func wantModels(cfg config.Config) []string {
	model := cmp.Or(cfg.LLM.Model, llm.DefaultModel(cfg.LLM.Provider))
	want := []string{model}
	if cfg.LLM.Vision {
		want = append(want, cmp.Or(cfg.LLM.VisionModel, model))
	}
	if cfg.Recall.Embeddings.Enabled {
		want = append(want, cmp.Or(cfg.Recall.Embeddings.Model, llm.DefaultEmbeddingModel(cfg.LLM.Provider)))
	}
	return want
}

// probeReplica is doctor's look at the replicas: Litestream's binary is
// found and the target lists; nil without replication.url.
func probeReplica(cfg config.Config, environ []string) func(ctx context.Context) error {
	if cfg.Replication.URL == "" {
		return nil
	}
	return func(ctx context.Context) error {
		if _, err := replicate.FindBinary(cfg.Replication.Litestream); err != nil {
			return err
		}
		_, err := replicate.Agents(ctx, daemon.ReplicationTarget(cfg), replicate.Environ(environ))
		return err
	}
}
