// Package eval measures whether Dormouse remembers: it plays memory
// scenarios (../shared/eval/FORMAT.md) through the real HTTP API, storage,
// consolidation and recall, and asks each probe three ways — with no memory,
// with the system, and with an oracle context — to report what memory
// contributes and what retrieval misses.
package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// Scenario is one parsed, validated scenario file.
type Scenario struct {
	Name   string
	About  string
	Agents []string
	Events []Event
	Probes []Probe
	File   string // where it was read from, for messages
}

// EventKind says what an event does.
type EventKind int

// The kinds of event.
const (
	EventMemory      EventKind = iota + 1 // a memory (Repeat times, one minute apart)
	EventConsolidate                      // the nightly consolidation of Day, for every agent
	EventForget                           // the user deletes and rejects what matches
	EventIngestFile                       // a file saved in the watched folder
)

// Event is one step of a scenario.
type Event struct {
	Kind       EventKind
	Line       int
	At         time.Time
	Agent      string
	Session    string
	Role       string
	Type       string
	Importance *float64
	Source     string
	Content    string
	Repeat     int    // EventMemory: how many times (1 unless repeat:)
	Repeated   bool   // EventMemory from repeat: ({i} is replaced)
	Day        string // EventConsolidate: YYYY-MM-DD
	Match      string // EventForget
	Path       string // EventIngestFile
}

// Probe is one question with what its answer must and must not hold.
type Probe struct {
	Line       int
	Ask        string
	Agent      string
	AsOf       time.Time
	Budget     int
	Needs      []string
	ExpectAny  []string
	ExpectNone []string
	Abstain    bool
}

// DefaultBudget is a probe's context budget when it gives none.
const DefaultBudget = 1000

// Limits on a scenario.
const (
	MaxRepeat       = 10_000
	MaxContentBytes = 64 << 10
	MaxBudget       = 200_000
	MaxFileBytes    = 4 << 20
)

var (
	nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	roles  = []string{"user", "assistant", "system", "tool", "note"}
)

type rawScenario struct {
	Name   string     `yaml:"name"`
	About  string     `yaml:"about"`
	Agents []string   `yaml:"agents"`
	Events []rawEvent `yaml:"events"`
	Probes []rawProbe `yaml:"probes"`
}

type rawEvent struct {
	At          *string    `yaml:"at"`
	Agent       *string    `yaml:"agent"`
	Session     *string    `yaml:"session"`
	Role        *string    `yaml:"role"`
	Type        *string    `yaml:"type"`
	Importance  *float64   `yaml:"importance"`
	Source      *string    `yaml:"source"`
	Content     *string    `yaml:"content"`
	Consolidate *string    `yaml:"consolidate"`
	Forget      *rawForget `yaml:"forget"`
	IngestFile  *rawIngest `yaml:"ingest_file"`
	Repeat      *int       `yaml:"repeat"`
}

type rawForget struct {
	Agent string `yaml:"agent"`
	Match string `yaml:"match"`
}

type rawIngest struct {
	Agent   string `yaml:"agent"`
	Path    string `yaml:"path"`
	At      string `yaml:"at"`
	Content string `yaml:"content"`
}

type rawProbe struct {
	Ask        string   `yaml:"ask"`
	Agent      string   `yaml:"agent"`
	AsOf       string   `yaml:"as_of"`
	Budget     *int     `yaml:"budget_tokens"`
	Needs      []string `yaml:"needs"`
	ExpectAny  []string `yaml:"expect_any"`
	ExpectNone []string `yaml:"expect_none"`
	Abstain    bool     `yaml:"abstain"`
}

// ParseError is a scenario file that is not valid.
type ParseError struct {
	File string
	Line int // 0 when unknown
	Msg  string
}

