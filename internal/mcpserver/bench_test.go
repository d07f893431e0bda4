package mcpserver_test

import (
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
)

// BenchmarkRecallTool measures one recall tool call over 1,000 memories,
// through each way an MCP client reaches Dormouse, against the plain Go
// client as the baseline.
func BenchmarkRecallTool(b *testing.B) {
	d := daemontest.Start(b)
	c := client.New(d.Addr)
	batch := make([]client.MemoryInput, 1000)
	for i := range batch {
		batch[i] = client.MemoryInput{Content: fmt.Sprintf("note %d: the meeting about project %d moved to room %d", i, i%37, i%11)}
	}
	if _, err := c.RememberBatch(b.Context(), "bench", batch); err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"agent": "bench", "query": "meeting project 7 room", "budget_tokens": 300}

	b.Run("go-client", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Recall(b.Context(), "bench", client.RecallRequest{Query: "meeting project 7 room", BudgetTokens: 300}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct {
		name    string
		session func(b *testing.B) *mcp.ClientSession
	}{
		{"stdio-framing", func(b *testing.B) *mcp.ClientSession {
			ct, st := mcp.NewInMemoryTransports()
			if _, err := mcpserver.New(c, mcpserver.Options{}).Connect(b.Context(), st, nil); err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(b.Context(), ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			return cs
		}},
		{"daemon-/mcp", func(b *testing.B) *mcp.ClientSession {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(b.Context(),
				&mcp.StreamableClientTransport{Endpoint: d.URL() + "/mcp", DisableStandaloneSSE: true}, nil)
			if err != nil {
				b.Fatal(err)
			}
			return cs
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cs := tc.session(b)
			defer cs.Close()
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "recall", Arguments: args})
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
