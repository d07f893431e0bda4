package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
)

// overStdio serves srv over a pair of pipes with the stdio framing
// (newline-delimited JSON), as `dormouse mcp` does, and connects a client.
func overStdio(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, mcpserver.Stdio(sr, sw)) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

// overHTTP connects a client to the streamable HTTP endpoint at url.
func overHTTP(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		b.WriteString(tc.Text)
	}
	return b.String()
}

// call calls a tool and returns its text, failing the test on a protocol
// error or when the tool's error state is not wantErr.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, wantErr bool) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	got := text(t, res)
	if res.IsError != wantErr {
		t.Fatalf("%s(%v): IsError %v, want %v: %s", name, args, res.IsError, wantErr, got)
	}
	return got
}

func mustContain(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}

var citation = regexp.MustCompile(`(fact|memory):(\d+)`)

// exercise drives every tool, and bad arguments to each, through cs.
func exercise(t *testing.T, cs *mcp.ClientSession, agent string) {
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "dormouse" || !strings.Contains(init.Instructions, "recall") {
		t.Errorf("initialize: server %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if len(tl.Description) < 40 {
			t.Errorf("tool %s: description %q is too thin for a model to use", tl.Name, tl.Description)
		}
		sc, ok := tl.InputSchema.(map[string]any)
		if !ok || sc["type"] != "object" {
			t.Errorf("tool %s: input schema %v is not an object schema", tl.Name, tl.InputSchema)
			continue
		}
		props, _ := sc["properties"].(map[string]any)
		if a, _ := props["agent"].(map[string]any); a == nil || a["pattern"] == nil {
			t.Errorf("tool %s: no agent argument with a pattern: %v", tl.Name, props)
		}
	}
	slices.Sort(names)
	if want := []string{"ask", "consolidate", "facts", "forget", "list_recent", "profile", "profile_edit", "profile_remove", "recall", "remember", "share_memory", "status"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}

	a := map[string]any{"agent": agent}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"agent": agent}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	got := call(t, cs, "remember", with("content", "Alice's role is engineer.", "timestamp", "2026-03-01T09:00:00Z", "session_id", "s1"), false)
	mustContain(t, "remember", got, "Stored as memory:1.")
	got = call(t, cs, "remember", with("content", "Alice's role is engineer.", "timestamp", "2026-03-01T09:00:00Z", "session_id", "s1"), false)
	mustContain(t, "remember again", got, "Already stored as memory:1")
	call(t, cs, "remember", with("content", "Alice's role is CTO.", "timestamp", "2026-03-02T09:00:00Z", "importance", 0.9, "role", "assistant"), false)
	call(t, cs, "remember", with("content", "The launch moved to Friday.", "timestamp", "2026-03-02T10:00:00Z"), false)

	got = call(t, cs, "recall", with("query", "When is the launch?", "budget_tokens", 100), false)
	mustContain(t, "recall", got, "[memory:3] 2026-03-02 10:00 user: The launch moved to Friday.")
	got = call(t, cs, "recall", with("query", "launch", "as_of", "2026-03-01T12:00:00Z"), false)
	if strings.Contains(got, "[memory:3]") {
		t.Errorf("recall as of 1 March shows a memory of the 2nd: %q", got)
	}
	got = call(t, cs, "recall", with("query", "zebra crossings"), false)
	// memory:2 (importance 0.9) is the pinned profile: offered, but not as a match.
	mustContain(t, "recall of nothing", got, "Nothing in agent", "pinned profile", "[memory:2]")

	got = call(t, cs, "ask", with("question", "When is the launch?"), false)
	mustContain(t, "ask", got, "Friday", "[memory:3]", "Sources:\n[memory:3] 2026-03-02 10:00")
	// memory:2 is pinned to every context but addresses neither question.
	if strings.Contains(got, "memory:2") {
		t.Errorf("ask answers from the pinned memory:2, which does not address it: %q", got)
	}
	got = call(t, cs, "ask", with("query", "Which zebra crossings are nearby?"), false)
	mustContain(t, "ask of nothing beside the pinned profile", got, "Nothing stored answers this.", "call remember")
	if strings.Contains(got, "memory:2") || strings.Contains(got, "CTO") {
		t.Errorf("ask of nothing answers from the pinned memory: %q", got)
	}
	got = call(t, cs, "ask", with("question", "When is the launch?", "as_of", "2026-03-01T12:00:00Z"), false)
	mustContain(t, "ask before it was said", got, "Nothing stored answers this.")
	if strings.Contains(got, "memory:3") {
		t.Errorf("ask as of 1 March cites a memory of the 2nd: %q", got)
	}

	got = call(t, cs, "list_recent", with("limit", 2), false)
	mustContain(t, "list_recent", got, "[memory:3] 2026-03-02 10:00 user: The launch", "[memory:2]", "More: call again with cursor")
	cursor := regexp.MustCompile(`cursor "([^"]+)"`).FindStringSubmatch(got)
	if cursor == nil {
		t.Fatalf("no cursor in %q", got)
	}
	got = call(t, cs, "list_recent", with("limit", 2, "cursor", cursor[1]), false)
	mustContain(t, "list_recent page 2", got, "[memory:1] 2026-03-01 09:00 user (session s1): Alice's role is engineer.")

	got = call(t, cs, "facts", a, false)
	mustContain(t, "facts before consolidation", got, "no facts", "consolidate")
	got = call(t, cs, "consolidate", with("dry_run", true), false)
	mustContain(t, "consolidate dry run", got, "Would consolidate 2 day(s) with offline", "2026-03-01: 1 memories (1 new)")
	got = call(t, cs, "consolidate", a, false)
	mustContain(t, "consolidate", got, "2026-03-01: ok, 1 memories", "2026-03-02: ok, 2 memories", "summary consolidation:")
	got = call(t, cs, "consolidate", a, false)
	mustContain(t, "consolidate again", got, "Nothing to consolidate")

	got = call(t, cs, "facts", with("entity", "Alice"), false)
	mustContain(t, "facts", got, "Alice · job_title: CTO (since 2026-03-02; from memory:2)")
	m := citation.FindStringSubmatch(got)
	if m == nil || m[1] != "fact" {
		t.Fatalf("no fact citation in %q", got)
	}
	cto := m[0]
	got = call(t, cs, "facts", with("entity", "Alice", "history", true), false)
	mustContain(t, "facts with history", got, "job_title: engineer", "superseded by "+cto)

	got = call(t, cs, "forget", with("id", cto), false)
	mustContain(t, "forget a fact", got, "Rejected "+cto, "stays rejected")
	got = call(t, cs, "facts", with("entity", "Alice", "history", true), false)
	mustContain(t, "facts after rejecting", got, "rejected")
	got = call(t, cs, "facts", with("entity", "Alice"), false)
	if strings.Contains(got, "CTO") {
		t.Errorf("a rejected fact is still current: %q", got)
	}
	house := agent + "-house"
	got = call(t, cs, "share_memory", with("id", "memory:3", "to", house), false)
	mustContain(t, "share_memory", got, "Shared "+agent+"/memory:3 with agent \""+house+"\" as memory:1")
	got = call(t, cs, "share_memory", with("id", "memory:3", "to", house), false)
	mustContain(t, "share_memory again", got, "Already shared")
	got = call(t, cs, "list_recent", map[string]any{"agent": house}, false)
	mustContain(t, "list_recent of the copy's agent", got, "[memory:1] (shared from "+agent+"/memory:3) 2026-03-02 10:00 user: The launch moved to Friday.")
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"agent": house, "query": "When is the launch?"}})
	if err != nil || !strings.Contains(fmt.Sprint(res.StructuredContent), "origin:"+agent+"/memory:3") {
		t.Errorf("recall in %s: %v, %v; want an item with origin %s/memory:3", house, res.StructuredContent, err, agent)
	}
	got = call(t, cs, "forget", with("id", "memory:3"), false)
	mustContain(t, "forget a memory", got, "Deleted memory:3")
	got = call(t, cs, "list_recent", map[string]any{"agent": house}, false)
	if strings.Contains(got, "launch") {
		t.Errorf("the copy outlived its original's forget: %q", got)
	}
	got = call(t, cs, "forget", with("id", "memory:3"), true)
	mustContain(t, "forget it twice", got, "not found", "list_recent")

	got = call(t, cs, "status", a, false)
	// Forgetting memory:3 took its day's record apart until the day is rebuilt.
	mustContain(t, "status", got, "Dormouse is ", "agent "+agent+": 2 memories (1 not yet consolidated), 1 day records (latest 2026-03-01)", "current facts")
	got = call(t, cs, "status", nil, false)
	mustContain(t, "status of every agent", got, "agent "+agent+":")

	// Bad arguments come back as tool errors a model can act on.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"remember", a, "content"},
		{"remember", with("content", ""), "content"},
		{"remember", with("content", "x", "importance", 2), "importance"},
		{"remember", with("content", "x", "timestamp", "yesterday"), "RFC 3339"},
		{"remember", with("content", "x", "colour", "blue"), "colour"},
		{"remember", map[string]any{"agent": "Bad Name!", "content": "x"}, "agent"},
		{"remember", map[string]any{"agent": "../../etc", "content": "x"}, "agent"},
		{"recall", a, "query"},
		{"recall", with("query", "x", "budget_tokens", -1), "budget_tokens"},
		{"recall", with("query", "x", "k", "ten"), "k"},
		{"ask", a, "question"},
		{"ask", with("question", ""), "question"},
		{"ask", with("question", "   "), "question"},
		{"ask", with("question", "x", "as_of", "yesterday"), "RFC 3339"},
		{"ask", with("question", "x", "k", 0), "k"},
		{"list_recent", with("limit", 1000), "limit"},
		{"list_recent", with("cursor", "garbage"), "invalid arguments"},
		{"facts", with("as_of", "last week"), "RFC 3339"},
		{"forget", a, "id"},
		{"forget", with("id", "memory:0"), "id"},
		{"forget", with("id", "consolidation:1"), "id"},
		{"forget", with("id", "fact:999"), "not found"},
		{"share_memory", with("id", "memory:1"), "to"},
		{"share_memory", with("id", "fact:1", "to", "house"), "id"},
		{"share_memory", with("id", "memory:1", "to", "Bad Name!"), "to"},
		{"share_memory", with("id", "memory:1", "to", agent), "own agent"},
		{"share_memory", with("id", "memory:999", "to", "house"), "not found"},
		{"profile", with("as_of", "last week"), "RFC 3339"},
		{"profile_edit", with("id", "memory:3", "text", "x"), "id"},
		{"profile_edit", with("id", "profile:1", "text", ""), "text"},
		{"profile_edit", with("id", "profile:999", "text", "The user lives in Leeds."), "not found"},
		{"profile_remove", with("id", "profile:0"), "id"},
		{"profile_remove", with("id", "profile:999"), "not found"},
		{"consolidate", with("date", "yesterday"), "date"},
		{"consolidate", with("date", "2026-13-45"), "date"},
		{"consolidate", with("date", "2026-03-01", "since", "2026-03-01"), "not both"},
		{"status", map[string]any{"agent": "nobody"}, "no memories yet"},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Errorf("%s(%v): protocol error %v, want a tool error", tc.tool, tc.args, err)
			continue
		}
		got := text(t, res)
		if tc.tool == "status" { // an agent without memories is a state, not an error
			mustContain(t, "status of an unknown agent", got, tc.want)
			continue
		}
		if !res.IsError || !strings.Contains(got, tc.want) {
			t.Errorf("%s(%v) = error %v %q, want a tool error mentioning %q", tc.tool, tc.args, res.IsError, got, tc.want)
		}
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "answer_everything", Arguments: a}); err == nil {
		t.Error("calling a tool that does not exist succeeded")
	}
	// The server is still there.
	call(t, cs, "status", a, false)
}

