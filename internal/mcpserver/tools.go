package mcpserver

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// Arguments of the tools. Descriptions become the JSON schemas' and are what
// a model reads to decide how to call.

type rememberArgs struct {
	Agent      string   `json:"agent,omitempty"`
	Content    string   `json:"content" jsonschema:"what to remember: one self-contained statement in plain words, e.g. 'Bob moved to Lisbon in February 2026'"`
	Role       string   `json:"role,omitempty" jsonschema:"who said or did it: user, assistant, tool… (default user)"`
	SessionID  string   `json:"session_id,omitempty" jsonschema:"the conversation or task it belongs to, to recall or list it together"`
	Importance *float64 `json:"importance,omitempty" jsonschema:"0 to 1: how much it matters later; estimated from the text when left out"`
	Timestamp  string   `json:"timestamp,omitempty" jsonschema:"when it happened, RFC 3339 such as 2026-03-01T09:30:00Z (default now)"`
	Source     string   `json:"source,omitempty" jsonschema:"where it came from, e.g. a file or URL (default mcp)"`
}

type recallArgs struct {
	Agent        string `json:"agent,omitempty"`
	Query        string `json:"query" jsonschema:"the question or topic, in natural language; names and specific words match best"`
	BudgetTokens int    `json:"budget_tokens,omitempty" jsonschema:"the most tokens of context to return (default: the server's, usually 1000)"`
	K            int    `json:"k,omitempty" jsonschema:"the most items to return (default 10)"`
	Since        string `json:"since,omitempty" jsonschema:"only memories from this time on, RFC 3339"`
	Until        string `json:"until,omitempty" jsonschema:"only memories up to this time, RFC 3339"`
	AsOf         string `json:"as_of,omitempty" jsonschema:"answer as of this time, RFC 3339: nothing newer is returned"`
	SessionID    string `json:"session_id,omitempty" jsonschema:"only this session's memories"`
}

// recallRequest is the request recall and ask send: the query and a's
// budget, filters and times (RFC 3339, checked).
func recallRequest(query string, a recallArgs) (client.RecallRequest, error) {
	req := client.RecallRequest{Query: query, BudgetTokens: a.BudgetTokens, K: a.K, SessionID: a.SessionID}
	for _, f := range []struct {
		name, v string
		dst     *time.Time
	}{{"since", a.Since, &req.Since}, {"until", a.Until, &req.Until}, {"as_of", a.AsOf, &req.AsOf}} {
		var err error
		if *f.dst, err = parseTime(f.name, f.v); err != nil {
			return req, err
		}
	}
	return req, nil
}

type listArgs struct {
	Agent     string `json:"agent,omitempty"`
	Limit     int    `json:"limit,omitempty" jsonschema:"how many memories, newest first (default 20)"`
	Since     string `json:"since,omitempty" jsonschema:"only memories from this time on, RFC 3339"`
	Until     string `json:"until,omitempty" jsonschema:"only memories before this time, RFC 3339"`
	SessionID string `json:"session_id,omitempty" jsonschema:"only this session's memories"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"the next_cursor of a previous call, for the next page"`
}

type factsArgs struct {
	Agent   string `json:"agent,omitempty"`
	Entity  string `json:"entity,omitempty" jsonschema:"only the facts about this entity (a person, project, thing), e.g. 'Alice'"`
	History bool   `json:"history,omitempty" jsonschema:"include superseded and rejected facts, to see what changed and when"`
	AsOf    string `json:"as_of,omitempty" jsonschema:"the facts that held at this time, RFC 3339"`
	Limit   int    `json:"limit,omitempty" jsonschema:"the most facts to return (default 100)"`
}

type forgetArgs struct {
	Agent string `json:"agent,omitempty"`
	ID    string `json:"id" jsonschema:"the citation of what to forget: memory:42 deletes that memory; fact:7 rejects that fact, which stays rejected even if the claim comes again"`
}

