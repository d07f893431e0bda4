package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/text"
)

func runServe(ctx context.Context, env Env, args []string) error {
	fs := newFlags(env, "serve", "[--config FILE] [--addr HOST:PORT] [--data DIR]")
	configPath := fs.String("config", "", "configuration file (default "+"/etc/dormouse/dormouse.yaml if it exists; env DORMOUSE_CONFIG)")
	addr := fs.String("addr", "", "listen address host:port (config key listen)")
	data := fs.String("data", "", "data directory (config key data_dir)")
	level := fs.String("log-level", "", "debug, info, warn or error (config key log_level)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	flags := map[string]string{}
	for key, v := range map[string]string{"listen": *addr, "data_dir": *data, "log_level": *level} {
		if v != "" {
			flags[key] = v
		}
	}
	load := func() (config.Config, error) { return loadConfig(env, *configPath, flags) }
	cfg, err := load()
	if err != nil {
		return err
	}
	reload := daemon.Reload{Load: load}
	if env.Notify != nil {
		hup := make(chan os.Signal, 1)
		env.Notify(hup, syscall.SIGHUP)
		reload.Hangups = hup
	}
	return daemon.RunWithReload(ctx, cfg, env.Environ, envLogger(env, cfg.LogLevel), reload)
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func parseTimeFlag(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, usagef("--%s: %q is not an RFC 3339 time such as 2026-02-01T14:30:00Z", name, v)
	}
	return t, nil
}

func runIngest(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "ingest", "[flags] [TEXT...]   (no TEXT: read it from stdin)")
	in := capture.Input{}
	fs.StringVar(&in.SessionID, "session-id", "", "session id")
	fs.StringVar(&in.Role, "role", "", "role (user, assistant, tool, note...)")
	fs.StringVar(&in.InteractionType, "interaction-type", "", "interaction type")
	fs.StringVar(&in.Source, "source", "cli", "source")
	importance := fs.String("importance", "", "importance 0..1 (default: derived from the text)")
	at := fs.String("timestamp", "", "when it happened, RFC 3339 (default now)")
	oldName(fs, "session", "session-id")
	oldName(fs, "type", "interaction-type")
	oldName(fs, "at", "timestamp")
	file := fs.String("file", "", "ingest this file through the file pipeline (.md .txt .pdf ...) instead of text")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *file != "" {
		if len(pos) > 0 {
			return usagef("--file takes no text arguments, got %q", pos)
		}
		return ingestFile(ctx, env, c, *file)
	}
	if len(pos) > 0 && !(len(pos) == 1 && pos[0] == "-") {
		in.Content = strings.Join(pos, " ")
	} else {
		b, err := io.ReadAll(io.LimitReader(env.Stdin, 16<<20))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		in.Content = strings.TrimRight(string(b), "\r\n") // echo's newline is not part of what was said
	}
	if strings.TrimSpace(in.Content) == "" {
		return usagef("nothing to ingest: give the text as arguments or on stdin")
	}
	if *importance != "" {
		v, err := strconv.ParseFloat(*importance, 64)
		if err != nil || v < 0 || v > 1 {
			return usagef("--importance must be a number from 0 to 1, got %q", *importance)
		}
		in.Importance = &v
	}
	if _, err := parseTimeFlag(givenAs(fs, "timestamp"), *at); err != nil {
		return err
	}
	in.Timestamp = *at
	b, err := c.open(ctx, env, true)
	if err != nil {
		return err
	}
	defer b.Close()
	res, err := b.Ingest(ctx, c.agent, []capture.Input{in})
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, map[string]any{"results": res})
	}
	for _, r := range res {
		if r.Duplicate {
			fmt.Fprintf(env.Stdout, "already stored as memory:%d\n", r.ID)
		} else {
			fmt.Fprintf(env.Stdout, "stored memory:%d\n", r.ID)
		}
	}
	return nil
}

// putQuery validates req, opens the backend for reading and puts req to it
// with call: backend.Recall or backend.Ask.
func putQuery[T any](ctx context.Context, env Env, c *common, req recall.Request,
	call func(backend, context.Context, string, recall.Request) (T, error)) (T, error) {
	var zero T
	if _, err := req.Parse(); err != nil {
		return zero, usagef("%v", err)
	}
	b, err := c.open(ctx, env, false)
	if err != nil {
		return zero, err
	}
	defer b.Close()
	return call(b, ctx, c.agent, req)
}

// recallWindowFlags registers the request flags recall and ask share: the
// token budget, the time window and the session.
func recallWindowFlags(fs *flag.FlagSet, req *recall.Request) {
	fs.IntVar(&req.BudgetTokens, "budget-tokens", 0, "token budget for the context (default: configured, 1000)")
	fs.StringVar(&req.Since, "since", "", "only memories from this time on, RFC 3339")
	fs.StringVar(&req.Until, "until", "", "only memories up to this time, RFC 3339")
	fs.StringVar(&req.SessionID, "session-id", "", "only this session's memories")
	oldName(fs, "budget", "budget-tokens")
	oldName(fs, "session", "session-id")
}

