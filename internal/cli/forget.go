package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// runForget forgets memories and facts. A memory is deleted, taken out of
// the day record and facts that cited it, and its content said again later
// is stored flagged and never recalled; a fact is kept as rejected, so the
// same claim never comes back as current.
func runForget(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "forget", "[flags] ID... (ID, memory:ID or fact:ID)")
	facts := fs.Bool("fact", false, "bare ids are fact ids (as fact:ID)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("forget takes one or more ids: memory ids (12 or memory:12) or fact ids (fact:12, or --fact 12)")
	}
	type target struct {
		fact bool
		id   int64
	}
	targets := make([]target, len(pos))
	for i, p := range pos {
		t := target{fact: *facts}
		if rest, ok := strings.CutPrefix(p, "fact:"); ok {
			t.fact, p = true, rest
		} else if rest, ok := strings.CutPrefix(p, "memory:"); ok {
			t.fact, p = false, rest
		}
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil || id <= 0 {
			return usagef("%q is not an id (a positive integer, memory:ID or fact:ID)", pos[i])
		}
		t.id = id
		targets[i] = t
	}
	b, err := c.open(ctx, env, true)
	if err != nil {
		return err
	}
	defer b.Close()
	var errs []error
	forgotten, rejected := []int64{}, []int64{}
	for _, t := range targets {
		if t.fact {
			if err := b.RejectFact(ctx, c.agent, t.id); err != nil {
				errs = append(errs, fmt.Errorf("fact:%d: %w", t.id, err))
				continue
			}
			rejected = append(rejected, t.id)
			continue
		}
		if err := b.Delete(ctx, c.agent, t.id); err != nil {
			errs = append(errs, fmt.Errorf("memory:%d: %w", t.id, err))
			continue
		}
		forgotten = append(forgotten, t.id)
	}
	if c.json {
		if err := printJSON(env.Stdout, map[string]any{"forgotten": forgotten, "rejected_facts": rejected}); err != nil {
			return err
		}
	} else {
		for _, id := range forgotten {
			fmt.Fprintf(env.Stdout, "forgot memory:%d\n", id)
		}
		for _, id := range rejected {
			fmt.Fprintf(env.Stdout, "forgot fact:%d (kept as rejected)\n", id)
		}
	}
	return errors.Join(errs...)
}