func (e *ParseError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Parse reads and validates one scenario. Times without a zone are in loc
// (the box's local time). file names the scenario in errors.
func Parse(data []byte, file string, loc *time.Location) (Scenario, error) {
	fail := func(line int, format string, args ...any) (Scenario, error) {
		return Scenario{}, &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxFileBytes {
		return fail(0, "the file is %d bytes; the limit is %d", len(data), MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return fail(0, "the file is not valid UTF-8")
	}
	if loc == nil {
		loc = time.Local
	}
	// The node tree gives line numbers; the strict decoder rejects unknown
	// and duplicate keys.
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return fail(0, "the file is empty")
		}
		return fail(0, "invalid YAML: %s", yamlMsg(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return fail(0, "the file must hold exactly one YAML document")
	}
	var raw rawScenario
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&raw); err != nil {
		return fail(0, "%s", yamlMsg(err))
	}
	evLines, prLines := itemLines(&doc, "events"), itemLines(&doc, "probes")
	line := func(lines []int, i int) int {
		if i < len(lines) {
			return lines[i]
		}
		return 0
	}

	sc := Scenario{Name: raw.Name, About: strings.TrimSpace(raw.About), File: file}
	if !nameRe.MatchString(raw.Name) {
		return fail(0, "name %q must be 1 to 64 of a-z, 0-9 and '-', starting with a letter or digit", raw.Name)
	}
	sc.Agents = raw.Agents
	if len(sc.Agents) == 0 {
		sc.Agents = []string{"main"}
	}
	for i, a := range sc.Agents {
		if err := store.ValidateAgentName(a); err != nil {
			return fail(0, "agents[%d]: %v", i, err)
		}
		if slices.Index(sc.Agents, a) != i {
			return fail(0, "agents: %q is listed twice", a)
		}
	}
	agent := func(l int, what, a string) (string, error) {
		if a == "" {
			return sc.Agents[0], nil
		}
		if !slices.Contains(sc.Agents, a) {
			return "", &ParseError{File: file, Line: l, Msg: fmt.Sprintf("%s: agent %q is not in agents %v", what, a, sc.Agents)}
		}
		return a, nil
	}
	parseAt := func(l int, what, v string) (time.Time, error) {
		t, err := parseTime(v, loc)
		if err != nil {
			return t, &ParseError{File: file, Line: l, Msg: fmt.Sprintf("%s: %v", what, err)}
		}
		return t, nil
	}

	for i, re := range raw.Events {
		l := line(evLines, i)
		what := fmt.Sprintf("events[%d]", i)
		ev, err := buildEvent(re, what, l, agent, parseAt)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				return Scenario{}, pe
			}
			return fail(l, "%s: %v", what, err)
		}
		sc.Events = append(sc.Events, ev)
	}

	if len(raw.Probes) == 0 {
		return fail(0, "probes: a scenario needs at least one probe")
	}
	for i, rp := range raw.Probes {
		l := line(prLines, i)
		what := fmt.Sprintf("probes[%d]", i)
		var err error
		p := Probe{Line: l, Ask: strings.TrimSpace(rp.Ask), Abstain: rp.Abstain, Budget: DefaultBudget,
			Needs: rp.Needs, ExpectAny: rp.ExpectAny, ExpectNone: rp.ExpectNone}
		if p.Ask == "" {
			return fail(l, "%s: ask is required", what)
		}
		if len(p.Ask) > 4096 {
			return fail(l, "%s: ask is %d bytes; the limit is 4096", what, len(p.Ask))
		}
		if p.Agent, err = agent(l, what, rp.Agent); err != nil {
			return Scenario{}, err
		}
		if rp.AsOf != "" {
			if p.AsOf, err = parseAt(l, what+".as_of", rp.AsOf); err != nil {
				return Scenario{}, err
			}
		}
		if rp.Budget != nil {
			if *rp.Budget < 1 || *rp.Budget > MaxBudget {
				return fail(l, "%s: budget_tokens must be from 1 to %d", what, MaxBudget)
			}
			p.Budget = *rp.Budget
		}
		for _, list := range []struct {
			name string
			v    []string
		}{{"needs", p.Needs}, {"expect_any", p.ExpectAny}, {"expect_none", p.ExpectNone}} {
			for j, s := range list.v {
				if Normalise(s) == "" {
					return fail(l, "%s: %s[%d] is empty", what, list.name, j)
				}
			}
		}
		switch {
		case p.Abstain && len(p.ExpectAny) > 0:
			return fail(l, "%s: an abstain probe expects nothing to be recalled, so it cannot have expect_any", what)
		case p.Abstain && len(p.Needs) > 0:
			return fail(l, "%s: an abstain probe has nothing relevant stored, so its needs must be empty", what)
		case !p.Abstain && len(p.ExpectAny) == 0:
			return fail(l, "%s: expect_any is required (or abstain: true): a probe must assert something", what)
		case !p.Abstain && len(p.Needs) == 0:
			return fail(l, "%s: needs is required: the oracle arm answers from it", what)
		}
		sc.Probes = append(sc.Probes, p)
	}
	return sc, nil
}