func runRecall(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "recall", "[flags] QUERY")
	var req recall.Request
	recallWindowFlags(fs, &req)
	fs.IntVar(&req.K, "k", 0, "maximum number of items (default: configured, 10)")
	fs.StringVar(&req.AsOf, "as-of", "", "answer as of this time, RFC 3339: nothing newer is used")
	fs.StringVar(&req.Role, "role", "", "only memories with this role (who said it)")
	fs.StringVar(&req.Source, "source", "", "only memories from this source")
	fs.StringVar(&req.Entity, "entity", "", "only memories naming this entity")
	fs.BoolVar(&req.Explain, "explain", false, "show why each item ranked where it did (score parts)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	req.Query = strings.Join(pos, " ")
	res, err := putQuery(ctx, env, c, req, backend.Recall)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, res)
	}
	if len(res.Items) == 0 {
		fmt.Fprintln(env.Stdout, "(nothing recalled)")
		if res.Note != "" {
			fmt.Fprintln(env.Stderr, "note:", res.Note)
		}
		return nil
	}
	fmt.Fprintln(env.Stdout, res.Context)
	if req.Explain {
		fmt.Fprintln(env.Stdout)
		for _, it := range res.Items {
			if x := it.Explain; x != nil {
				fmt.Fprintf(env.Stdout, "%-18s %.3f =%s\n", it.ID, x.Total, explainParts(x))
			}
		}
	}
	if res.Note != "" {
		fmt.Fprintln(env.Stderr, "note:", res.Note)
	}
	return nil
}

func runList(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "list", "[flags]")
	since := fs.String("since", "", "from this time on, RFC 3339")
	until := fs.String("until", "", "up to this time, RFC 3339")
	var o client.ListOptions
	fs.StringVar(&o.SessionID, "session-id", "", "only this session")
	fs.IntVar(&o.Limit, "limit", 50, "memories per page (1-1000)")
	fs.StringVar(&o.Cursor, "cursor", "", "continue from a previous page's cursor")
	oldName(fs, "session", "session-id")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if o.Limit < 1 || o.Limit > 1000 {
		return usagef("--limit must be from 1 to 1000")
	}
	var err error
	if o.Since, err = parseTimeFlag("since", *since); err != nil {
		return err
	}
	if o.Until, err = parseTimeFlag("until", *until); err != nil {
		return err
	}
	b, err := c.open(ctx, env, false)
	if err != nil {
		return err
	}
	defer b.Close()
	mems, next, err := b.List(ctx, c.agent, o)
	if err != nil {
		return err
	}
	if c.json {
		out := map[string]any{"memories": mems}
		if next != "" {
			out["next_cursor"] = next
		}
		return printJSON(env.Stdout, out)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	for _, m := range mems {
		summary := m.Summary
		if m.Flagged { // forgotten before: kept, never recalled
			summary = "[flagged] " + summary
		}
		fmt.Fprintf(tw, "memory:%d\t%s\t%s\t%s\n", m.ID, m.Timestamp.Format("2006-01-02 15:04"), m.Role, summary)
	}
	tw.Flush()
	if next != "" {
		fmt.Fprintf(env.Stdout, "more: %s\n", rerun(fs, "cursor", next))
	}
	return nil
}

func runShow(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "show", "[flags] ID   (12 or memory:12, fact:12, consolidation:12, profile:12)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("show takes one id: a memory (12 or memory:12), a fact (fact:12), a day record (consolidation:12) or a profile line (profile:12)")
	}
	kind, id, err := parseRef(pos[0])
	if err != nil {
		return err
	}
	b, err := c.open(ctx, env, false)
	if err != nil {
		return err
	}
	defer b.Close()
	var v any
	switch kind {
	case "fact":
		v, err = b.Fact(ctx, c.agent, id)
	case "consolidation":
		v, err = b.Consolidation(ctx, c.agent, id)
	case "profile":
		v, err = b.ProfileLine(ctx, c.agent, id)
	default:
		v, err = b.Get(ctx, c.agent, id)
	}
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, v)
	}
	switch v := v.(type) {
	case client.Fact:
		showFact(env.Stdout, v)
	case client.Consolidation:
		showConsolidation(env.Stdout, v)
	case client.ProfileLine:
		showProfileLine(env.Stdout, v)
	case client.Memory:
		showMemory(env.Stdout, v)
	}
	return nil
}