type shareArgs struct {
	Agent string `json:"agent,omitempty"`
	ID    string `json:"id" jsonschema:"the memory to share, as cited: memory:42"`
	To    string `json:"to" jsonschema:"the agent to copy it into, e.g. household"`
}

type consolidateArgs struct {
	Agent  string `json:"agent,omitempty"`
	Date   string `json:"date,omitempty" jsonschema:"rebuild this one day, YYYY-MM-DD (today included)"`
	Since  string `json:"since,omitempty" jsonschema:"consolidate the days from this date (YYYY-MM-DD) to yesterday; without date or since, every past day not yet consolidated"`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"only say what would be done, and what it would cost"`
}

type statusArgs struct {
	Agent string `json:"agent,omitempty"`
}

const agentPattern = `^[a-z0-9][a-z0-9_-]{0,63}$`

// schema infers the schema of the arguments' type t, applies the server's
// agent rule and edit, and leaves the names in optional out of required.
func (s *Server) schema(t reflect.Type, edit func(props map[string]*jsonschema.Schema), optional []string) *jsonschema.Schema {
	sc, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", t, err)) // a programming error, found by every test
	}
	if s.opts.Agent != "" {
		delete(sc.Properties, "agent")
	} else if a := sc.Properties["agent"]; a != nil {
		a.Description = fmt.Sprintf("the agent whose memory to use (default %q): 1-64 of a-z, 0-9, '_' and '-'", s.opts.DefaultAgent)
		a.Pattern = agentPattern
	}
	sc.Required = slices.DeleteFunc(sc.Required, func(n string) bool { return slices.Contains(optional, n) })
	if edit != nil {
		edit(sc.Properties)
	}
	return sc
}

func ptr[T any](v T) *T { return &v }

func bounds(p *jsonschema.Schema, lo, hi float64) {
	p.Minimum, p.Maximum = ptr(lo), ptr(hi)
}

// spec is one tool: what a model reads of it, how its schema tightens the
// one inferred from its arguments, and its handler.
type spec struct {
	mcp.Tool
	edit     func(props map[string]*jsonschema.Schema)
	optional []string // arguments the handler checks itself (one of two names)
	handle   func(srv *mcp.Server, s *Server, sp spec)
}

// handler registers h, with the schema of its arguments' type.
func handler[In any](h func(context.Context, In) (*mcp.CallToolResult, error)) func(*mcp.Server, *Server, spec) {
	return func(srv *mcp.Server, s *Server, sp spec) {
		t := sp.Tool
		t.InputSchema = s.schema(reflect.TypeFor[In](), sp.edit, sp.optional)
		tool(srv, s, &t, h)
	}
}

// readOnly marks the tools that change nothing.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}

const datePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`

func (s *Server) addTools(srv *mcp.Server) {
	for _, sp := range s.specs() {
		sp.handle(srv, s, sp)
	}
}

func (s *Server) specs() []spec {
	return append(s.memorySpecs(), s.profileSpecs()...)
}

// memorySpecs are the tools of memories, facts and day records.
func (s *Server) memorySpecs() []spec {
	return []spec{{
		Tool: mcp.Tool{Name: "remember", Title: "Remember",
			Description: "Store a memory: a fact, preference, decision, event or anything worth recalling later. Returns its citation id (memory:N). Storing the same text again is recognised as a duplicate.",
			Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}},
		edit: func(p map[string]*jsonschema.Schema) {
			p["content"].MinLength = ptr(1)
			bounds(p["importance"], 0, 1)
		},
		handle: handler(s.remember),
	}, {
		Tool: mcp.Tool{Name: "recall", Title: "Recall", Annotations: readOnly,
			Description: "Recall what is relevant to a question: memories, day summaries and facts, ranked and packed into a token budget, one line each, each starting with its citation ([memory:42], [consolidation:3], [fact:7]). Cite these ids when you use them."},
		edit:   recallBounds,
		handle: handler(s.recall),
	}, s.askSpec(), {
		Tool: mcp.Tool{Name: "list_recent", Title: "List recent memories", Annotations: readOnly,
			Description: "List memories newest first, optionally within a time range or one session, a page at a time. Use it to see what was stored lately; use recall to search."},
		edit:   func(p map[string]*jsonschema.Schema) { bounds(p["limit"], 1, 100) },
		handle: handler(s.listRecent),
	}, {
		Tool: mcp.Tool{Name: "facts", Title: "Facts", Annotations: readOnly,
			Description: "List the facts distilled from memories by consolidation (entity, attribute, value, since when, from which memories): the current ones, optionally about one entity, or with history the superseded and rejected ones too."},
		edit:   func(p map[string]*jsonschema.Schema) { bounds(p["limit"], 1, 10000) },
		handle: handler(s.facts),
	}, {
		Tool: mcp.Tool{Name: "forget", Title: "Forget",
			Description: "Forget a memory (deleted for good) or reject a fact (kept as rejected, so the same claim arriving again does not come back as current). Only when the user asks, or a fact is wrong.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		edit:   func(p map[string]*jsonschema.Schema) { p["id"].Pattern = `^(memory|fact):[1-9][0-9]*$` },
		handle: handler(s.forget),
	}, {
		Tool: mcp.Tool{Name: "share_memory", Title: "Share a memory",
			Description: "Copy one memory into another agent (a household or team agent others read), naming where it came from. Sharing it again gives the same copy; forgetting the original later forgets the copy too.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		edit: func(p map[string]*jsonschema.Schema) {
			p["id"].Pattern, p["to"].Pattern = `^memory:[1-9][0-9]*$`, agentPattern
		},
		handle: handler(s.shareMemory),
	}, {
		Tool: mcp.Tool{Name: "consolidate", Title: "Consolidate",
			Description: "Consolidate now rather than at night: turn days of memories into day summaries and facts. Without arguments, every past day not yet consolidated. May take a while with an LLM configured; dry_run says what it would do first.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		edit: func(p map[string]*jsonschema.Schema) {
			p["date"].Pattern, p["since"].Pattern = datePattern, datePattern
		},
		handle: handler(s.consolidate),
	}, {
		Tool: mcp.Tool{Name: "status", Title: "Status", Annotations: readOnly,
			Description: "Show Dormouse's health and, per agent, how many memories, unconsolidated memories, day records and facts it holds."},
		edit: func(p map[string]*jsonschema.Schema) {
			if a := p["agent"]; a != nil {
				a.Description = "only this agent (default: every agent)"
			}
		},
		handle: handler(s.status),
	}}
}

// recallBounds are the limits recall and ask share.
func recallBounds(p map[string]*jsonschema.Schema) {
	p["query"].MinLength = ptr(1)
	p["query"].MaxLength = ptr(4096)
	bounds(p["budget_tokens"], 1, 200000)
	bounds(p["k"], 1, 1000)
}

// result is a text for the model and the same data structured.
func result(text string, structured any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
}

// parseTime reads an optional RFC 3339 argument.
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid arguments: %s: %q is not an RFC 3339 time such as 2026-03-01T09:30:00Z", name, v)
	}
	return t, nil
}