type agentFunc func(line int, what, a string) (string, error)
type timeFunc func(line int, what, v string) (time.Time, error)

// buildEvent checks that an item is exactly one kind of event with only
// that kind's keys.
func buildEvent(re rawEvent, what string, l int, agent agentFunc, parseAt timeFunc) (Event, error) {
	ev := Event{Line: l, Repeat: 1}
	memoryKeys := re.At != nil || re.Agent != nil || re.Session != nil || re.Role != nil || re.Type != nil ||
		re.Importance != nil || re.Source != nil || re.Content != nil
	kinds := 0
	for _, b := range []bool{re.Consolidate != nil, re.Forget != nil, re.IngestFile != nil, re.Repeat != nil || memoryKeys} {
		if b {
			kinds++
		}
	}
	if kinds == 0 {
		return ev, errors.New("empty event: give at and content, consolidate, forget, ingest_file or repeat")
	}
	if kinds > 1 {
		return ev, errors.New("an event is one of: a memory (at, content, ...), repeat (with at, content, ...), consolidate, forget or ingest_file")
	}
	var err error
	switch {
	case re.Consolidate != nil:
		ev.Kind = EventConsolidate
		d, perr := time.Parse(time.DateOnly, *re.Consolidate)
		if perr != nil {
			return ev, fmt.Errorf("consolidate: %q is not a date such as 2026-03-02", *re.Consolidate)
		}
		ev.Day = d.Format(time.DateOnly)
	case re.Forget != nil:
		ev.Kind = EventForget
		ev.Match = re.Forget.Match
		if Normalise(ev.Match) == "" {
			return ev, errors.New("forget: match is required")
		}
		if ev.Agent, err = agent(l, what+".forget", re.Forget.Agent); err != nil {
			return ev, err
		}
	case re.IngestFile != nil:
		ev.Kind = EventIngestFile
		f := re.IngestFile
		ev.Path, ev.Content = f.Path, f.Content
		switch {
		case strings.TrimSpace(f.Path) == "":
			return ev, errors.New("ingest_file: path is required")
		case len(f.Path) > 256:
			return ev, errors.New("ingest_file: path is longer than 256 bytes")
		case strings.TrimSpace(f.Content) == "":
			return ev, errors.New("ingest_file: content is required")
		case len(f.Content) > MaxContentBytes:
			return ev, fmt.Errorf("ingest_file: content is %d bytes; the limit is %d", len(f.Content), MaxContentBytes)
		case strings.ContainsRune(f.Content, 0) || strings.ContainsRune(f.Path, 0):
			return ev, errors.New("ingest_file: path and content must not contain NUL")
		case f.At == "":
			return ev, errors.New("ingest_file: at (the file's mtime) is required")
		}
		if ev.At, err = parseAt(l, what+".ingest_file.at", f.At); err != nil {
			return ev, err
		}
		if ev.Agent, err = agent(l, what+".ingest_file", f.Agent); err != nil {
			return ev, err
		}
	default:
		ev.Kind = EventMemory
		if re.Repeat != nil {
			if *re.Repeat < 1 || *re.Repeat > MaxRepeat {
				return ev, fmt.Errorf("repeat must be from 1 to %d", MaxRepeat)
			}
			ev.Repeat, ev.Repeated = *re.Repeat, true
		}
		if re.At == nil {
			return ev, errors.New("at is required")
		}
		if ev.At, err = parseAt(l, what+".at", *re.At); err != nil {
			return ev, err
		}
		if re.Content == nil || strings.TrimSpace(*re.Content) == "" {
			return ev, errors.New("content is required")
		}
		ev.Content = *re.Content
		if len(ev.Content) > MaxContentBytes-16 {
			return ev, fmt.Errorf("content is %d bytes; the limit is %d", len(ev.Content), MaxContentBytes)
		}
		if strings.ContainsRune(ev.Content, 0) {
			return ev, errors.New("content must not contain NUL")
		}
		ev.Agent, err = agent(l, what, deref(re.Agent))
		if err != nil {
			return ev, err
		}
		ev.Session, ev.Type, ev.Source = deref(re.Session), deref(re.Type), deref(re.Source)
		for _, f := range []struct{ name, v string }{{"session", ev.Session}, {"type", ev.Type}, {"source", ev.Source}} {
			if len(f.v) > 256 || strings.ContainsRune(f.v, 0) {
				return ev, fmt.Errorf("%s must be at most 256 bytes without NUL", f.name)
			}
		}
		if re.Role != nil {
			if !slices.Contains(roles, *re.Role) {
				return ev, fmt.Errorf("role %q is not one of %s", *re.Role, strings.Join(roles, ", "))
			}
			ev.Role = *re.Role
		}
		if re.Importance != nil {
			v := *re.Importance
			if !(v >= 0 && v <= 1) {
				return ev, fmt.Errorf("importance must be between 0 and 1, got %v", v)
			}
			ev.Importance = &v
		}
	}
	return ev, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// parseTime reads RFC 3339, with or without a zone (without: loc).
func parseTime(v string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return checkYear(t, v)
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return checkYear(t, v)
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time such as 2026-03-02T10:15:00 (RFC 3339; without a zone it is local time)", v)
}

func checkYear(t time.Time, v string) (time.Time, error) {
	if t.Year() < 1970 || t.Year() > 9999 {
		return time.Time{}, fmt.Errorf("%q is out of range", v)
	}
	return t, nil
}

// itemLines returns the line of each item of the top-level sequence key.
func itemLines(doc *yaml.Node, key string) []int {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != key || m.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		var lines []int
		for _, it := range m.Content[i+1].Content {
			lines = append(lines, it.Line)
		}
		return lines
	}
	return nil
}