func TestToolsOverStdio(t *testing.T) {
	d := daemontest.Start(t)
	srv := mcpserver.New(client.New(d.Addr), mcpserver.Options{Version: "test"})
	exercise(t, overStdio(t, srv), "stdio")
}

// TestToolsOverHTTP drives the daemon's own /mcp endpoint.
func TestToolsOverHTTP(t *testing.T) {
	d := daemontest.Start(t)
	exercise(t, overHTTP(t, d.URL()+"/mcp"), "http")
	// The tools' API calls were the daemon's own, counted in its metrics.
	met, err := client.New(d.Addr).Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "metrics", met, `route="/mcp"`, `route="POST /v1/agents/{agent}/recall"`)
}

func TestFixedAgent(t *testing.T) {
	d := daemontest.Start(t)
	srv := mcpserver.New(client.New(d.Addr), mcpserver.Options{Agent: "solo"})
	cs := overStdio(t, srv)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if props, _ := tl.InputSchema.(map[string]any)["properties"].(map[string]any); props["agent"] != nil {
			t.Errorf("tool %s takes an agent though the server is fixed to one", tl.Name)
		}
	}
	mustContain(t, "remember", call(t, cs, "remember", map[string]any{"content": "only solo"}, false), "memory:1")
	agents, err := client.New(d.Addr).Agents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(agents, []string{"solo"}) {
		t.Errorf("agents %v, want [solo]", agents)
	}
	mustContain(t, "status", call(t, cs, "status", nil, false), "agent solo: 1 memories")
	call(t, cs, "recall", map[string]any{"query": "x", "agent": "other"}, true)
}

