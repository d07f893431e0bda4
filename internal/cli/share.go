package cli

import (
	"context"
	"fmt"

	"github.com/dormouse-dev/dormouse/client"
)

// shareBackend shares memories between agents, through the API's handler
// (in-process with --data), so the token and agent rules are the API's.
type shareBackend interface {
	ShareMemory(ctx context.Context, agent string, id int64, to string) (client.Shared, error)
}

func (f factAPI) ShareMemory(ctx context.Context, agent string, id int64, to string) (client.Shared, error) {
	sh, err := f.api.ShareMemory(ctx, agent, id, to)
	return sh, cliError(err)
}

// runShare copies one memory into another agent, naming where it came
// from: share [--agent AGENT] ID --to OTHER, or share AGENT ID --to OTHER.
func runShare(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "share", "[flags] [AGENT] ID --to OTHER   (ID: 12 or memory:12)")
	to := fs.String("to", "", "the agent to copy the memory into")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 2:
		c.agent, pos = pos[0], pos[1:]
	case 1:
	default:
		return usagef("share takes a memory id, after its agent or with --agent: share AGENT ID --to OTHER")
	}
	kind, id, err := parseRef(pos[0])
	if err != nil {
		return err
	}
	if kind != "memory" {
		return usagef("only a memory can be shared, not %s", pos[0])
	}
	if *to == "" {
		return usagef("share needs --to, the agent to copy the memory into")
	}
	b, err := c.open(ctx, env, true)
	if err != nil {
		return err
	}
	defer b.Close()
	sh, err := b.ShareMemory(ctx, c.agent, id, *to)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, sh)
	}
	verb := "shared"
	if sh.Existing {
		verb = "already shared"
	}
	fmt.Fprintf(env.Stdout, "%s %s as %s/memory:%d\n", verb, sh.SharedFrom, sh.Agent, sh.ID)
	return nil
}
