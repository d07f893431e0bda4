package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// runMCP serves MCP over stdin and stdout, for Claude Code and other MCP
// clients that start their servers as commands. Its tools call the daemon's
// API (--addr, the default) or, with --data, the same API in-process over the
// agent files. Logs go to stderr: stdout is the protocol's.
func runMCP(ctx context.Context, env Env, args []string) error {
	fs := newFlags(env, "mcp", "[--addr HOST:PORT | --data DIR] [--agent NAME]")
	var configPath, addr, data, agent string
	fs.StringVar(&configPath, "config", "", "configuration file (default /etc/dormouse/dormouse.yaml if it exists; env DORMOUSE_CONFIG)")
	fs.StringVar(&addr, "addr", "", "daemon address host:port (env DORMOUSE_ADDR; default: the configured listen address)")
	fs.StringVar(&data, "data", "", "serve the agent files in this data directory directly, without a daemon")
	fs.StringVar(&agent, "agent", "", "use only this agent (tools then take no agent argument); default: the agent is chosen per call, \"main\" when none is named")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if addr != "" && data != "" {
		return usagef("give --addr or --data, not both")
	}
	if agent != "" {
		if err := store.ValidateAgentName(agent); err != nil {
			return usagef("--agent: %v", err)
		}
	}
	flags := map[string]string{}
	if data != "" {
		flags["data_dir"] = data
	}
	cfg, err := loadConfig(env, configPath, flags)
	if err != nil {
		return err
	}
	log := newLogger(env.Stderr, cfg.LogLevel)
	opts := mcpserver.Options{Agent: agent, Version: Version, Logger: log}

	var cl *client.Client
	if data != "" {
		if err := refuseRootWrite(env, data); err != nil {
			return err
		}
		s, err := mcpOnFiles(ctx, env, cfg, log)
		if err != nil {
			return err
		}
		defer s.Close()
		cl, opts.Where = daemon.InProcessClient(s.API()), "the agent files in "+data
	} else {
		cl, opts.Where = mcpToDaemon(ctx, env, cfg, log, addr)
	}
	log.Debug("serving MCP over stdio", "where", opts.Where, "agent", agent)
	err = mcpserver.New(cl, opts).Run(ctx, mcpserver.Stdio(env.Stdin, env.Stdout))
	switch {
	case err == nil, errors.Is(err, io.EOF), ctx.Err() != nil:
		return nil // the client closed stdin, or we were told to stop
	default:
		log.LogAttrs(ctx, slog.LevelDebug, "mcp session ended", slog.Any("err", err))
		return err
	}
}

// mcpOnFiles opens the services the in-process API serves the tools from:
// the daemon's, so the tools answer and recall as its /mcp does.
func mcpOnFiles(ctx context.Context, env Env, cfg config.Config, log *slog.Logger) (*daemon.Services, error) {
	s, err := daemon.Open(ctx, cfg, env.Environ, log)
	if err != nil {
		return nil, err
	}
	if s.ConsolidateErr != nil {
		log.Warn("consolidation unavailable", "err", s.ConsolidateErr)
	}
	if s.AnswerErr != nil {
		log.Warn("answers are extractive: the LLM is unavailable", "err", s.AnswerErr)
	}
	return s, nil
}

// mcpToDaemon is the client of the daemon at addr, DORMOUSE_ADDR or the
// configured listen address, and where that is.
func mcpToDaemon(ctx context.Context, env Env, cfg config.Config, log *slog.Logger, addr string) (*client.Client, string) {
	addr = daemonAddr(env, addr, cfg.Listen)
	cl := client.New(addr, append(tokenOption(env), client.WithUserAgent("dormouse-mcp/"+Version))...)
	// An MCP client may start before the daemon: say so, but serve anyway;
	// each tool call reports whether the daemon can be reached.
	if err := cl.Healthz(ctx); err != nil {
		log.Warn("the daemon does not answer yet", "addr", addr, "err", err)
	}
	return cl, "the Dormouse daemon at " + addr
}