// TestFreshInstallReads: on an install with no memories yet, every read
// answers that nothing is stored yet, not an error, and creates no agent.
func TestFreshInstallReads(t *testing.T) {
	d := daemontest.Start(t)
	cs := overStdio(t, mcpserver.New(client.New(d.Addr), mcpserver.Options{}))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"recall", map[string]any{"query": "What is my phone number?"}, `Nothing is stored in agent "main" yet: call remember`},
		{"ask", map[string]any{"query": "What is my phone number?"}, `Nothing is stored in agent "main" yet: call remember`},
		{"ask", map[string]any{"agent": "nobody", "question": "x"}, `Nothing is stored in agent "nobody" yet`},
		{"list_recent", nil, `Nothing is stored in agent "main" yet`},
		{"facts", nil, `Agent "main" has no facts yet`},
		{"profile", nil, `Agent "main" has no profile yet`},
	} {
		mustContain(t, tc.tool, call(t, cs, tc.tool, tc.args, false), tc.want)
	}
	agents, err := client.New(d.Addr).Agents(t.Context())
	if err != nil || len(agents) != 0 {
		t.Errorf("agents after reads alone: %v, %v; want none", agents, err)
	}
}

// TestDefaultAgent: calls that name no agent use the default.
func TestDefaultAgent(t *testing.T) {
	d := daemontest.Start(t)
	cs := overStdio(t, mcpserver.New(client.New(d.Addr), mcpserver.Options{}))
	call(t, cs, "remember", map[string]any{"content": "goes to main"}, false)
	st, err := client.New(d.Addr).Stats(t.Context(), "main")
	if err != nil || st.Memories != 1 {
		t.Errorf("main after a call naming no agent: %+v, %v", st, err)
	}
}

