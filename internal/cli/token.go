package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func runToken(ctx context.Context, env Env, args []string) error {
	const synopsis = "--name NAME [--agents a,b | --agents '*'] [--access read|write]"
	sub, rest, ok, err := splitVerb(env, args, "Usage: dormouse token new "+synopsis+"\n"+
		"\nDraws a bearer token, prints it once, and prints the auth.tokens entry that holds its SHA-256.",
		"name a token command (new)")
	if !ok {
		return err
	}
	if sub != "new" {
		return usagef("unknown token command %q (known: new)", sub)
	}
	fs := newFlags(env, "token new", synopsis)
	name := fs.String("name", "", "what logs call the token, such as assistant; required")
	agents := fs.String("agents", "", "comma-separated agents the token may use, or * for every agent; required")
	access := fs.String("access", "read", "read (list, show, recall, ask) or write (also store, forget, consolidate)")
	if err := parseNone(fs, rest); err != nil {
		return err
	}
	if *name == "" || strings.ContainsAny(*name, "\n\r\"") {
		return usagef("--name NAME is required (a single line, no quotes)")
	}
	var list []string
	for a := range strings.SplitSeq(*agents, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if a != "*" {
			if err := store.ValidateAgentName(a); err != nil {
				return usagef("--agents: %v", err)
			}
		}
		list = append(list, a)
	}
	if len(list) == 0 {
		return usagef("--agents is required: the agents the token may use, or '*' for every agent")
	}
	if *access != "read" && *access != "write" {
		return usagef("--access: want read or write, got %q", *access)
	}
	tok, err := auth.NewToken()
	if err != nil {
		return err
	}
	quoted := make([]string, len(list))
	for i, a := range list {
		quoted[i] = strconv.Quote(a)
	}
	fmt.Fprintf(env.Stderr, "The token, shown only now: give it to the agent (Authorization: Bearer TOKEN, or DORMOUSE_TOKEN for the CLI):\n")
	fmt.Fprintln(env.Stdout, tok)
	fmt.Fprintf(env.Stderr, "\nAdd this entry under auth.tokens in /etc/dormouse/dormouse.yaml, then restart the service:\n\n"+
		"  - name: %s\n    sha256: %s\n    agents: [%s]\n    access: %s\n",
		strconv.Quote(*name), auth.Hash(tok), strings.Join(quoted, ", "), *access)
	return nil
}
