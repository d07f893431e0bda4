package mcpserver_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
)

// docArg is one argument as docs/mcp.md's tool table gives it.
type docArg struct {
	required bool
	oldName  string // taken for one release: then neither is required by the schema
}

var (
	docRow  = regexp.MustCompile("^\\| `([a-z_]+)` \\|\\s*([^|]*?)\\s*\\|")
	argCell = regexp.MustCompile("^(\\*\\*)?`([a-z_]+)`(\\*\\*)?(?: \\(old name `([a-z_]+)`\\))?$")
)

// docTools reads the table of docs/mcp.md: tool → argument → how it is given.
func docTools(t *testing.T) map[string]map[string]docArg {
	t.Helper()
	b, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]map[string]docArg{}
	for _, line := range strings.Split(string(b), "\n") {
		m := docRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		args := map[string]docArg{}
		for _, cell := range strings.Split(strings.TrimSpace(m[2]), ", ") {
			if cell == "" {
				continue
			}
			a := argCell.FindStringSubmatch(cell)
			if a == nil {
				t.Fatalf("docs/mcp.md, tool %s: cannot read the argument %q", m[1], cell)
			}
			args[a[2]] = docArg{required: a[1] != "", oldName: a[4]}
		}
		tools[m[1]] = args
	}
	if len(tools) == 0 {
		t.Fatal("docs/mcp.md has no tool table")
	}
	return tools
}

// TestToolTableMatchesTheSchemas: the documented tools, their arguments and
// which are required are those the server lists, so the two cannot drift.
func TestToolTableMatchesTheSchemas(t *testing.T) {
	cs := overStdio(t, mcpserver.New(client.New("127.0.0.1:1"), mcpserver.Options{Version: "test"}))
	listed, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]map[string]docArg{}
	for _, tl := range listed.Tools {
		sc := tl.InputSchema.(map[string]any)
		props, _ := sc["properties"].(map[string]any)
		var required []string
		req, _ := sc["required"].([]any)
		for _, r := range req {
			required = append(required, r.(string))
		}
		args := map[string]docArg{}
		for name := range props {
			if name != "agent" { // every tool's, said once above the table
				args[name] = docArg{required: slices.Contains(required, name)}
			}
		}
		served[tl.Name] = args
	}
	// The doc's row as the schema must say it: an old name is an optional
	// argument of its own, and one of the two names is required by the tool
	// itself, not by the schema.
	want := map[string]map[string]docArg{}
	for tool, args := range docTools(t) {
		want[tool] = map[string]docArg{}
		for name, a := range args {
			if a.oldName != "" {
				want[tool][a.oldName] = docArg{}
				a.required = false
			}
			want[tool][name] = docArg{required: a.required}
		}
	}
	if diff := cmp.Diff(want, served, cmp.AllowUnexported(docArg{})); diff != "" {
		t.Errorf("docs/mcp.md's tool table (-) differs from the served schemas (+):\n%s", diff)
	}
}
