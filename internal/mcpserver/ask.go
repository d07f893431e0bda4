package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
)

// askArgs are recall's: ask takes the same options. Question is query's old
// name here, taken for one release.
type askArgs struct {
	recallArgs
	Question string `json:"question,omitempty" jsonschema:"old name of query, taken for one release"`
}

func (s *Server) askSpec() spec {
	return spec{
		Tool: mcp.Tool{Name: "ask", Title: "Ask", Annotations: readOnly,
			Description: "Answer a question from memory, with citations: Dormouse recalls the relevant memories, day summaries and facts and answers from them alone, " +
				"each statement followed by the citation of its source ([memory:42], [fact:7], [consolidation:3]). " +
				"When nothing stored answers it, it says so rather than guess. Use recall instead to read the context yourself."},
		edit: func(p map[string]*jsonschema.Schema) {
			recallBounds(p)
			p["question"].MaxLength = ptr(4096)
			p["query"].Description = "the question, in natural language, e.g. 'When is the launch?'; names and specific words match best"
			p["budget_tokens"].Description = "the most tokens of recalled context the answer is drawn from (default: the server's, usually 1000)"
			p["k"].Description = "the most context items to draw on (default 10)"
			p["as_of"].Description = "answer as of this time, RFC 3339: nothing newer is used"
		},
		optional: []string{"query"}, // or question, its old name
		handle:   handler(s.ask),
	}
}

// question is the query, under its name or its old one.
func (in askArgs) question() (string, error) {
	q := in.Query
	switch {
	case in.Question == "":
	case q != "" && q != in.Question:
		return "", fmt.Errorf("invalid arguments: query %q and its old name question %q differ: send query alone", q, in.Question)
	default:
		q = in.Question
	}
	if strings.TrimSpace(q) == "" {
		return "", fmt.Errorf("invalid arguments: query (or its old name question) is empty: ask something, e.g. 'When is the launch?'")
	}
	return q, nil
}

func (s *Server) ask(ctx context.Context, in askArgs) (*mcp.CallToolResult, error) {
	agent, err := s.agent(in.Agent)
	if err != nil {
		return nil, err
	}
	q, err := in.question()
	if err != nil {
		return nil, err
	}
	req, err := recallRequest(q, in.recallArgs)
	if err != nil {
		return nil, err
	}
	res, err := s.c.Ask(ctx, agent, req)
	if notCreated(err) {
		text := nothingYet(agent)
		return result(text, client.Answer{Question: q, Answer: text, Citations: []string{}, Abstained: true, Items: []client.RecallItem{}}), nil
	}
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
	return result(withNote(b.String(), res.Note), res), nil
}
