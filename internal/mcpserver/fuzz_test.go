package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
)

// FuzzToolCall sends arbitrary arguments to every tool: each call gets a
// result (a tool error for bad arguments, with a message), never a crash,
// and the server keeps answering.
func FuzzToolCall(f *testing.F) {
	tools := []string{"remember", "recall", "list_recent", "facts", "forget", "consolidate", "status", "ask"}
	for i, args := range []string{
		`{"content":"Alice's role is CTO.","timestamp":"2026-03-01T09:00:00Z"}`,
		`{"query":"Alice","budget_tokens":5,"as_of":"2026-03-02T00:00:00Z"}`,
		`{"limit":1,"cursor":"x"}`,
		`{"entity":"Alice","history":true}`,
		`{"id":"fact:1"}`,
		`{"date":"2026-03-01"}`,
		`{}`,
		`{"question":"What is Alice's role?","k":3,"as_of":"2026-03-02T00:00:00Z"}`,
		`{"content":null}`,
		`[]`,
		`{"query":"\u0000\ud800"}`,
	} {
		f.Add(uint8(i), []byte(args))
	}
	d := daemontest.Start(f)
	srv := mcpserver.New(client.New(d.Addr, client.WithRetries(0)), mcpserver.Options{Agent: "fuzz"})
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(f.Context(), st, nil); err != nil {
		f.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz"}, nil).Connect(f.Context(), ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { cs.Close() })

	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		if !json.Valid(args) {
			t.Skip() // the client cannot send it
		}
		name := tools[int(which)%len(tools)]
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err == nil && res.IsError && (len(res.Content) == 0 || text(t, res) == "") {
			t.Errorf("%s(%s): a tool error without a message", name, args)
		}
		// A protocol error is allowed for arguments that are not an object;
		// either way the server must still be there.
		if err := cs.Ping(t.Context(), nil); err != nil {
			t.Fatalf("after %s(%s): the server is gone: %v", name, args, err)
		}
	})
}
