package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const passing = `name: key
events:
  - at: 2026-03-01T09:00:00
    content: "The spare key is under the blue flowerpot."
probes:
  - ask: "Where is the spare key?"
    needs: ["Under the blue flowerpot."]
    expect_any: ["flowerpot"]
`

const leaking = `name: leak
events:
  - at: 2026-03-01T09:00:00
    content: "The spare key is under the blue flowerpot."
probes:
  - ask: "Is the spare key under the flowerpot?"
    needs: ["Under the blue flowerpot."]
    expect_any: ["flowerpot"]
`

func scenarioDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestEvalCommand(t *testing.T) {
	ok := scenarioDir(t, map[string]string{"key.yaml": passing})
	out, errOut, code := runMain(t, "", "eval", "--scenarios", ok)
	if code != ExitOK || !strings.Contains(out, "ok   key") || !strings.Contains(out, "total: 1 scenarios, 1 probes: on 1, off 0, oracle 1") {
		t.Errorf("passing eval: code %d\n%s%s", code, out, errOut)
	}

	out, _, code = runMain(t, "", "eval", "--json", "--scenarios", ok)
	var rep struct {
		Scenarios []struct {
			Name   string           `json:"name"`
			Probes []map[string]any `json:"probes"`
		} `json:"scenarios"`
		Total struct{ Probes, On, Off, Oracle, Leaking int } `json:"total"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitOK {
		t.Fatalf("--json: code %d, %v\n%s", code, err, out)
	}
	if len(rep.Scenarios) != 1 || rep.Scenarios[0].Name != "key" || len(rep.Scenarios[0].Probes) != 1 ||
		rep.Total.Probes != 1 || rep.Total.On != 1 || rep.Total.Off != 0 || rep.Total.Oracle != 1 {
		t.Errorf("--json report: %+v", rep)
	}

	bad := scenarioDir(t, map[string]string{"key.yaml": passing, "leak.yaml": leaking})
	out, errOut, code = runMain(t, "", "eval", "--scenarios", bad)
	if code != ExitError || !strings.Contains(out, "FAIL leak") || !strings.Contains(out, "leaking 1") || !strings.Contains(errOut, "leak") {
		t.Errorf("leaking eval: code %d\n%s%s", code, out, errOut)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval"}, "--scenarios DIR is required"},
		{[]string{"eval", "--scenarios", filepath.Join(ok, "nope")}, "no such file"},
		{[]string{"eval", "--scenarios", scenarioDir(t, map[string]string{"x.yaml": "name: x\n"})}, "at least one probe"},
		{[]string{"eval", "--scenarios", ok, "extra"}, "unexpected arguments"},
	} {
		_, errOut, code := runMain(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", tc.args, code, errOut, ExitUsage, tc.want)
		}
	}
}

func TestAskCommand(t *testing.T) {
	check := func(t *testing.T, where ...string) {
		if _, errOut, code := runMain(t, "", append([]string{"ingest", "--role", "user", "I am allergic to penicillin."}, where...)...); code != ExitOK {
			t.Fatalf("ingest: %d %s", code, errOut)
		}
		out, errOut, code := runMain(t, "", append([]string{"ask", "what am I allergic to?"}, where...)...)
		if code != ExitOK || !strings.HasPrefix(out, "I am allergic to penicillin. [memory:1]\n") || !strings.Contains(out, "Sources:\n  [memory:1]") {
			t.Errorf("ask: code %d\n%s%s", code, out, errOut)
		}
		out, _, code = runMain(t, "", append([]string{"ask", "--json", "allergic"}, where...)...)
		var res struct {
			Answer    string   `json:"answer"`
			Citations []string `json:"citations"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitOK || len(res.Citations) != 1 {
			t.Errorf("ask --json: code %d, %v: %s", code, err, out)
		}
		if _, errOut, code := runMain(t, "", append([]string{"ask"}, where...)...); code != ExitUsage || !strings.Contains(errOut, "give a question") {
			t.Errorf("ask without a question: %d %s", code, errOut)
		}
		if _, errOut, code := runMain(t, "", append([]string{"ask", "--agent", "ghost", "x"}, where...)...); code != ExitError || !strings.Contains(errOut, "ghost") {
			t.Errorf("ask an unknown agent: %d %s", code, errOut)
		}
	}
	t.Run("files", func(t *testing.T) { check(t, "--data", t.TempDir()) })
	t.Run("daemon", func(t *testing.T) { check(t, daemonOver(t, t.TempDir())...) })
}