func (s *Server) remember(ctx context.Context, in rememberArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	ts, err := parseTime("timestamp", in.Timestamp)
	if err != nil {
		return nil, err
	}
	role := in.Role
	if role == "" {
		role = "user"
	}
	source := in.Source
	if source == "" {
		source = "mcp"
	}
	ins, err := s.c.Remember(ctx, agent, client.MemoryInput{
		Content: in.Content, Role: role, SessionID: in.SessionID, Importance: in.Importance,
		Timestamp: ts, Source: source,
	})
	if err != nil {
		return nil, s.rememberError(agent, err)
	}
	cite := "memory:" + strconv.FormatInt(ins.ID, 10)
	text := "Stored as " + cite + "."
	if ins.Duplicate {
		text = "Already stored as " + cite + " (same text): nothing new was added."
	}
	return result(text, map[string]any{"agent": agent, "id": cite, "duplicate": ins.Duplicate}), nil
}

func (s *Server) recall(ctx context.Context, in recallArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	req, err := recallRequest(in.Query, in)
	if err != nil {
		return nil, err
	}
	res, err := s.c.Recall(ctx, agent, req)
	if notCreated(err) {
		return result(nothingYet(agent), client.RecallResult{Items: []client.RecallItem{}}), nil
	}
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	text := res.Context
	if !res.Found {
		text = fmt.Sprintf("Nothing in agent %q's memory matches %q.", agent, in.Query)
		if len(res.Items) > 0 {
			text += "\nThe pinned profile (memories marked critical) is offered anyway:\n" + res.Context
		}
	}
	return result(withNote(text, res.Note), res), nil
}