func TestDaemonUnreachable(t *testing.T) {
	d := daemontest.Start(t)
	addr := d.Addr
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(client.New(addr, client.WithRetries(0)), mcpserver.Options{Where: "the Dormouse daemon at " + addr})
	cs := overStdio(t, srv)
	got := call(t, cs, "remember", map[string]any{"content": "x"}, true)
	mustContain(t, "remember with the daemon down", got, "cannot reach the Dormouse daemon at "+addr, "systemctl status dormouse")
	got = call(t, cs, "status", nil, true)
	mustContain(t, "status with the daemon down", got, "cannot reach")
}

type panicTransport struct{}

func (panicTransport) RoundTrip(*http.Request) (*http.Response, error) { panic("boom") }

func TestPanicIsAToolError(t *testing.T) {
	c := client.New("127.0.0.1:1", client.WithHTTPClient(&http.Client{Transport: panicTransport{}}))
	cs := overStdio(t, mcpserver.New(c, mcpserver.Options{}))
	for i := range 2 {
		got := call(t, cs, "recall", map[string]any{"query": fmt.Sprint("x", i)}, true)
		mustContain(t, "recall that panics", got, "internal error in tool recall")
	}
}

// TestRememberToAnAgentNoWriteCreates: a memory for a deleted agent, or for a new one where
// agents.create is explicit, is refused; the tool error gives the API's reason and never advises
// the model to remember something to create the agent, which is what was just refused.
func TestRememberToAnAgentNoWriteCreates(t *testing.T) {
	for _, tc := range []struct {
		agent, why string
		create     string // agents.create
	}{
		{"gone", "was deleted", "on-write"},
		{"never", "agents.create is explicit", config.CreateExplicit},
	} {
		d := daemontest.Start(t, func(cfg *config.Config) { cfg.Agents.Create = tc.create })
		cl := client.New(d.Addr)
		if tc.agent == "gone" {
			if _, err := cl.CreateAgent(t.Context(), "gone"); err != nil {
				t.Fatal(err)
			}
			if _, err := cl.DeleteAgent(t.Context(), "gone"); err != nil {
				t.Fatal(err)
			}
		}
		cs := overStdio(t, mcpserver.New(cl, mcpserver.Options{Version: "test"}))
		got := call(t, cs, "remember", map[string]any{"agent": tc.agent, "content": "The fern wants water."}, true)
		mustContain(t, "remember to "+tc.agent, got, tc.why, "nothing was stored", "tell the user")
		if strings.Contains(got, "remember something to create it") {
			t.Errorf("remember to %s: %q advises what was just refused", tc.agent, got)
		}
	}
}

// TestRecallAndAskNameTheGrantedAgentsLeftOut: over a real MCP client, the
// recall and ask tools' text names a granted agent they could not search.
func TestRecallAndAskNameTheGrantedAgentsLeftOut(t *testing.T) {
	d := daemontest.Start(t, func(cfg *config.Config) { cfg.Agents.Reads = map[string][]string{"home": {"garage"}} })
	cs := overHTTP(t, d.URL()+"/mcp")
	call(t, cs, "remember", map[string]any{"agent": "home", "content": "The spare key is under the blue pot."}, false)
	want := `(Note: granted agent(s) "garage" left out: no such agent.)`
	for _, tool := range []string{"recall", "ask"} {
		got := call(t, cs, tool, map[string]any{"agent": "home", "query": "Where is the spare key?"}, false)
		mustContain(t, tool, got, "blue pot", want)
	}
}
