package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/eval"
)

const minimal = `
name: ok
events:
  - at: 2026-01-01T10:00:00
    content: hello there
probes:
  - ask: what?
    needs: [hello]
    expect_any: [hello]
`

func TestParseErrors(t *testing.T) {
	probe := "probes:\n  - ask: q\n    needs: [x]\n    expect_any: [x]\n"
	tests := []struct{ name, src, want string }{
		{"empty", "", "the file is empty"},
		{"not yaml", "name: [", "invalid YAML"},
		{"two documents", minimal + "---\nname: b\n", "exactly one YAML document"},
		{"unknown top key", "name: a\nfoo: 1\n" + probe, "field foo not found"},
		{"duplicate key", "name: a\nname: b\n" + probe, "already defined"},
		{"bad name", "name: Bad_Name\n" + probe, "name \"Bad_Name\" must be"},
		{"no name", probe, "name \"\" must be"},
		{"bad agent", "name: a\nagents: [\"../x\"]\n" + probe, "agents[0]"},
		{"duplicate agent", "name: a\nagents: [x, x]\n" + probe, "listed twice"},
		{"reader not an agent", "name: a\nagents: [x, y]\nreads:\n  z: [x]\n" + probe, `reader "z" is not in agents`},
		{"reads itself", "name: a\nagents: [x, y]\nreads:\n  x: [x]\n" + probe, `reads.x: "x" must be another agent`},
		{"reads an unknown agent", "name: a\nagents: [x, y]\nreads:\n  x: [w]\n" + probe, `reads.x: "w" must be another agent`},
		{"no probes", "name: a\n", "at least one probe"},
		{"unknown event key", "name: a\nevents:\n  - at: 2026-01-01T10:00:00\n    content: x\n    mood: happy\n" + probe, "field mood not found in an event"},
		{"event without content", "name: a\nevents:\n  - at: 2026-01-01T10:00:00\n" + probe, "events[0]: content is required"},
		{"event without at", "name: a\nevents:\n  - content: x\n" + probe, "at is required"},
		{"bad time", "name: a\nevents:\n  - at: yesterday\n    content: x\n" + probe, "not a time such as"},
		{"line numbers", "name: a\nevents:\n  - at: 2026-01-01T10:00:00\n    content: x\n  - at: 2026-01-01T10:00:00\n    role: boss\n    content: y\n" + probe, "test.yaml:5: events[1]: role \"boss\" is not one of"},
		{"two kinds", "name: a\nevents:\n  - consolidate: 2026-01-01\n    content: x\n" + probe, "an event is one of"},
		{"empty event", "name: a\nevents:\n  - {}\n" + probe, "empty event"},
		{"bad date", "name: a\nevents:\n  - consolidate: 2026-13-01\n" + probe, "not a date"},
		{"importance range", "name: a\nevents:\n  - at: 2026-01-01T10:00:00\n    content: x\n    importance: 1.5\n" + probe, "importance must be between 0 and 1"},
		{"importance type", "name: a\nevents:\n  - at: 2026-01-01T10:00:00\n    content: x\n    importance: high\n" + probe, "cannot unmarshal"},
		{"repeat range", "name: a\nevents:\n  - repeat: 0\n    at: 2026-01-01T10:00:00\n    content: x\n" + probe, "repeat must be from 1"},
		{"repeat too many", "name: a\nevents:\n  - repeat: 10001\n    at: 2026-01-01T10:00:00\n    content: x\n" + probe, "repeat must be from 1"},
		{"unknown agent", "name: a\nevents:\n  - at: 2026-01-01T10:00:00\n    agent: bob\n    content: x\n" + probe, "agent \"bob\" is not in agents"},
		{"forget without match", "name: a\nevents:\n  - forget: {agent: main}\n" + probe, "forget: match is required"},
		{"forget unknown key", "name: a\nevents:\n  - forget: {match: x, all: true}\n" + probe, "field all not found in forget"},
		{"ingest without at", "name: a\nevents:\n  - ingest_file: {path: a.md, content: x}\n" + probe, "at (the file's mtime) is required"},
		{"ingest without path", "name: a\nevents:\n  - ingest_file: {at: 2026-01-01T10:00:00, content: x}\n" + probe, "path is required"},
		{"share without match", "name: a\nagents: [x, y]\nevents:\n  - share: {agent: x, to: y}\n" + probe, "share: match is required"},
		{"share without to", "name: a\nagents: [x, y]\nevents:\n  - share: {agent: x, match: m}\n" + probe, "share: to (the agent the copies go to) is required"},
		{"share to itself", "name: a\nagents: [x, y]\nevents:\n  - share: {agent: x, match: m, to: x}\n" + probe, "the agent the memories are in"},
		{"share to an unlisted agent", "name: a\nagents: [x, y]\nevents:\n  - share: {match: m, to: z}\n" + probe, "agent \"z\" is not in agents"},
		{"share unknown key", "name: a\nagents: [x, y]\nevents:\n  - share: {match: m, to: y, all: true}\n" + probe, "field all not found in share"},
		{"abstain with expect_origin", "name: a\nprobes:\n  - ask: q\n    abstain: true\n    expect_origin: [main/memory:1]\n", "cannot have expect_origin"},
		{"probe without ask", "name: a\nprobes:\n  - needs: [x]\n    expect_any: [x]\n", "ask is required"},
		{"probe asserts nothing", "name: a\nprobes:\n  - ask: q\n    needs: [x]\n", "expect_any is required"},
		{"probe without needs", "name: a\nprobes:\n  - ask: q\n    expect_any: [x]\n", "needs is required"},
		{"abstain with expect_any", "name: a\nprobes:\n  - ask: q\n    abstain: true\n    expect_any: [x]\n", "cannot have expect_any"},
		{"abstain with needs", "name: a\nprobes:\n  - ask: q\n    abstain: true\n    needs: [x]\n", "needs must be empty"},
		{"blank expectation", "name: a\nprobes:\n  - ask: q\n    needs: [x]\n    expect_any: [\"  \"]\n", "expect_any[0] is empty"},
		{"budget range", "name: a\nprobes:\n  - ask: q\n    budget_tokens: 0\n    needs: [x]\n    expect_any: [x]\n", "budget_tokens must be from 1"},
		{"probe agent", "name: a\nprobes:\n  - ask: q\n    agent: nobody\n    needs: [x]\n    expect_any: [x]\n", "agent \"nobody\" is not in agents"},
		{"bad as_of", "name: a\nprobes:\n  - ask: q\n    as_of: soon\n    needs: [x]\n    expect_any: [x]\n", "as_of"},
		{"not utf-8", "name: a\xff\n" + probe, "not valid UTF-8"},
		{"sequence at top", "- a\n- b\n", "cannot unmarshal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := eval.Parse([]byte(tc.src), "test.yaml", time.UTC)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseFormatExample(t *testing.T) {
	loc := time.FixedZone("box", 2*3600)
	sc, err := eval.Parse([]byte(`
name: budget-correction
about: a corrected value supersedes the old one
agents: [main, coder]
events:
  - at: 2026-03-02T10:15:00
    agent: main
    session: s1
    role: user
    type: conversation
    importance: 0.8
    source: chat
    content: "Met with Alice today. Q3 budget is approved, $2.4M."
  - consolidate: 2026-03-02
  - at: 2026-03-09T09:00:00Z
    agent: coder
    content: "Correction from finance: the Q3 budget is $2.1M, not $2.4M."
  - forget: {agent: main, match: "parking spot"}
  - ingest_file: {path: notes/alice.md, at: 2026-03-09T10:00:00, content: "..."}
  - share: {agent: main, match: "budget", to: coder}
  - repeat: 120
    at: 2026-03-01T08:00:00
    content: "Standup {i}: moved ticket {i} to review."
probes:
  - ask: "What is the Q3 budget?"
    agent: main
    as_of: 2026-03-10T12:00:00
    budget_tokens: 800
    needs: ["Q3 budget is $2.1M"]
    expect_any: ["2.1M"]
    expect_none: ["2.4M"]
  - ask: "Where do I park?"
    needs: []
    abstain: true
`), "f.yaml", loc)
	if err != nil {
		t.Fatal(err)
	}
	e := sc.Events
	if len(e) != 7 || e[0].Kind != eval.EventMemory || e[0].Importance == nil || *e[0].Importance != 0.8 ||
		e[0].Type != "conversation" || e[0].Source != "chat" || e[0].Session != "s1" ||
		!e[0].At.Equal(time.Date(2026, 3, 2, 8, 15, 0, 0, time.UTC)) {
		t.Errorf("memory event: %+v", e[0])
	}
	if e[1].Kind != eval.EventConsolidate || e[1].Day != "2026-03-02" {
		t.Errorf("consolidate: %+v", e[1])
	}
	if e[2].Agent != "coder" || !e[2].At.Equal(time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("zoned time or agent: %+v", e[2])
	}
	if e[3].Kind != eval.EventForget || e[3].Match != "parking spot" || e[3].Agent != "main" {
		t.Errorf("forget: %+v", e[3])
	}
	if e[4].Kind != eval.EventIngestFile || e[4].Path != "notes/alice.md" || e[4].Agent != "main" {
		t.Errorf("ingest_file: %+v", e[4])
	}
	if e[5].Kind != eval.EventShare || e[5].Match != "budget" || e[5].Agent != "main" || e[5].To != "coder" {
		t.Errorf("share: %+v", e[5])
	}
	if e[6].Repeat != 120 || e[6].Agent != "main" {
		t.Errorf("repeat: %+v", e[6])
	}
	p := sc.Probes
	if len(p) != 2 || p[0].Budget != 800 || p[1].Budget != eval.DefaultBudget || !p[1].Abstain || p[1].Agent != "main" {
		t.Errorf("probes: %+v", p)
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		text, want string
		ok         bool
	}{
		{"The Q3 budget is $2.1M.", "2.1m", true},
		{"Dr.  Osei\non Harbour\tRoad", "osei on harbour road", true},
		{"abc", "ABC", true},
		{"abc", "  ", false},
		{"a b", "ab", false},
	}
	for _, tc := range tests {
		if got := eval.Contains(tc.text, tc.want); got != tc.ok {
			t.Errorf("Contains(%q, %q) = %v", tc.text, tc.want, got)
		}
	}
}

// FuzzParse: any input gives a scenario or an error, never a panic, and a
// scenario that parses is consistent.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	for _, dir := range []string{"../../testdata/scenarios", sharedScenarios()} {
		if dir == "" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := eval.Parse(data, "fuzz.yaml", time.UTC)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if sc.Name == "" || len(sc.Agents) == 0 || len(sc.Probes) == 0 {
			t.Fatalf("parsed an incomplete scenario: %+v", sc)
		}
		in := func(a string) bool {
			for _, x := range sc.Agents {
				if x == a {
					return true
				}
			}
			return false
		}
		for _, e := range sc.Events {
			if e.Kind != eval.EventConsolidate && !in(e.Agent) {
				t.Fatalf("event agent %q not in %v", e.Agent, sc.Agents)
			}
			if e.Repeat < 1 || e.Repeat > eval.MaxRepeat {
				t.Fatalf("repeat %d", e.Repeat)
			}
			if e.Kind == eval.EventShare && (!in(e.To) || e.To == e.Agent) {
				t.Fatalf("share from %q to %q in %v", e.Agent, e.To, sc.Agents)
			}
		}
		for _, p := range sc.Probes {
			if !in(p.Agent) || p.Ask == "" || p.Budget < 1 || (!p.Abstain && len(p.ExpectAny) == 0) {
				t.Fatalf("inconsistent probe %+v", p)
			}
		}
	})
}
