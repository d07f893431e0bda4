package lcmemory_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/tools"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/client/lcmemory"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

var daemonAddr string

var _ tools.Tool = lcmemory.SearchTool{}

// TestMain runs a real daemon on loopback for the tests and the example.
func TestMain(m *testing.M) {
	d, stop, err := daemontest.TempRun()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	daemonAddr = d.Addr
	os.Setenv("DORMOUSE_ADDR", d.Addr)
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "daemon shutdown:", err)
		code = 1
	}
	os.Exit(code)
}

func TestMemory(t *testing.T) {
	ctx := t.Context()
	c := client.New(daemonAddr)
	mem := lcmemory.New(c, "lc-memory")
	mem.Session = "s1"
	mem.BudgetTokens = 60

	if got := mem.MemoryVariables(ctx); len(got) != 1 || got[0] != "history" {
		t.Errorf("MemoryVariables = %v", got)
	}
	// A new agent recalls nothing, without error.
	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "hello"})
	if err != nil || vars["history"] != "" {
		t.Fatalf("load for a new agent = %v, %v", vars, err)
	}
	if err := mem.SaveContext(ctx, map[string]any{"input": "The boiler code is 4417."}, map[string]any{"output": "Got it.", "intermediateSteps": nil}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := mem.SaveContext(ctx, map[string]any{"question": fmt.Sprintf("filler turn %d about gardening and tomatoes", i)}, map[string]any{"text": ""}); err != nil {
			t.Fatal(err)
		}
	}
	vars, err = mem.LoadMemoryVariables(ctx, map[string]any{"input": "what is the boiler code?", "history": "stale"})
	if err != nil {
		t.Fatal(err)
	}
	h := vars["history"].(string)
	if !strings.Contains(h, "boiler code is 4417") || !strings.HasPrefix(h, "[memory:1]") {
		t.Errorf("history = %q, want the boiler memory first", h)
	}
	// The budget bounds the context: ~4 characters a token.
	vars, _ = mem.LoadMemoryVariables(ctx, map[string]any{"input": "gardening tomatoes"})
	if h := vars["history"].(string); len(h) > 60*5 || !strings.Contains(h, "gardening") {
		t.Errorf("history within 60 tokens = %d bytes: %q", len(h), h)
	}
	// A very long input is cut to what the daemon accepts.
	if _, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": strings.Repeat("boiler é ", 2000)}); err != nil {
		t.Errorf("long input: %v", err)
	}

	// Ambiguous or non-text values are errors that say what to set.
	if err := mem.SaveContext(ctx, map[string]any{"a": "x", "b": "y"}, map[string]any{"output": "z"}); err == nil || !strings.Contains(err.Error(), "InputKey") {
		t.Errorf("two inputs and no InputKey: %v", err)
	}
	if err := mem.SaveContext(ctx, map[string]any{"input": 42}, map[string]any{"output": "z"}); err == nil || !strings.Contains(err.Error(), "not text") {
		t.Errorf("a number as input: %v", err)
	}
	mem.InputKey = "a"
	if err := mem.SaveContext(ctx, map[string]any{"a": "keyed input about the shed", "b": "y"}, map[string]any{"output": "z"}); err != nil {
		t.Errorf("with InputKey: %v", err)
	}

	// Clear deletes the session's turns, and only them.
	other := lcmemory.New(c, "lc-memory")
	other.Session = "s2"
	if err := other.SaveContext(ctx, map[string]any{"input": "kept in another session"}, map[string]any{"output": ""}); err != nil {
		t.Fatal(err)
	}
	if err := mem.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := c.Memories(ctx, "lc-memory", client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Memories) != 1 || page.Memories[0].SessionID != "s2" {
		t.Errorf("after Clear: %+v, want only the s2 memory", page.Memories)
	}
	if err := lcmemory.New(c, "lc-memory").Clear(ctx); !errors.Is(err, lcmemory.ErrNoSession) {
		t.Errorf("Clear without a session: %v", err)
	}
}

func TestSearchTool(t *testing.T) {
	ctx := t.Context()
	c := client.New(daemonAddr)
	tool := lcmemory.SearchTool{Client: c, Agent: "lc-search"}
	if tool.Name() != "search_memory" || !strings.Contains(tool.Description(), "citation") {
		t.Errorf("tool %q: %q", tool.Name(), tool.Description())
	}
	got, err := tool.Call(ctx, "anything")
	if err != nil || got != "Nothing is remembered yet." {
		t.Errorf("before any memory: %q, %v", got, err)
	}
	if _, err := c.Remember(ctx, "lc-search", client.MemoryInput{Content: "The spare key is under the blue pot."}); err != nil {
		t.Fatal(err)
	}
	got, err = tool.Call(ctx, "  where is the spare key  ")
	if err != nil || !strings.Contains(got, "[memory:1]") || !strings.Contains(got, "blue pot") {
		t.Errorf("search = %q, %v", got, err)
	}
	got, _ = tool.Call(ctx, "zebra")
	if !strings.Contains(got, "No memories match") {
		t.Errorf("no match = %q", got)
	}
	got, _ = tool.Call(ctx, " ")
	if !strings.Contains(got, "question or keywords") {
		t.Errorf("empty input = %q", got)
	}
	bad := lcmemory.SearchTool{Client: c, Agent: "Not Valid!"}
	if _, err := bad.Call(ctx, "x"); err == nil {
		t.Error("an invalid agent name gave no error")
	}
}
