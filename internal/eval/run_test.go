package eval_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/eval"
)

func mustParse(t *testing.T, src string) eval.Scenario {
	t.Helper()
	sc, err := eval.Parse([]byte(src), "test.yaml", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestRunArms checks the three arms and the counts on a small scenario with
// one good probe, one that leaks (its answer is in the question), one that
// recall misses, and one whose needs contradict it.
func TestRunArms(t *testing.T) {
	sc := mustParse(t, `
name: arms
agents: [main, other]
events:
  - at: 2026-03-01T09:00:00
    role: user
    content: "The spare key is under the blue flowerpot."
  - at: 2026-03-01T09:05:00
    agent: other
    role: user
    content: "The spare key is with the neighbour at number 9."
  - consolidate: 2026-03-01
probes:
  - ask: "Where is the spare key?"
    needs: ["Under the blue flowerpot."]
    expect_any: ["flowerpot"]
    expect_none: ["neighbour"]
  - ask: "Is the spare key under the blue flowerpot?"
    needs: ["Under the blue flowerpot."]
    expect_any: ["flowerpot"]
  - ask: "What is the wifi password?"
    needs: ["The wifi password is hunter2."]
    expect_any: ["hunter2"]
  - ask: "Where is the spare key?"
    agent: other
    needs: ["It is with the neighbour."]
    expect_any: ["number 9"]
`)
	r := &eval.Runner{Config: evalConfig(), TempDir: t.TempDir()}
	res := r.Run(t.Context(), sc)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	p := res.Probes
	if len(p) != 4 {
		t.Fatalf("%d probe results, want 4", len(p))
	}
	if !p[0].On.Pass || p[0].Off.Pass || !p[0].Oracle.Pass || p[0].Leaking || !strings.Contains(p[0].On.Context, "flowerpot") {
		t.Errorf("good probe: %+v", p[0])
	}
	if len(p[0].Citations) == 0 || !strings.Contains(p[0].On.Context, "["+p[0].Citations[0]+"]") {
		t.Errorf("the on arm's answer cites %q, want an item of its context:\n%s", p[0].Citations, p[0].On.Context)
	}
	if !p[1].Leaking || !p[1].Off.Pass {
		t.Errorf("a probe answered by its own question must leak: %+v", p[1])
	}
	if p[2].On.Pass || !strings.Contains(p[2].On.Why, `holds none of "hunter2"`) || !p[2].Oracle.Pass {
		t.Errorf("missed probe: %+v", p[2])
	}
	if !p[3].On.Pass || p[3].Oracle.Pass {
		t.Errorf("other agent's probe: on must pass, oracle must fail (its needs lack 'number 9'): %+v", p[3])
	}
	want := eval.Counts{Probes: 4, On: 3, Off: 1, Oracle: 3, Leaking: 1, Contribution: 2, Gap: 0}
	got := res.Counts
	got.ContextTokens, got.MeanContextTokens = 0, 0
	if got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	if res.Passed() {
		t.Error("a scenario with a failed on probe and a leak passed")
	}

	rep := r.RunAll(t.Context(), []eval.Scenario{sc})
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"FAIL arms", "on failed: \"What is the wifi password?\"", "off (leaks", "oracle failed", "total: 1 scenarios, 4 probes: on 3, off 1, oracle 3"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("text report lacks %q:\n%s", s, buf.String())
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var shape struct {
		Scenarios []struct {
			Name   string            `json:"name"`
			Probes []json.RawMessage `json:"probes"`
		} `json:"scenarios"`
		Total map[string]float64 `json:"total"`
	}
	if err := json.Unmarshal(b, &shape); err != nil {
		t.Fatal(err)
	}
	if len(shape.Scenarios) != 1 || shape.Scenarios[0].Name != "arms" || len(shape.Scenarios[0].Probes) != 4 ||
		shape.Total["probes"] != 4 || shape.Total["on"] != 3 || shape.Total["off"] != 1 || shape.Total["oracle"] != 3 || shape.Total["leaking"] != 1 {
		t.Errorf("JSON shape: %s", b)
	}
}

// TestForgetAndAbstain: forget goes through the API (delete and reject), and
// an abstaining probe fails when recall offers anything.
func TestForgetAndAbstain(t *testing.T) {
	sc := mustParse(t, `
name: forget
events:
  - at: 2026-04-01T08:00:00
    content: "My bike lock combination is 3-9-1."
  - at: 2026-04-01T08:01:00
    content: "I cycle to work on a green Brompton."
  - consolidate: 2026-04-01
  - forget: {match: "LOCK   combination"}
probes:
  - ask: "What is my bike lock combination?"
    needs: []
    expect_none: ["3-9-1"]
    abstain: true
  - ask: "What colour is my Brompton?"
    needs: ["A green Brompton."]
    expect_any: ["green"]
  - ask: "Which Brompton do I ride to work?"
    needs: []
    abstain: true
`)
	r := &eval.Runner{Config: evalConfig(), TempDir: t.TempDir()}
	res := r.Run(t.Context(), sc)
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	p := res.Probes
	// The memory is deleted and its fact rejected through the API; the day
	// record built before the forget still holds it until forgetting
	// reaches day records (PENDING: forget-after-consolidation).
	if strings.Contains(p[0].On.Context, "[memory:1]") || slices.ContainsFunc(strings.Split(p[0].On.Context, "\n"),
		func(l string) bool { return strings.HasPrefix(l, "[fact:") && strings.Contains(l, "combination") }) {
		t.Errorf("forgotten memory or its fact recalled: %+v", p[0].On)
	}
	if strings.Contains(p[0].On.Context, "3-9-1") && p[0].On.Pass {
		t.Errorf("a context holding an expect_none text passed: %+v", p[0].On)
	}
	if !p[1].On.Pass {
		t.Errorf("kept memory not recalled: %+v", p[1].On)
	}
	if p[2].On.Pass || !strings.Contains(p[2].On.Why, "where nothing relevant is stored") {
		t.Errorf("an abstain probe with items recalled passed: %+v", p[2].On)
	}
	if p[0].Leaking || p[2].Leaking || !p[0].Off.Pass {
		t.Errorf("abstain probes pass with no memory but never leak: %+v %+v", p[0], p[2])
	}
}

// TestRepeatAndDefaultAsOf: repeat writes N memories a minute apart with
// {i}, and a probe without as_of is asked after the last event.
func TestRepeatAndDefaultAsOf(t *testing.T) {
	sc := mustParse(t, `
name: repeat
events:
  - repeat: 1500
    at: 2026-05-01T00:00:00
    session: s
    content: "Ticket {i} moved to review."
  - consolidate: 2026-05-02
  - repeat: 1
    at: 2026-05-02T12:00:00
    content: "Lone repeat {i} done."
  - at: 2026-05-02T12:01:00
    content: "Template {i} kept as written."
probes:
  - ask: "lone repeat"
    needs: ["Lone repeat 1 done."]
    expect_any: ["Lone repeat 1 done"]
  - ask: "template kept"
    needs: ["Template {i} kept as written."]
    expect_any: ["Template {i} kept"]
  - ask: "ticket 1500"
    needs: ["Ticket 1500 moved to review."]
    expect_any: ["Ticket 1500 moved"]
`)
	if got, want := sc.End(time.UTC), time.Date(2026, 5, 3, 0, 1, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("End = %s, want %s", got, want)
	}
	r := &eval.Runner{Config: evalConfig(), TempDir: t.TempDir()}
	res := r.Run(t.Context(), sc)
	if res.Error != "" || !res.Probes[0].On.Pass || !res.Probes[1].On.Pass || !res.Probes[2].On.Pass || res.Probes[0].AsOf != "2026-05-03T00:01:00Z" {
		t.Errorf("repeat: %+v", res)
	}
	if !strings.Contains(res.Probes[2].On.Context, "2026-05-02 00:59") {
		t.Errorf("memory 1500 should be stamped 1499 minutes after the first: %s", res.Probes[0].On.Context)
	}
}
