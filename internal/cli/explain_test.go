package cli

import (
	"net"
	"regexp"
	"strings"
	"testing"
)

func TestUnknownCommandSuggestsTheNearestOne(t *testing.T) {
	for typo, want := range map[string]string{"recal": "recall", "lsit": "list", "ingset": "ingest", "stauts": "status"} {
		out, errOut, code := runMain(t, "", typo)
		line := `unknown command "` + typo + `" — did you mean ` + want + "?"
		if code != ExitUsage || !strings.Contains(errOut, line) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", typo, code, out, errOut, line)
		}
		if strings.Contains(errOut, "Commands:") {
			t.Errorf("%s: the whole command list printed for a typo: %q", typo, errOut)
		}
	}
	_, errOut, _ := runMain(t, "", "launch")
	if strings.Contains(errOut, "did you mean") || !strings.Contains(errOut, "dormouse help") {
		t.Errorf("no near command: stderr %q; want no guess and a pointer to dormouse help", errOut)
	}
}

func TestBadFlagGetsTheErrorAndOneHint(t *testing.T) {
	out, errOut, code := runMain(t, "", "recall", "--colour", "x")
	want := "dormouse recall: flag provided but not defined: -colour\nRun 'dormouse recall --help' for its flags.\n"
	if code != ExitUsage || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout and stderr %q", code, out, errOut, want)
	}
}

func TestVersionFlags(t *testing.T) {
	want, _, _ := runMain(t, "", "version")
	for _, arg := range []string{"--version", "-version", "-v"} {
		out, errOut, code := runMain(t, "", arg)
		if code != ExitOK || out != want || !strings.HasPrefix(out, "dormouse ") {
			t.Errorf("%s: exit %d, %q %q; want %q as `dormouse version` prints", arg, code, out, errOut, want)
		}
	}
}

// The README writes --addr; help must too (Go's flag package accepts both).
func TestHelpPrintsDoubleDashFlags(t *testing.T) {
	singleDash := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	for _, c := range commands() {
		for _, args := range helpArgs(c.name) {
			out, _, code := runMain(t, "", args...)
			if code != ExitOK {
				t.Errorf("%q: exit %d", args, code)
			}
			if m := singleDash.FindString(out); m != "" {
				t.Errorf("%q prints a flag with one dash (%q):\n%s", args, m, out)
			}
		}
	}
	out, _, _ := runMain(t, "", "recall", "--help")
	for _, s := range []string{"\n  --budget-tokens N\n", "\n  --json\n", "\n  --agent NAME\n", `(default "main")`} {
		if !strings.Contains(out, s) {
			t.Errorf("recall --help lacks %q:\n%s", s, out)
		}
	}
}

func TestNoDaemonSaysHowToStartOne(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	for _, args := range [][]string{{"list"}, {"recall", "tea"}, {"ingest", "hello"}, {"facts"}, {"show", "fact:1"}} {
		_, errOut, code := runMain(t, "", append(args, "--addr", addr)...)
		want := "dormouse " + args[0] + ": cannot reach the daemon at " + addr +
			" — start it (`systemctl start dormouse`, `make run`) or pass --data DIR"
		if code != ExitError || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and one line beginning %q", args, code, errOut, want)
		}
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"recall", "list", "show", "status", "serve", "facts"}
	for in, want := range map[string]string{"recal": "recall", "recalll": "recall", "shwo": "show", "fact": "facts", "xyzzy": "", "s": ""} {
		if got := suggest(in, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHelpCommandIsTheCommandsHelp(t *testing.T) {
	want, _, _ := runMain(t, "", "recall", "--help")
	out, errOut, code := runMain(t, "", "help", "recall")
	if code != ExitOK || out != want || !strings.Contains(out, "--budget") {
		t.Errorf("help recall: exit %d, %q %q; want recall --help's %q", code, out, errOut, want)
	}
	if _, errOut, code := runMain(t, "", "help", "recal"); code != ExitUsage || !strings.Contains(errOut, "did you mean recall?") {
		t.Errorf("help recal: exit %d, %q", code, errOut)
	}
}