func showMemory(w io.Writer, m client.Memory) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "id:\tmemory:%d\n", m.ID)
	fmt.Fprintf(tw, "time:\t%s\n", m.Timestamp.Format(time.RFC3339))
	for _, kv := range [][2]string{{"session:", m.SessionID}, {"role:", m.Role}, {"type:", m.InteractionType}, {"source:", m.Source}, {"summary:", m.Summary}} {
		if kv[1] != "" {
			fmt.Fprintf(tw, "%s\t%s\n", kv[0], kv[1])
		}
	}
	fmt.Fprintf(tw, "importance:\t%.2f\n", m.Importance)
	if m.Flagged {
		fmt.Fprintln(tw, "flagged:\tyes: said before and forgotten; never recalled or consolidated")
	}
	if m.SharedFrom != nil {
		fmt.Fprintf(tw, "shared from:\t%s (forgetting it there forgets this copy)\n", m.SharedFrom)
	}
	if m.SupersededBy != nil {
		fmt.Fprintf(tw, "superseded by:\tmemory:%d (a newer value; offered only to questions asked before it)\n", *m.SupersededBy)
	}
	var ents []string
	for _, e := range m.Entities {
		ents = append(ents, e.Text+" ("+e.Type+")")
	}
	if len(ents) > 0 {
		fmt.Fprintf(tw, "entities:\t%s\n", strings.Join(ents, ", "))
	}
	if len(m.Topics) > 0 {
		fmt.Fprintf(tw, "topics:\t%s\n", strings.Join(m.Topics, ", "))
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", m.Content)
}

// openAgents parses the flags of a command about every agent (it takes no
// arguments), opens the backend for reading and lists its agents; the
// caller closes the backend.
func (c *common) openAgents(ctx context.Context, env Env, fs *flag.FlagSet, args []string) (backend, []string, error) {
	if err := parseNone(fs, args); err != nil {
		return nil, nil, err
	}
	b, err := c.open(ctx, env, false)
	if err != nil {
		return nil, nil, err
	}
	names, err := b.Agents(ctx)
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	return b, names, nil
}

func runAgents(ctx context.Context, env Env, args []string) error {
	fs, c := hostCommand(env, "agents", agentsSynopsis)
	b, names, err := c.openAgents(ctx, env, fs, args)
	if err != nil {
		return err
	}
	defer b.Close()
	if c.json {
		return printJSON(env.Stdout, map[string]any{"agents": nonNil(names)})
	}
	for _, n := range names {
		fmt.Fprintln(env.Stdout, n)
	}
	return nil
}

func runStatus(ctx context.Context, env Env, args []string) error {
	fs, c := hostCommand(env, "status", "[flags]   (health, host and agents: from the daemon's /health, or from the files with --data)")
	b, names, err := c.openAgents(ctx, env, fs, args)
	if err != nil {
		return err
	}
	defer b.Close()
	type agentStatus struct {
		Name  string        `json:"name"`
		Stats *client.Stats `json:"stats,omitempty"`
		Error string        `json:"error,omitempty"`
	}
	var out []agentStatus
	var failed error
	for _, n := range names {
		st, err := b.Stats(ctx, n)
		if err != nil {
			out = append(out, agentStatus{Name: n, Error: err.Error()})
			failed = fmt.Errorf("agent %q: %w", n, err)
			continue
		}
		out = append(out, agentStatus{Name: n, Stats: &st})
	}
	rep, herr := b.Health(ctx)
	if c.json {
		doc := map[string]any{"agents": nonNil(out), "health": rep}
		if herr != nil {
			doc = map[string]any{"agents": nonNil(out), "health_error": herr.Error()}
		}
		if err := printJSON(env.Stdout, doc); err != nil {
			return err
		}
		return failed
	}
	if herr != nil {
		fmt.Fprintf(env.Stdout, "health: unknown (%v)\n", herr)
	} else {
		printHealth(env.Stdout, rep)
	}
	if len(out) == 0 {
		fmt.Fprintln(env.Stdout, "no agents yet")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tMEMORIES\tBACKLOG\tFACTS\tLAST CONSOLIDATED\tDB\tWAL")
	for _, a := range out {
		if a.Error != "" {
			fmt.Fprintf(tw, "%s\terror: %s\n", a.Name, a.Error)
			continue
		}
		st := a.Stats
		last := st.LastConsolidated
		if last == "" {
			last = "never"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\n", a.Name, st.Memories, st.Unconsolidated,
			st.CurrentFacts, last, text.Size(st.DBBytes), text.Size(st.WALBytes))
	}
	tw.Flush()
	printFailingFiles(ctx, env, b) // files of watched folders that failed, if any
	return failed
}

// explainParts lists an item's score parts: relevance, coverage, importance
// and recency always, the others when they count.
func explainParts(x *client.Explain) string {
	var b strings.Builder
	for _, p := range []struct {
		name   string
		v      float64
		always bool
	}{
		{"relevance", x.Relevance, true}, {"expansion", x.Expansion, false}, {"by_kind", x.ByKind, false},
		{"coverage", x.Coverage, true}, {"importance", x.Importance, true}, {"use", x.Use, false},
		{"recency", x.Recency, true}, {"informative", x.Informative, false}, {"speaker", x.Speaker, false},
		{"entity", x.Entity, false}, {"in_range", x.InRange, false}, {"neighbour", x.Neighbour, false},
		{"day_record", x.DayRecord, false}, {"context", x.Context, false}, {"semantic", x.Semantic, false},
		{"asks", x.Asks, false},
	} {
		if p.always || p.v != 0 {
			fmt.Fprintf(&b, " %s %.2f", p.name, p.v)
		}
	}
	if x.Pinned {
		b.WriteString(" pinned")
	}
	return b.String()
}
