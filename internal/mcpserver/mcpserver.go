// Package mcpserver serves Dormouse to MCP clients (Claude Code and the
// like): tools to remember, recall, answer with citations, list, read facts,
// forget, consolidate and check status. Every tool is a call through the Go
// client to the HTTP API, over the network or in-process, so every rule is
// the API's.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
)

// DefaultAgent is the agent a call uses when it names none.
const DefaultAgent = "main"

// Options configure the server.
type Options struct {
	// Agent, when set, is the only agent the tools use: they take no agent
	// argument and refuse any other.
	Agent string
	// DefaultAgent is the agent of calls that name none when Agent is not
	// set ("main" when empty).
	DefaultAgent string
	// Version is reported to clients.
	Version string
	Logger  *slog.Logger
	// Where names the daemon in messages about reaching it ("the daemon at
	// 127.0.0.1:7733").
	Where string
}

// Server holds the tools' shared state.
type Server struct {
	c    *client.Client
	opts Options
	log  *slog.Logger
}

// instructions tell the model what the server is for and how to use it.
const instructions = `Dormouse is this user's long-term memory, kept on their own machine.
Call recall before answering anything that may depend on the past (people, preferences, decisions, earlier work), and cite what you use by its id, such as [memory:42] or [fact:7]. Call ask for a cited answer to a question about the past, drawn from memory alone.
Call remember for what is worth keeping: facts about people and things, preferences, decisions, commitments, outcomes. One self-contained statement per call, in plain words.
Call facts for the current facts about an entity, with history=true to see what changed. Call forget with a memory or fact id only when the user asks to forget something or a fact is wrong.`

// New returns the MCP server over c.
func New(c *client.Client, o Options) *mcp.Server {
	if o.DefaultAgent == "" {
		o.DefaultAgent = DefaultAgent
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Where == "" {
		o.Where = "the Dormouse daemon"
	}
	s := &Server{c: c, opts: o, log: o.Logger}
	srv := mcp.NewServer(&mcp.Implementation{Name: "dormouse", Title: "Dormouse memory", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions}) // the SDK logs a session's start and end at info and error: not ours to log
	s.addTools(srv)
	return srv
}

// Handler serves the MCP server over streamable HTTP, statelessly: each
// request stands alone, so the daemon keeps no sessions and a restart
// loses nothing. Responses are plain JSON, never long-lived streams.
func Handler(c *client.Client, o Options) http.Handler {
	srv := New(c, o)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}

// agent picks the agent of a call.
func (s *Server) agent(arg string) (string, error) {
	switch {
	case s.opts.Agent == "" && arg == "":
		return s.opts.DefaultAgent, nil
	case s.opts.Agent == "":
		return arg, nil
	case arg == "" || arg == s.opts.Agent:
		return s.opts.Agent, nil
	default:
		return "", fmt.Errorf("this Dormouse server is fixed to agent %q: leave out agent, or set it to %q", s.opts.Agent, s.opts.Agent)
	}
}

// rememberError is toolError for a memory the API refused. An unknown agent here is one a write
// may not create (deleted, off the server's list, or agents.create explicit): the API's reason is
// the answer, where toolError's "remember something to create it" is what was just refused.
func (s *Server) rememberError(agent string, err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) && ae.Code == "unknown_agent" {
		return fmt.Errorf("nothing was stored: %s. A memory cannot create agent %q: tell the user, who can create it "+
			"or name another (call status to list the agents)", ae.Message, agent)
	}
	return s.toolError(agent, err)
}

// notCreated reports whether err is the daemon saying the agent does not
// exist: for a read, an agent not yet created holds nothing, which is an
// answer, not an error (status says the same).
func notCreated(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.Code == "unknown_agent"
}

// nothingYet is what a read of an agent not yet created answers.
func nothingYet(agent string) string {
	return fmt.Sprintf("Nothing is stored in agent %q yet: call remember to store what the user tells you.", agent)
}

// toolError turns what went wrong into a message a model can act on.
func (s *Server) toolError(agent string, err error) error {
	var ae *client.APIError
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &ae):
		switch ae.Code {
		case "unknown_agent":
			return fmt.Errorf("agent %q does not exist yet (or is not one this server allows): call status to list the agents, or remember something to create it", agent)
		case "invalid_agent":
			return fmt.Errorf("%s", ae.Message)
		case "not_found":
			return fmt.Errorf("not found for agent %q: %s. Call list_recent, recall or facts to find current ids", agent, ae.Message)
		case "invalid_request", "invalid_memory", "invalid_parameter", "invalid_json", "unknown_field", "invalid_cursor", "invalid_id":
			return fmt.Errorf("invalid arguments: %s. Correct them and call again", ae.Message)
		case "body_too_large", "batch_too_large":
			return fmt.Errorf("too large: %s. Store less at once, or split it into several memories", ae.Message)
		case "busy":
			return fmt.Errorf("a consolidation of agent %q is already running: wait a minute and call again, or call status", agent)
		case "storage_full":
			return fmt.Errorf("nothing was stored: %s. Tell the user; their Dormouse needs disk space", ae.Message)
		case "not_implemented":
			return fmt.Errorf("this Dormouse server cannot do that: %s", ae.Message)
		case "clock_implausible":
			return fmt.Errorf("consolidation refused: %s. The machine's clock is not set yet; try later", ae.Message)
		case "consolidation_failed":
			return fmt.Errorf("consolidation failed (the memories stay unconsolidated and the nightly run will try again): %s", ae.Message)
		}
		if ae.Temporary() {
			return fmt.Errorf("Dormouse is busy or restarting (%s): try again shortly", ae.Message)
		}
		return fmt.Errorf("Dormouse answered %s: %s", ae.Code, ae.Message)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("the call was cancelled or timed out: %v", err)
	case errors.As(err, &oe), errors.As(err, &ne):
		return fmt.Errorf("cannot reach %s: %v. Is it running? (systemctl status dormouse)", s.opts.Where, err)
	}
	return err
}

// tool registers a typed tool whose handler cannot crash the server: a
// panic becomes a tool error and a log line.
func tool[In any](srv *mcp.Server, s *Server, t *mcp.Tool, h func(context.Context, In) (*mcp.CallToolResult, error)) {
	mcp.AddTool(srv, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, _ any, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp tool panicked", "tool", t.Name, "panic", p, "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("internal error in tool %s; it has been logged. Try again, or another tool", t.Name)
			}
		}()
		res, err = h(ctx, in)
		if err != nil {
			s.log.Debug("mcp tool error", "tool", t.Name, "err", err)
		}
		return res, nil, err
	})
}
