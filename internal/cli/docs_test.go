package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsListEveryCommand: docs/cli.md's command table is the help's
// command list, row for row.
func TestDocsListEveryCommand(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+)` \\| (.*) \\|$").FindAllStringSubmatch(string(b), -1) {
		got = append(got, m[1]+": "+strings.ReplaceAll(m[2], `\|`, "|")) // a table cell escapes its pipes
	}
	for _, c := range commands() {
		want = append(want, c.name+": "+c.summary)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/cli.md's command table:\n%s\nwant, as dormouse help lists them:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