// withNote adds an answer's note (granted agents left out, and why) to
// its text, so the agent reading it knows what it did not search.
func withNote(text, note string) string {
	if note == "" {
		return text
	}
	return text + "\n(Note: " + note + ".)"
}

// clip shortens a memory for a listing; recall and the memory itself have
// the whole text.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + " …"
	}
	return s
}

func (s *Server) listRecent(ctx context.Context, in listArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	o := client.ListOptions{Limit: in.Limit, SessionID: in.SessionID, Cursor: in.Cursor}
	if o.Limit == 0 {
		o.Limit = 20
	}
	if o.Since, err = parseTime("since", in.Since); err != nil {
		return nil, err
	}
	if o.Until, err = parseTime("until", in.Until); err != nil {
		return nil, err
	}
	page, err := s.c.Memories(ctx, agent, o)
	if notCreated(err) {
		return result(nothingYet(agent), client.MemoryPage{Memories: []client.Memory{}}), nil
	}
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	var b strings.Builder
	if len(page.Memories) == 0 {
		fmt.Fprintf(&b, "Agent %q has no memories in that range.", agent)
	}
	for _, m := range page.Memories {
		b.WriteString(memoryLine(m) + "\n")
	}
	if page.NextCursor != "" {
		fmt.Fprintf(&b, "More: call again with cursor %q.", page.NextCursor)
	}
	return result(strings.TrimRight(b.String(), "\n"), page), nil
}

// memoryLine is a memory as list_recent shows it: its citation, then its stored fields quoted
// whole, as recall's context lines are, so that nothing it says reads as another citation.
func memoryLine(m client.Memory) string {
	var b strings.Builder
	b.WriteString(m.Timestamp.UTC().Format("2006-01-02 15:04"))
	if m.Role != "" {
		b.WriteString(" " + m.Role)
	}
	if m.SessionID != "" {
		b.WriteString(" (session " + m.SessionID + ")")
	}
	b.WriteString(": " + clip(m.Content, 500))
	cite := fmt.Sprintf("[memory:%d]", m.ID)
	if m.SharedFrom != nil { // outside the quote, which would disarm its citation
		cite += " (shared from " + m.SharedFrom.String() + ")"
	}
	return cite + " " + recall.Quote(b.String())
}

func (s *Server) facts(ctx context.Context, in factsArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	o := client.FactsOptions{Entity: in.Entity, History: in.History, Limit: in.Limit}
	if o.Limit == 0 {
		o.Limit = 100
	}
	if o.AsOf, err = parseTime("as_of", in.AsOf); err != nil {
		return nil, err
	}
	facts, err := s.c.Facts(ctx, agent, o)
	if notCreated(err) {
		facts, err = nil, nil // no facts yet, said below
	}
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	if facts == nil {
		facts = []client.Fact{}
	}
	var b strings.Builder
	if len(facts) == 0 {
		fmt.Fprintf(&b, "Agent %q has no facts", agent)
		if in.Entity != "" {
			fmt.Fprintf(&b, " about %q", in.Entity)
		}
		b.WriteString(" yet. Facts come from consolidation (nightly, or call consolidate); recall searches the memories themselves.")
	}
	for _, f := range facts {
		b.WriteString(factLine(f) + "\n")
	}
	return result(strings.TrimRight(b.String(), "\n"), map[string]any{"agent": agent, "facts": facts}), nil
}

