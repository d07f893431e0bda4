package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runMain runs the command line in-process with a hermetic environment.
func runMain(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	cfg := filepath.Join(t.TempDir(), "empty.yaml") // never the machine's /etc/dormouse
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code = Main(context.Background(), args, Env{
		Stdin:   strings.NewReader(stdin),
		Stdout:  &o,
		Stderr:  &e,
		Environ: []string{"DORMOUSE_CONFIG=" + cfg},
		Euid:    1000,
	})
	return o.String(), e.String(), code
}

func TestExitCodes(t *testing.T) {
	data := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout or stderr
	}{
		{"no command", nil, ExitUsage, "Usage: dormouse COMMAND"},
		{"help", []string{"help"}, ExitOK, "Commands:"},
		{"unknown command", []string{"launch"}, ExitUsage, `unknown command "launch"`},
		{"command help", []string{"ingest", "--help"}, ExitOK, "-importance"},
		{"unknown flag", []string{"list", "--colour"}, ExitUsage, "flag provided but not defined"},
		{"extra argument", []string{"list", "--data", data, "extra"}, ExitUsage, "takes no arguments"},
		{"bad id", []string{"show", "--data", data, "memory:x"}, ExitUsage, "not a memory id"},
		{"nothing to ingest", []string{"ingest", "--data", data}, ExitUsage, "nothing to ingest"},
		{"bad time", []string{"ingest", "--data", data, "--at", "noon", "x"}, ExitUsage, "--at"},
		{"hostile agent", []string{"recall", "--data", data, "--agent", "../x", "q"}, ExitUsage, "invalid agent name"},
		{"unknown agent", []string{"list", "--data", data, "--agent", "ghost"}, ExitError, "no such agent"},
		{"version", []string{"version"}, ExitOK, "dormouse "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runMain(t, "", tc.args...)
			if code != tc.code || !strings.Contains(out+errOut, tc.out) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d mentioning %q", code, out, errOut, tc.code, tc.out)
			}
		})
	}
}

func TestLocalModeInProcess(t *testing.T) {
	data := t.TempDir()
	out, errOut, code := runMain(t, "Alice prefers green tea\n", "ingest", "--data", data, "--agent", "home", "--json")
	if code != ExitOK {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	var res struct {
		Results []struct{ ID int64 } `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Results) != 1 || res.Results[0].ID != 1 {
		t.Fatalf("ingest --json = %q (%v)", out, err)
	}
	out, _, code = runMain(t, "", "recall", "--data", data, "--agent", "home", "what", "does", "Alice", "drink?", "--budget", "50")
	if code != ExitOK || !strings.HasPrefix(out, "[memory:1] ") {
		t.Errorf("recall with flags after the query: exit %d, %q", code, out)
	}
	out, _, code = runMain(t, "", "recall", "--data", data, "--agent", "home", "volcanoes")
	if code != ExitOK || strings.TrimSpace(out) != "(nothing recalled)" {
		t.Errorf("recall of nothing: exit %d, %q", code, out)
	}
	out, _, code = runMain(t, "", "status", "--data", data)
	if code != ExitOK || !strings.Contains(out, "home") || !strings.Contains(out, "never") {
		t.Errorf("status: exit %d, %q", code, out)
	}
	for _, f := range []string{data, filepath.Join(data, "agents"), filepath.Join(data, "agents", "home.db")} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is mode %o: readable beyond its owner", f, fi.Mode().Perm())
		}
	}
}

func TestParseInterleavesFlagsAndArguments(t *testing.T) {
	fs := newFlags(Env{Stdout: &bytes.Buffer{}}, "x", "")
	j := fs.Bool("json", false, "")
	k := fs.Int("k", 0, "")
	pos, err := parse(fs, []string{"what", "--json", "did", "-k", "3", "Bob", "say"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"what", "did", "Bob", "say"}, pos); diff != "" || !*j || *k != 3 {
		t.Errorf("positional (-want +got):\n%s json=%v k=%d", diff, *j, *k)
	}
}

func TestDialable(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:7733": "127.0.0.1:7733",
		"0.0.0.0:7733":   "127.0.0.1:7733",
		":7733":          "127.0.0.1:7733",
		"[::]:7733":      "127.0.0.1:7733",
		"pi.local:80":    "pi.local:80",
	} {
		if got := dialable(in); got != want {
			t.Errorf("dialable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRefuseRootWrite(t *testing.T) {
	dir := t.TempDir() // owned by whoever runs the test
	owner := os.Getuid()
	err := refuseRootWrite(Env{Euid: 0}, dir)
	if owner == 0 && err != nil {
		t.Errorf("root writing into root's own directory refused: %v", err)
	}
	if owner != 0 && err == nil {
		t.Errorf("root writing into uid %d's directory was allowed", owner)
	}
	if err := refuseRootWrite(Env{Euid: 1000}, dir); err != nil {
		t.Errorf("non-root refused: %v", err)
	}
}
