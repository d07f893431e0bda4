package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
)

type askArgs struct {
	Agent        string `json:"agent,omitempty"`
	Question     string `json:"question" jsonschema:"the question, in natural language, e.g. 'When is the launch?'; names and specific words match best"`
	BudgetTokens int    `json:"budget_tokens,omitempty" jsonschema:"the most tokens of recalled context the answer is drawn from (default: the server's, usually 1000)"`
	K            int    `json:"k,omitempty" jsonschema:"the most context items to draw on (default 10)"`
	Since        string `json:"since,omitempty" jsonschema:"only memories from this time on, RFC 3339"`
	Until        string `json:"until,omitempty" jsonschema:"only memories up to this time, RFC 3339"`
	AsOf         string `json:"as_of,omitempty" jsonschema:"answer as of this time, RFC 3339: nothing newer is used"`
	SessionID    string `json:"session_id,omitempty" jsonschema:"only this session's memories"`
}

func (s *Server) addAskTool(srv *mcp.Server) {
	tool(srv, s, &mcp.Tool{
		Name:  "ask",
		Title: "Ask",
		Description: "Answer a question from memory, with citations: Dormouse recalls the relevant memories, day summaries and facts and answers from them alone, " +
			"each statement followed by the citation of its source ([memory:42], [fact:7], [consolidation:3]). " +
			"When nothing stored answers it, it says so rather than guess. Use recall instead to read the context yourself.",
		InputSchema: s.schema(askArgs{}, func(p map[string]*jsonschema.Schema) {
			p["question"].MinLength = ptr(1)
			p["question"].MaxLength = ptr(4096)
			bounds(p["budget_tokens"], 1, 200000)
			bounds(p["k"], 1, 1000)
		}),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.ask)
}

func (s *Server) ask(ctx context.Context, in askArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Question) == "" {
		return nil, fmt.Errorf("invalid arguments: question is empty: ask something, e.g. 'When is the launch?'")
	}
	req, err := recallRequest(in.Question, recallArgs{BudgetTokens: in.BudgetTokens, K: in.K,
		Since: in.Since, Until: in.Until, AsOf: in.AsOf, SessionID: in.SessionID})
	if err != nil {
		return nil, err
	}
	res, err := s.c.Ask(ctx, agent, req)
	if err != nil {
		return nil, s.toolError(agent, err)
	}
	var b strings.Builder
	b.WriteString(res.Answer)
	if res.Abstained {
		fmt.Fprintf(&b, " (Nothing in agent %q's memory matches; call remember to store what the user tells you.)", agent)
	} else if len(res.Citations) > 0 {
		b.WriteString("\n\nSources:")
		byID := make(map[string]client.RecallItem, len(res.Items))
		for _, it := range res.Items {
			byID[it.ID] = it
		}
		for _, c := range res.Citations {
			if it, ok := byID[c]; ok {
				fmt.Fprintf(&b, "\n[%s] %s: %s", c, it.Timestamp.UTC().Format("2006-01-02 15:04"), clip(it.Text, 300))
			}
		}
	}
	if res.Answer == "" {
		return nil, fmt.Errorf("the answer came back empty (provider %s); call recall to read the context instead", res.Provider)
	}
	return result(b.String(), res), nil
}
