package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dormouse-dev/dormouse/internal/proctest"
)

// mcpSession runs the built binary as `dormouse mcp args...` and connects
// to it over its stdin and stdout, as Claude Code would.
func mcpSession(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	return mcpSessionEnv(t, nil, args...)
}

// mcpSessionEnv is mcpSession with env added to the hermetic environment.
func mcpSessionEnv(t *testing.T, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp"}, args...)...)
	cmd.Env = hermeticEnv(env...)
	stderr := &proctest.Buffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to dormouse mcp: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v\n%s", err, stderr.String())
		}
		if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
			t.Errorf("dormouse mcp did not exit cleanly when stdin closed: %v\n%s", cmd.ProcessState, stderr.String())
		}
	})
	return cs
}

func toolText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s(%v): tool error %s", name, args, b.String())
	}
	return b.String()
}

func TestMCPOverStdioToTheDaemon(t *testing.T) {
	d := startDaemon(t, t.TempDir())
	cs := mcpSession(t, "--addr", d.addr)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 12 { // docs/mcp.md's table, profile, profile_edit, profile_remove and share_memory included
		t.Errorf("%d tools, want 12", len(tools.Tools))
	}
	if got := toolText(t, cs, "remember", map[string]any{"content": "The wifi password is on the fridge.", "agent": "home"}); got != "Stored as memory:1." {
		t.Errorf("remember = %q", got)
	}
	got := toolText(t, cs, "recall", map[string]any{"query": "wifi password", "agent": "home"})
	if !strings.Contains(got, "[memory:1]") || !strings.Contains(got, "fridge") {
		t.Errorf("recall = %q", got)
	}
	// The daemon has it: the MCP server is a client of the same API.
	out, _, code := run(t, nil, "", "list", "--addr", d.addr, "--agent", "home")
	if code != 0 || !strings.Contains(out, "fridge") {
		t.Errorf("dormouse list after MCP remember: exit %d\n%s", code, out)
	}
}

func TestMCPOverStdioOnTheFiles(t *testing.T) {
	data := t.TempDir()
	cs := mcpSession(t, "--data", data, "--agent", "coder")
	toolText(t, cs, "remember", map[string]any{"content": "The build needs CGO_ENABLED=0."})
	// ask works on the files too (the in-process API answers offline).
	if got := toolText(t, cs, "ask", map[string]any{"question": "What does the build need?"}); !strings.Contains(got, "CGO_ENABLED=0") || !strings.Contains(got, "[memory:1]") {
		t.Errorf("ask = %q", got)
	}
	got := toolText(t, cs, "status", nil)
	if !strings.Contains(got, "agent coder: 1 memories") || !strings.Contains(got, "Dormouse is ") {
		t.Errorf("status = %q", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "x", "agent": "other"}})
	if err != nil || !res.IsError {
		t.Errorf("a call naming another agent than --agent: %v, %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(data, "agents", "coder.db")); err != nil {
		t.Errorf("the agent's file: %v", err)
	}
}

func TestMCPUsage(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "--addr", "127.0.0.1:1", "--data", t.TempDir()},
		{"mcp", "--agent", "Not A Name"},
		{"mcp", "extra"},
	} {
		_, stderr, code := run(t, nil, "", args...)
		if code != 2 || !strings.Contains(stderr, "dormouse mcp:") {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr)
		}
	}
}

// TestMCPOverStdioSurvivesALineThatIsNotJSON: the real `dormouse mcp --data` answers a stray line
// with a JSON-RPC parse error (id null) and serves the request after it.
func TestMCPOverStdioSurvivesALineThatIsNotJSON(t *testing.T) {
	cmd := exec.Command(binary, "mcp", "--data", t.TempDir())
	cmd.Env = hermeticEnv()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &proctest.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("dormouse mcp after stdin closed: %v\n%s", err, stderr.String())
		}
	})
	io.WriteString(stdin, "hello?\n"+
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`+"\n")
	out := bufio.NewScanner(stdout)
	var got []string
	for len(got) < 2 && out.Scan() {
		got = append(got, out.Text())
	}
	if len(got) < 2 {
		t.Fatalf("answers %q, then the output ended: %v\n%s", got, out.Err(), stderr.String())
	}
	if !strings.Contains(got[0], `"id":null`) || !strings.Contains(got[0], `"code":-32700`) {
		t.Errorf("answer to the stray line = %s, want a parse error with id null", got[0])
	}
	if !strings.Contains(got[1], `"id":1`) || !strings.Contains(got[1], `"serverInfo"`) {
		t.Errorf("answer to initialize = %s, want its result", got[1])
	}
}