// yamlMsg shortens the YAML library's messages.
func yamlMsg(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: ")
	s = strings.ReplaceAll(s, "unmarshal errors:\n  ", "")
	s = strings.ReplaceAll(s, "\n  ", "; ")
	s = strings.ReplaceAll(s, " in type eval.rawEvent", " in an event")
	s = strings.ReplaceAll(s, " in type eval.rawProbe", " in a probe")
	s = strings.ReplaceAll(s, " in type eval.rawScenario", "")
	s = strings.ReplaceAll(s, " in type eval.rawForget", " in forget")
	s = strings.ReplaceAll(s, " in type eval.rawIngest", " in ingest_file")
	return s
}

// Normalise lowercases s and collapses its whitespace: the form in which
// expectations are matched.
func Normalise(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Contains reports whether text holds want, case-insensitively on
// normalised whitespace.
func Contains(text, want string) bool {
	w := Normalise(want)
	return w != "" && strings.Contains(Normalise(text), w)
}

// End is a minute after the scenario's last event (a consolidation happens
// at the midnight after its day, in loc): a probe's default as_of.
func (sc Scenario) End(loc *time.Location) time.Time {
	var end time.Time
	for _, ev := range sc.Events {
		t := ev.At
		switch ev.Kind {
		case EventMemory:
			t = ev.At.Add(time.Duration(ev.Repeat-1) * time.Minute)
		case EventConsolidate:
			t = consolidationTime(ev.Day, loc)
		}
		if t.After(end) {
			end = t
		}
	}
	return end.Add(time.Minute)
}

// consolidationTime is when the nightly run of day happens: the midnight
// that ends it.
func consolidationTime(day string, loc *time.Location) time.Time {
	d, err := time.ParseInLocation(time.DateOnly, day, loc)
	if err != nil {
		return time.Time{}
	}
	return d.AddDate(0, 0, 1)
}
