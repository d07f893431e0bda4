package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// TestDocsNameTestsThatExist: every test, fuzz target and benchmark the
// docs name as proof (`TestChaos`) is a function of the tree's tests, so a
// renamed or deleted test cannot leave a claim without its proof.
func TestDocsNameTestsThatExist(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append(docs, "../../README.md")
	named := map[string][]string{}
	re := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)")
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			named[m[1]] = append(named[m[1]], filepath.Base(d))
		}
	}
	if len(named) < 50 {
		t.Fatalf("the docs name only %d tests: is ../../docs there?", len(named))
	}
	var src strings.Builder
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		src.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, where := range named {
		if !strings.Contains(src.String(), "func "+name+"(") {
			t.Errorf("%s names %s, which no test file defines", strings.Join(slices.Compact(where), ", "), name)
		}
	}
}
