package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
)

// TestStdioAnswersLinesThatAreNotMessages sends `dormouse mcp`'s transport lines that are not JSON,
// and JSON that is no JSON-RPC message: each is answered with a JSON-RPC error whose id is null, and
// a real MCP client connecting after them is served.
func TestStdioAnswersLinesThatAreNotMessages(t *testing.T) {
	d := daemontest.Start(t)
	srv := mcpserver.New(client.New(d.Addr), mcpserver.Options{})
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	var runErr error
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		runErr = srv.Run(ctx, mcpserver.Stdio(sr, sw))
	}()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		<-ended
	})
	bad := []struct {
		line string
		code int
	}{
		{"this is not json", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{`42`, -32600},
		{`{"hello":"world"}`, -32600},
	}
	go func() {
		for _, b := range bad {
			if _, err := io.WriteString(cw, b.line+"\n"); err != nil {
				return
			}
		}
	}()
	lines := make(chan string)
	out := bufio.NewReader(cr)
	go func() {
		for range bad {
			l, err := out.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
		}
	}()
	for _, b := range bad {
		select {
		case l := <-lines:
			var resp struct {
				JSONRPC string           `json:"jsonrpc"`
				ID      *json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(l), &resp); err != nil {
				t.Fatalf("answer to %q is not JSON: %q", b.line, l)
			}
			if resp.JSONRPC != "2.0" || resp.ID != nil || resp.Error.Code != b.code || resp.Error.Message == "" {
				t.Errorf("answer to %q = %s, want a JSON-RPC error %d with id null", b.line, l, b.code)
			}
		case <-ended:
			t.Fatalf("the server ended on %q instead of answering it: %v", b.line, runErr)
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: io.NopCloser(out), Writer: cw}, nil)
	if err != nil {
		t.Fatalf("connect after the bad lines: %v", err)
	}
	defer cs.Close()
	call(t, cs, "remember", map[string]any{"content": "still listening after garbage"}, false)
	mustContain(t, "status", call(t, cs, "status", nil, false), "agent main: 1 memories")
}