func factLine(f client.Fact) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[fact:%d] ", f.ID)
	// What consolidation read in memories is quoted; the ids after it are the store's own.
	switch {
	case f.Attribute != "" && f.Value != "":
		b.WriteString(recall.Quote(f.Entity + " · " + f.Attribute + ": " + f.Value))
	default:
		b.WriteString(recall.Quote(clip(f.Content, 300)))
	}
	fmt.Fprintf(&b, " (since %s", f.ValidFrom.UTC().Format(time.DateOnly))
	if f.ValidTo != nil {
		fmt.Fprintf(&b, ", until %s", f.ValidTo.UTC().Format(time.DateOnly))
	}
	if f.SupersededBy != nil {
		fmt.Fprintf(&b, ", superseded by fact:%d", *f.SupersededBy)
	}
	if f.Rejected {
		b.WriteString(", rejected")
	}
	if len(f.SourceMemoryIDs) > 0 {
		b.WriteString("; from")
		for i, id := range f.SourceMemoryIDs {
			if i == 5 {
				fmt.Fprintf(&b, " and %d more", len(f.SourceMemoryIDs)-5)
				break
			}
			fmt.Fprintf(&b, " memory:%d", id)
		}
	}
	b.WriteString(")")
	return b.String()
}

func (s *Server) forget(ctx context.Context, in forgetArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	kind, id, ok := recall.ParseID(in.ID)
	if !ok {
		return nil, fmt.Errorf("invalid arguments: id %q: give a citation such as memory:42 or fact:7", in.ID)
	}
	switch kind {
	case "memory":
		if err := s.c.DeleteMemory(ctx, agent, id); err != nil {
			return nil, s.toolError(agent, err)
		}
		return result(fmt.Sprintf("Deleted memory:%d for good.", id), map[string]any{"agent": agent, "deleted": in.ID}), nil
	case "fact":
		if err := s.c.RejectFact(ctx, agent, id); err != nil {
			return nil, s.toolError(agent, err)
		}
		return result(fmt.Sprintf("Rejected fact:%d: it is no longer current, and stays rejected if the same claim comes again.", id),
			map[string]any{"agent": agent, "rejected": in.ID}), nil
	case "consolidation":
		return nil, fmt.Errorf("a day summary (%s) cannot be forgotten by itself: forget the memories it came from, then call consolidate with that day's date to rebuild it", in.ID)
	}
	return nil, fmt.Errorf("invalid arguments: id %q: give a citation such as memory:42 or fact:7", in.ID)
}

func (s *Server) shareMemory(ctx context.Context, in shareArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	kind, id, ok := recall.ParseID(in.ID)
	if !ok || kind != "memory" {
		return nil, fmt.Errorf("invalid arguments: id %q: give a memory's citation such as memory:42", in.ID)
	}
	sh, err := s.c.ShareMemory(ctx, agent, id, in.To)
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	text := fmt.Sprintf("Shared %s with agent %q as memory:%d; forgetting the original forgets the copy too.", sh.SharedFrom, sh.Agent, sh.ID)
	if sh.Existing {
		text = fmt.Sprintf("Already shared: %s is memory:%d in agent %q.", sh.SharedFrom, sh.ID, sh.Agent)
	}
	return result(text, sh), nil
}

