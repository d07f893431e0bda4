package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// agentsSynopsis follows "Usage: dormouse agents" in agents --help and
// agents help: the verbs, then what each does.
const agentsSynopsis = `[list] [flags]
       dormouse agents create NAME [flags]
       dormouse agents delete NAME --yes [flags]

list prints the agents. create makes an agent (the only way with agents.create: explicit, and after a
delete). delete takes a verified backup of the agent, then removes it and its files; nothing recreates
it until it is created again. Run 'dormouse agents VERB --help' for a verb's flags.`

// runAgentVerbs is `dormouse agents`: the list without a verb (as before
// verbs), or list, create, delete.
func runAgentVerbs(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "create" && args[0] != "delete" && args[0] != "list" && args[0] != "help" {
		return runAgents(ctx, env, args)
	}
	switch args[0] {
	case "list":
		return runAgents(ctx, env, args[1:])
	case "create":
		return runAgentCreate(ctx, env, args[1:])
	case "delete":
		return runAgentDelete(ctx, env, args[1:])
	}
	fmt.Fprintln(env.Stdout, "Usage: dormouse agents "+agentsSynopsis)
	return nil
}

// api is the API the agents, export and import commands call: the daemon
// over HTTP, or with --data the same handlers in-process over the agent
// files, so both obey one set of rules.
type api struct {
	cl   *client.Client
	loc  *time.Location // the configured timezone: the days' boundaries
	done func()         // closes what openAPI opened
}

func (c *common) openAPI(ctx context.Context, env Env, write bool) (api, error) {
	flags := map[string]string{}
	if c.data != "" {
		flags["data_dir"] = c.data
	}
	cfg, err := loadConfig(env, c.configPath, flags)
	if err != nil {
		return api{}, err
	}
	if c.data == "" {
		return api{cl: c.remoteClient(env, cfg.Listen), loc: cfg.Location(), done: func() {}}, nil
	}
	s, err := openData(ctx, env, cfg, write)
	if err != nil {
		return api{}, err
	}
	return api{cl: daemon.InProcessClient(s.API()), loc: cfg.Location(), done: func() { _ = s.Close() }}, nil
}

// remoteClient is a client of the daemon at --addr, DORMOUSE_ADDR or the
// configured listen address, with DORMOUSE_TOKEN.
func (c *common) remoteClient(env Env, listen string) *client.Client {
	opts := append(tokenOption(env), client.WithUserAgent("dormouse-cli/"+Version))
	return client.New(daemonAddr(env, c.addr, listen), opts...)
}

// openNamed parses the flags of agents create or delete (verb) and its one
// NAME, and opens the API.
func (c *common) openNamed(ctx context.Context, env Env, fs *flag.FlagSet, verb string, args []string) (string, api, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", api{}, err
	}
	if len(pos) != 1 {
		return "", api{}, usagef("agents %s takes one agent name, got %d arguments", verb, len(pos))
	}
	if err := store.ValidateAgentName(pos[0]); err != nil {
		return "", api{}, usagef("%v", err)
	}
	a, err := c.openAPI(ctx, env, true)
	return pos[0], a, err
}

func runAgentCreate(ctx context.Context, env Env, args []string) error {
	fs, c := hostCommand(env, "agents create", "NAME [flags]")
	name, api, err := c.openNamed(ctx, env, fs, "create", args)
	if err != nil {
		return err
	}
	defer api.done()
	res, err := api.cl.CreateAgent(ctx, name)
	switch {
	case err != nil:
		return err
	case c.json:
		return printJSON(env.Stdout, res)
	case res.Created:
		fmt.Fprintf(env.Stdout, "created agent %s\n", name)
	default:
		fmt.Fprintf(env.Stdout, "agent %s exists already\n", name)
	}
	return nil
}

func runAgentDelete(ctx context.Context, env Env, args []string) error {
	fs, c := hostCommand(env, "agents delete", "NAME --yes [flags]")
	yes := fs.Bool("yes", false, "really delete (a verified backup is taken first)")
	name, api, err := c.openNamed(ctx, env, fs, "delete", args)
	if err != nil {
		return err
	}
	defer api.done()
	if !*yes {
		return refuseWithoutYes(ctx, api.cl, name)
	}
	res, err := api.cl.DeleteAgent(ctx, name)
	switch {
	case err != nil:
		return err
	case c.json:
		return printJSON(env.Stdout, res)
	}
	fmt.Fprintf(env.Stdout, "deleted agent %s; its backup is %s (restore it with: dormouse restore --agent %s)\n",
		name, res.Backup, name)
	return nil
}

// refuseWithoutYes says what a delete would remove, and removes nothing.
func refuseWithoutYes(ctx context.Context, cl *client.Client, name string) error {
	st, err := cl.Stats(ctx, name)
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && client.IsNotFound(err) {
			return fmt.Errorf("no agent %q to delete: %s", name, ae.Message)
		}
		return err
	}
	return usagef("this would delete agent %s: %d memories, %d day records and %d facts, and its files "+
		"(a verified backup is taken first); run again with --yes to delete it",
		name, st.Memories, st.Consolidations, st.Facts)
}
