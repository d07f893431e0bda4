package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

type profileArgs struct {
	Agent string `json:"agent,omitempty"`
	AsOf  string `json:"as_of,omitempty" jsonschema:"the profile as it was at this time, RFC 3339 (default now)"`
}

type profileEditArgs struct {
	Agent string `json:"agent,omitempty"`
	ID    string `json:"id" jsonschema:"the line to reword, as the profile tool cites it: profile:12"`
	Text  string `json:"text" jsonschema:"the line's new wording: one short statement about the user, e.g. 'The user works at Atkins as a bridge engineer.'"`
}

type profileRemoveArgs struct {
	Agent string `json:"agent,omitempty"`
	ID    string `json:"id" jsonschema:"the line to remove, as the profile tool cites it: profile:12; it stays removed even if consolidation finds the claim again"`
}

const profilePattern = `^profile:[1-9][0-9]*$`

// profileSpecs are the profile's tools: read it, reword a line, remove one.
func (s *Server) profileSpecs() []spec {
	return []spec{{
		Tool: mcp.Tool{Name: "profile", Title: "Profile", Annotations: readOnly,
			Description: "The user's profile, built by consolidation from their memories: short current statements by category (identity, contact, home, work, family, pets, health, diet, vehicle, preference, routine), each cited as profile:N with the memories it came from. Read it to know who the user is before answering."},
		handle: handler(s.profile),
	}, {
		Tool: mcp.Tool{Name: "profile_edit", Title: "Edit a profile line",
			Description: "Reword one line of the profile when the user says it is wrong or out of date: the new wording replaces it (the old line stays in the history) and cites the same memories. Only when the user asks.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}},
		edit: func(p map[string]*jsonschema.Schema) {
			p["id"].Pattern = profilePattern
			p["text"].MinLength, p["text"].MaxLength = ptr(1), ptr(500)
		},
		handle: handler(s.profileEdit),
	}, {
		Tool: mcp.Tool{Name: "profile_remove", Title: "Remove a profile line",
			Description: "Remove one line of the profile when the user says it is wrong: it is no longer offered, and consolidation does not bring the same claim back. Only when the user asks.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}},
		edit:   func(p map[string]*jsonschema.Schema) { p["id"].Pattern = profilePattern },
		handle: handler(s.profileRemove),
	}}
}

func (s *Server) profile(ctx context.Context, in profileArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	o := client.ProfileOptions{}
	if o.AsOf, err = parseTime("as_of", in.AsOf); err != nil {
		return nil, err
	}
	lines, err := s.c.Profile(ctx, agent, o)
	if notCreated(err) {
		lines, err = nil, nil // no profile yet, said below
	}
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	if lines == nil {
		lines = []client.ProfileLine{}
	}
	var b strings.Builder
	if len(lines) == 0 {
		fmt.Fprintf(&b, "Agent %q has no profile yet. Consolidation (nightly, or call consolidate) builds it from the memories; recall searches the memories themselves.", agent)
	}
	category := ""
	for _, l := range lines {
		if l.Category != category {
			category = l.Category
			b.WriteString(category + ":\n")
		}
		b.WriteString(profileLine(l) + "\n")
	}
	return result(strings.TrimRight(b.String(), "\n"), map[string]any{"agent": agent, "profile": lines}), nil
}

// profileLine is a line as the profile tool shows it: its citation, the
// statement quoted (consolidation wrote it from what memories say), then
// the store's own ids of its sources.
func profileLine(l client.ProfileLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s", l.ID, recall.Quote(l.Text))
	if len(l.Sources) > 0 {
		b.WriteString(" (from " + strings.Join(l.Sources[:min(len(l.Sources), 5)], " "))
		if n := len(l.Sources) - 5; n > 0 {
			fmt.Fprintf(&b, " and %d more", n)
		}
		b.WriteString(")")
	}
	return b.String()
}

// lineID reads a profile:N argument.
func lineID(v string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(v, "profile:"), 10, 64)
	if err != nil || id <= 0 || !strings.HasPrefix(v, "profile:") {
		return 0, fmt.Errorf("invalid arguments: id %q: give a profile line's citation such as profile:12", v)
	}
	return id, nil
}

func (s *Server) profileEdit(ctx context.Context, in profileEditArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	id, err := lineID(in.ID)
	if err != nil {
		return nil, err
	}
	l, err := s.c.EditProfileLine(ctx, agent, id, in.Text)
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	return result(fmt.Sprintf("Replaced %s with %s.", in.ID, profileLine(l)), map[string]any{"agent": agent, "line": l}), nil
}

func (s *Server) profileRemove(ctx context.Context, in profileRemoveArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	id, err := lineID(in.ID)
	if err != nil {
		return nil, err
	}
	if err := s.c.RemoveProfileLine(ctx, agent, id); err != nil {
		return nil, s.toolError(agent, err)
	}
	return result(fmt.Sprintf("Removed %s: it is no longer offered, and stays removed if consolidation finds the claim again.", in.ID),
		map[string]any{"agent": agent, "removed": in.ID}), nil
}