func (s *Server) consolidate(ctx context.Context, in consolidateArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	res, err := s.c.Consolidate(ctx, agent, client.ConsolidateRequest{Date: in.Date, Since: in.Since, DryRun: in.DryRun})
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	var b strings.Builder
	if res.Plan != nil {
		fmt.Fprintf(&b, "Would consolidate %d day(s) with %s", len(res.Plan.Days), res.Plan.Provider)
		if res.Plan.Model != "" {
			b.WriteString(" " + res.Plan.Model)
		}
		b.WriteString(":\n")
		for _, d := range res.Plan.Days {
			fmt.Fprintf(&b, "%s: %d memories (%d new), %d model calls, about %d tokens\n", d.Day, d.Memories, d.Unconsolidated, d.Calls, d.EstimatedTokens)
		}
	} else if len(res.Runs) == 0 {
		b.WriteString("Nothing to consolidate: every past day is consolidated. Give date to rebuild a day, today included.")
	}
	for _, r := range res.Runs {
		fmt.Fprintf(&b, "%s: %s, %d memories, %d facts", r.Day, r.Status, r.Memories, r.Facts)
		if r.ConsolidationID != nil {
			fmt.Fprintf(&b, ", summary consolidation:%d", *r.ConsolidationID)
		}
		if r.Error != "" {
			b.WriteString(", error: " + r.Error)
		}
		b.WriteString("\n")
	}
	return result(strings.TrimRight(b.String(), "\n"), res), nil
}

type statusResult struct {
	Health       *client.Health `json:"health,omitempty"`
	HealthError  string         `json:"health_error,omitempty"`
	Agents       []client.Stats `json:"agents"`
	DefaultAgent string         `json:"default_agent"`
}

func (s *Server) status(ctx context.Context, in statusArgs) (*mcp.CallToolResult, error) {
	var agents []string
	if in.Agent != "" || s.opts.Agent != "" {
		a, err := s.agent(in.Agent)
		if err != nil {
			return nil, err
		}
		agents = []string{a}
	} else {
		var err error
		if agents, err = s.c.Agents(ctx); err != nil {
			return nil, s.toolError("", err)
		}
	}
	out := statusResult{Agents: []client.Stats{}, DefaultAgent: s.opts.DefaultAgent}
	if s.opts.Agent != "" {
		out.DefaultAgent = s.opts.Agent
	}
	var b strings.Builder
	if h, err := s.c.Health(ctx); err == nil {
		out.Health = &h
		fmt.Fprintf(&b, "Dormouse is %s", h.State)
		if len(h.Reasons) > 0 {
			b.WriteString(": " + strings.Join(h.Reasons, "; "))
		}
		b.WriteString(".\n")
	} else {
		out.HealthError = s.toolError("", err).Error()
		fmt.Fprintf(&b, "Health unknown: %s\n", out.HealthError)
	}
	if len(agents) == 0 {
		b.WriteString("No agents yet: remember something to create one.")
	}
	for _, a := range agents {
		st, err := s.c.Stats(ctx, a)
		if err != nil {
			if client.IsNotFound(err) {
				fmt.Fprintf(&b, "agent %s: no memories yet\n", a)
				continue
			}
			return nil, s.toolError(a, err)
		}
		out.Agents = append(out.Agents, st)
		fmt.Fprintf(&b, "agent %s: %d memories (%d not yet consolidated), %d day records", a, st.Memories, st.Unconsolidated, st.Consolidations)
		if st.LastConsolidated != "" {
			fmt.Fprintf(&b, " (latest %s)", st.LastConsolidated)
		}
		fmt.Fprintf(&b, ", %d current facts", st.CurrentFacts)
		if st.Newest != nil {
			fmt.Fprintf(&b, ", newest memory %s", st.Newest.UTC().Format("2006-01-02 15:04"))
		}
		b.WriteString("\n")
	}
	return result(strings.TrimRight(b.String(), "\n"), out), nil
}
