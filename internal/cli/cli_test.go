package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/client"
)

// runMain runs the command line in-process with a hermetic environment.
func runMain(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "empty.yaml") // never the machine's /etc/dormouse
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return runEnv([]string{"DORMOUSE_CONFIG=" + cfg}, stdin, args...)
}

// runEnv runs the command line in-process with exactly the environment
// variables given, as an unprivileged user.
func runEnv(environ []string, stdin string, args ...string) (stdout, stderr string, code int) {
	var o, e bytes.Buffer
	code = Main(context.Background(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &o, Stderr: &e,
		Environ: environ, Euid: 1000})
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
		{"agents help lists create", []string{"agents", "--help"}, ExitOK, "dormouse agents create NAME"},
		{"agents help lists delete", []string{"agents", "--help"}, ExitOK, "dormouse agents delete NAME --yes"},
		{"agents help lists its flags", []string{"agents", "--help"}, ExitOK, "--json"},
		{"unknown flag", []string{"list", "--colour"}, ExitUsage, "flag provided but not defined"},
		{"extra argument", []string{"list", "--data", data, "extra"}, ExitUsage, "takes no arguments"},
		{"bad id", []string{"show", "--data", data, "memory:x"}, ExitUsage, "not a memory id"},
		{"nothing to ingest", []string{"ingest", "--data", data}, ExitUsage, "nothing to ingest"},
		{"bad time", []string{"ingest", "--data", data, "--at", "noon", "x"}, ExitUsage, "--at"},
		{"hostile agent", []string{"recall", "--data", data, "--agent", "../x", "q"}, ExitUsage, "invalid agent name"},
		{"unknown agent", []string{"list", "--data", data, "--agent", "ghost"}, ExitError, "no such agent"},
		{"version", []string{"version"}, ExitOK, "dormouse "},
		{"bench without a benchmark", []string{"bench"}, ExitUsage, "name a benchmark"},
		{"unknown benchmark", []string{"bench", "beir"}, ExitUsage, `unknown benchmark "beir"`},
		{"bench locomo bad samples", []string{"bench", "locomo", "--data", "x.json", "--k", "0"}, ExitUsage, "--k"},
		{"bench locomo missing file", []string{"bench", "locomo", "--data", filepath.Join(data, "none.json")}, ExitError, "read LoCoMo data"},
		{"bench locomo explain without questions", []string{"bench", "locomo", "--data", "x.json", "--explain"}, ExitUsage, "--explain needs --questions"},
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
	out, errOut, code = runMain(t, "", "recall", "--data", data, "--agent", "home", "volcanoes")
	if code != ExitOK || strings.TrimSpace(out) != "(nothing recalled)" || !strings.Contains(errOut, "nothing stored matches") {
		t.Errorf("recall of nothing: exit %d, %q, stderr %q", code, out, errOut)
	}
	out, _, code = runMain(t, "", "recall", "--data", data, "--agent", "home", "--explain", "--role", "", "green tea")
	if code != ExitOK || !strings.Contains(out, "[memory:1]") || !strings.Contains(out, "relevance 1.00") {
		t.Errorf("recall --explain: exit %d, %q", code, out)
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

func TestConsolidateCommand(t *testing.T) {
	twoDaysAgo := time.Now().AddDate(0, 0, -2)
	at := time.Date(twoDaysAgo.Year(), twoDaysAgo.Month(), twoDaysAgo.Day(), 12, 0, 0, 0, time.Local)
	day := at.Format(time.DateOnly)

	check := func(t *testing.T, where ...string) {
		t.Helper()
		if _, errOut, code := runMain(t, "", append([]string{"ingest", "--agent", "home", "--at", at.Format(time.RFC3339), "Alice's role is engineer."}, where...)...); code != ExitOK {
			t.Fatalf("ingest: exit %d: %s", code, errOut)
		}
		out, errOut, code := runMain(t, "", append([]string{"consolidate", "--agent", "home", "--dry-run", "--json"}, where...)...)
		if code != ExitOK {
			t.Fatalf("consolidate --dry-run: exit %d: %s", code, errOut)
		}
		var plan struct {
			Results []client.ConsolidateResult `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &plan); err != nil {
			t.Fatalf("consolidate --dry-run --json = %q: %v", out, err)
		}
		want := []client.DayPlan{{Day: day, Memories: 1, Unconsolidated: 1, Chunks: 1, EstimatedTokens: 19}}
		if len(plan.Results) != 1 || plan.Results[0].Plan == nil {
			t.Fatalf("dry run results = %+v", plan.Results)
		}
		if diff := cmp.Diff(plan.Results[0].Plan.Days, want); diff != "" {
			t.Errorf("plan mismatch (-got +want):\n%s", diff)
		}
		out, errOut, code = runMain(t, "", append([]string{"consolidate", "--all"}, where...)...)
		if code != ExitOK || !strings.Contains(out, "home") || !strings.Contains(out, day) || !strings.Contains(out, " ok ") {
			t.Errorf("consolidate --all: exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		out, _, code = runMain(t, "", append([]string{"status", "--json"}, where...)...)
		if code != ExitOK || !strings.Contains(out, `"unconsolidated": 0`) || !strings.Contains(out, `"last_consolidated_date": "`+day+`"`) {
			t.Errorf("status after consolidate: exit %d, %s", code, out)
		}
	}
	t.Run("files", func(t *testing.T) { check(t, "--data", t.TempDir()) })
	t.Run("daemon", func(t *testing.T) { check(t, testDaemon(t)...) })

	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"consolidate", "--data", data, "--agent", "home", "--all"}, ExitUsage, "not both"},
		{[]string{"consolidate", "--data", data, "--date", "yesterday"}, ExitUsage, "not a date"},
		{[]string{"consolidate", "--data", data, "--date", "2026-01-01", "--since", "2026-01-01"}, ExitUsage, "not both"},
		{[]string{"consolidate", "--data", data, "--agent", "ghost"}, ExitError, "no such agent"},
		{[]string{"consolidate", "--help"}, ExitOK, "-dry-run"},
	} {
		out, errOut, code := runMain(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.msg) {
			t.Errorf("%q: exit %d, %q %q; want exit %d mentioning %q", tc.args, code, out, errOut, tc.code, tc.msg)
		}
	}
}

// TestReadsCreateNoDataDir: a read of a data directory that does not exist
// (a typo in --data) says so, exits 1 and creates nothing; a write creates it.
func TestReadsCreateNoDataDir(t *testing.T) {
	typo := filepath.Join(t.TempDir(), "typo")
	for _, args := range [][]string{
		{"status"}, {"agents"}, {"agents", "list"}, {"list"}, {"recall", "q"}, {"ask", "q?"},
		{"facts"}, {"show", "memory:1"}, {"profile"}, {"export", "--agent", "main"},
		{"consolidate", "--dry-run"}, {"watch", "status"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, errOut, code := runMain(t, "", append(args, "--data", typo)...)
			if code != ExitError || !strings.Contains(errOut, "data directory "+typo+" does not exist") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 saying %s does not exist", code, out, errOut, typo)
			}
			if _, err := os.Stat(typo); !os.IsNotExist(err) {
				t.Fatalf("a read created %s (stat: %v)", typo, err)
			}
		})
	}
	if _, errOut, code := runMain(t, "", "ingest", "--data", typo, "first words"); code != ExitOK {
		t.Fatalf("ingest into a new data directory: exit %d: %s", code, errOut)
	}
	if out, _, code := runMain(t, "", "list", "--data", typo); code != ExitOK || !strings.Contains(out, "first words") {
		t.Errorf("list after the first ingest: exit %d, %q", code, out)
	}
}
