package eval_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/eval"
)

// pending reads testdata/scenarios/PENDING: "name: the missing feature" per
// line. Those scenarios may fail (their feature belongs to a branch not yet
// merged); every other scenario must pass, and a pending one that passes
// must be taken off the list.
func pending(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, why, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(why) == "" {
			t.Fatalf("%s:%d: want \"scenario-name: the missing feature\", got %q", path, n, line)
		}
		out[strings.TrimSpace(name)] = strings.TrimSpace(why)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sharedScenarios finds ../shared/eval/scenarios beside the repository (or
// beside the worktrees' parent), as CI has it.
func sharedScenarios() string {
	return besideRepo("DORMOUSE_SHARED_SCENARIOS", "scenarios")
}

// outsideScenarios finds ../shared/eval/outside, the everyday scenarios
// written outside the project, where sharedScenarios looks.
func outsideScenarios() string {
	return besideRepo("DORMOUSE_OUTSIDE_SCENARIOS", "outside")
}

// besideRepo is the directory env names, else shared/eval/dir beside the
// repository or beside the worktrees' parent; "" when there is none.
func besideRepo(env, dir string) string {
	if d := os.Getenv(env); d != "" {
		return d
	}
	for _, d := range []string{"../../../shared/eval/" + dir, "../../../../shared/eval/" + dir} {
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	return ""
}

func evalConfig() config.Config {
	cfg := config.Default()
	cfg.Timezone = "UTC" // the scenarios' box; results must not depend on the test machine's zone
	return cfg
}

// TestScenarios plays our scenarios and the shared ones through the real
// API, as `dormouse eval` does, and holds every one to passing, except those
// PENDING names.
func TestScenarios(t *testing.T) {
	pend := pending(t, "../../testdata/scenarios/PENDING")
	dirs := []string{"../../testdata/scenarios"}
	if d := sharedScenarios(); d != "" {
		dirs = append(dirs, d)
	} else {
		t.Log("../shared/eval/scenarios is absent (set DORMOUSE_SHARED_SCENARIOS): playing only testdata/scenarios")
	}
	seen := playScenarios(t, dirs, pend)
	for name := range pend {
		if !seen[name] {
			t.Errorf("PENDING names %q, which is no scenario", name)
		}
	}
}

// TestOutsideScenarios plays the everyday scenarios written outside the
// project (../shared/eval/outside) and holds every one to passing. A clone
// without that directory skips it: the repository never needs it.
func TestOutsideScenarios(t *testing.T) {
	d := outsideScenarios()
	if d == "" {
		t.Skip("../shared/eval/outside is absent (set DORMOUSE_OUTSIDE_SCENARIOS to play it): nothing to play")
	}
	playScenarios(t, []string{d}, nil)
}

// playScenarios plays every scenario of dirs, each in its own subtest, and
// holds it to passing unless pend names it; it returns the names played.
func playScenarios(t *testing.T, dirs []string, pend map[string]string) map[string]bool {
	t.Helper()
	r := &eval.Runner{Config: evalConfig(), TempDir: t.TempDir()}
	seen := map[string]bool{}
	for _, dir := range dirs {
		scs, err := eval.LoadDir(dir, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if dir == "../../testdata/scenarios" && len(scs) < 30 {
			t.Errorf("%s holds %d scenarios; at least 30 are required", dir, len(scs))
		}
		for _, sc := range scs {
			if seen[sc.Name] {
				t.Errorf("scenario name %q is used in more than one directory", sc.Name)
			}
			seen[sc.Name] = true
			t.Run(sc.Name, func(t *testing.T) {
				t.Parallel() // each scenario has its own data directory, store and server
				playScenario(t, r, sc, pend)
			})
		}
	}
	return seen
}

// playScenario plays sc and reports what fails: a leak, an oracle that
// contradicts the expectations, a failing probe (unless pend names sc), or
// a pending scenario that passes.
func playScenario(t *testing.T, r *eval.Runner, sc eval.Scenario, pend map[string]string) {
	res := r.Run(t.Context(), sc)
	if res.Error != "" {
		t.Fatalf("%s: %s", sc.File, res.Error)
	}
	for _, p := range res.Probes {
		if p.Leaking {
			t.Errorf("probe %q leaks: it passes with no memory", p.Ask)
		}
		if !p.Oracle.Pass {
			t.Errorf("probe %q fails with the oracle context (its needs contradict its expectations): %s", p.Ask, p.Oracle.Why)
		}
	}
	why, isPending := pend[sc.Name]
	switch {
	case res.Passed() && isPending:
		t.Errorf("passes now: take it off testdata/scenarios/PENDING (%s)", why)
	case !res.Passed() && isPending:
		t.Logf("pending (%s): on %d/%d", why, res.Counts.On, res.Counts.Probes)
	case !res.Passed():
		for _, p := range res.Probes {
			if !p.On.Pass {
				t.Errorf("probe %q (as of %s) fails: %s\ncontext:\n%s", p.Ask, p.AsOf, p.On.Why, p.On.Context)
			}
		}
	}
}

func TestLoadDirErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eval.LoadDir(dir, time.UTC); err == nil || !strings.Contains(err.Error(), "no *.yaml files") {
		t.Errorf("empty dir: %v", err)
	}
	ok := "name: same\nevents:\n  - at: 2026-01-01T10:00:00\n    content: hello there\nprobes:\n  - ask: what?\n    needs: [hello]\n    expect_any: [hello]\n"
	write("a.yaml", ok)
	write("b.yaml", ok)
	write("c.yaml", "name: broken\nprobes: [")
	write("notes.txt", "ignored")
	scs, err := eval.LoadDir(dir, time.UTC)
	if err == nil || !strings.Contains(err.Error(), `name "same" is already used by`) || !strings.Contains(err.Error(), "c.yaml") {
		t.Errorf("LoadDir error = %v, want the duplicate name and c.yaml's error together", err)
	}
	if len(scs) != 1 {
		t.Errorf("LoadDir returned %d valid scenarios, want 1", len(scs))
	}
	if _, err := eval.LoadDir(filepath.Join(dir, "missing"), time.UTC); err == nil {
		t.Error("a missing directory is not an error")
	}
}
