package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// helpFlags are the flags a command's --help prints.
func helpFlags(t *testing.T, args []string) []string {
	t.Helper()
	out, _, code := runMain(t, "", args...)
	if code != ExitOK {
		t.Fatalf("%q: exit %d", args, code)
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z-]+)`).FindAllStringSubmatch(out, -1) {
		flags = append(flags, m[1])
	}
	return flags
}

// TestManPageHasEveryCommandAndFlagOfHelp: the man page lists each
// command and verb with every flag its --help prints, and groff reads it
// without a warning.
func TestManPageHasEveryCommandAndFlagOfHelp(t *testing.T) {
	man, errOut, code := runMain(t, "", "help", "--man")
	if code != ExitOK || !strings.HasPrefix(man, ".TH DORMOUSE 1 ") {
		t.Fatalf("help --man: exit %d, %q %q", code, man[:min(len(man), 200)], errOut)
	}
	n := 0
	for _, c := range commands() {
		for _, args := range helpArgs(c.name) {
			section := ".SS " + roff(strings.Join(args[:len(args)-1], " ")) + "\n"
			i := strings.Index(man, section)
			if i < 0 {
				t.Errorf("the man page has no section %q", section)
				continue
			}
			body, _, _ := strings.Cut(man[i+len(section):], ".SS ")
			for _, f := range helpFlags(t, args) {
				n++
				if !strings.Contains(body, `\fB\-\-`+roff(f)+`\fR`) {
					t.Errorf("the man page's %q lacks --%s", section, f)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d flags seen in all the commands' help", n)
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("no groff to read the page")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(man)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
}

// TestEveryCommandIsWalked: a command the help walk cannot see into (one of
// verbs missing from commandVerbs) would be left out of the man page and
// the completion script.
func TestEveryCommandIsWalked(t *testing.T) {
	for _, e := range walkHelp(t.Context()) {
		if len(e.flags) == 0 && e.synopsis == "" && e.command != "version" && e.command != "completion" {
			if _, ok := commandVerbs[e.command]; !ok {
				t.Errorf("%s --help defines no flags and it is not listed in commandVerbs", e.command)
			}
		}
	}
}

// TestBashCompletion sources the script in bash and completes as a person
// pressing tab would.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script, errOut, code := runMain(t, "", "completion", "bash")
	if code != ExitOK {
		t.Fatalf("completion bash: exit %d: %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "dormouse")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"dormouse rec":                          "recall",
		"dormouse s":                            "serve show share status",
		"dormouse recall --bu":                  "--budget-tokens",
		"dormouse facts --hi":                   "--history",
		"dormouse facts co":                     "correct",
		"dormouse facts correct --va":           "--value",
		"dormouse watch s":                      "scan status",
		"dormouse watch scan --ag":              "--agent",
		"dormouse ingest --file " + dir + "/no": dir + "/notes.md",
		"dormouse list --agent ":                "",
		"dormouse --vers":                       "--version",
	} {
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c",
			`source "$1"; read -ra COMP_WORDS <<< "$2"; [[ $2 == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _dormouse; echo "${COMPREPLY[*]}"`,
			"bash", file, line)
		out, err := cmd.CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("%q<TAB>: %q (%v), want %q", line, got, err, want)
		}
	}
	if _, _, code := runMain(t, "", "completion", "fish"); code != ExitUsage {
		t.Errorf("completion fish: exit %d, want 2", code)
	}
}
