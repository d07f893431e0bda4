// Package eval measures whether Dormouse remembers: it plays memory
// scenarios (docs/scenarios.md) through the real HTTP API, storage,
// consolidation and recall, and asks each probe three ways — with no memory,
// with the system, and with an oracle context — to report what memory
// contributes and what retrieval misses.
package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
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
	// Reads are the scenario's read grants, as agents.<reader>.reads: a
	// reader's probes recall from the agents it reads too.
	Reads  map[string][]string
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
	EventShare                            // every memory of Agent that matches is shared with To
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
	Match      string // EventForget, EventShare
	Path       string // EventIngestFile
	To         string // EventShare: the agent the copies go to
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
	// ExpectOrigin: some recalled item is a shared copy of one of these
	// ("assistant/memory:1").
	ExpectOrigin []string
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
	Name   string              `yaml:"name"`
	About  string              `yaml:"about"`
	Agents []string            `yaml:"agents"`
	Reads  map[string][]string `yaml:"reads"`
	Events []rawEvent          `yaml:"events"`
	Probes []rawProbe          `yaml:"probes"`
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
	Share       *rawShare  `yaml:"share"`
	Repeat      *int       `yaml:"repeat"`
}

type rawShare struct {
	Agent string `yaml:"agent"`
	Match string `yaml:"match"`
	To    string `yaml:"to"`
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
	Origin     []string `yaml:"expect_origin"`
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
	if loc == nil {
		loc = time.Local
	}
	sp := &scenarioParser{file: file, loc: loc}
	raw, doc, err := sp.decode(data)
	if err != nil {
		return Scenario{}, err
	}
	sc, err := sp.header(raw)
	if err != nil {
		return Scenario{}, err
	}
	sp.agents = sc.Agents
	evLines, prLines := itemLines(doc, "events"), itemLines(doc, "probes")
	for i, re := range raw.Events {
		ev, err := sp.event(re, fmt.Sprintf("events[%d]", i), lineOf(evLines, i))
		if err != nil {
			return Scenario{}, err
		}
		sc.Events = append(sc.Events, ev)
	}
	if len(raw.Probes) == 0 {
		return Scenario{}, sp.fail(0, "probes: a scenario needs at least one probe")
	}
	for i, rp := range raw.Probes {
		p, err := sp.probe(rp, fmt.Sprintf("probes[%d]", i), lineOf(prLines, i))
		if err != nil {
			return Scenario{}, err
		}
		sc.Probes = append(sc.Probes, p)
	}
	return sc, nil
}

// scenarioParser is one scenario file being read: errors name the file and
// the line.
type scenarioParser struct {
	file   string
	loc    *time.Location
	agents []string // once the header is read
}

func (sp *scenarioParser) fail(line int, format string, args ...any) *ParseError {
	return &ParseError{File: sp.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func lineOf(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

// decode reads the file twice: the node tree gives line numbers; the strict
// decoder rejects unknown and duplicate keys.
func (sp *scenarioParser) decode(data []byte) (rawScenario, *yaml.Node, error) {
	var raw rawScenario
	if len(data) > MaxFileBytes {
		return raw, nil, sp.fail(0, "the file is %d bytes; the limit is %d", len(data), MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return raw, nil, sp.fail(0, "the file is not valid UTF-8")
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return raw, nil, sp.fail(0, "the file is empty")
		}
		return raw, nil, sp.fail(0, "invalid YAML: %s", yamlMsg(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return raw, nil, sp.fail(0, "the file must hold exactly one YAML document")
	}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&raw); err != nil {
		return raw, nil, sp.fail(0, "%s", yamlMsg(err))
	}
	return raw, &doc, nil
}

// header checks the scenario's name and agents (main when none are listed).
func (sp *scenarioParser) header(raw rawScenario) (Scenario, error) {
	sc := Scenario{Name: raw.Name, About: strings.TrimSpace(raw.About), File: sp.file, Agents: raw.Agents}
	if !nameRe.MatchString(raw.Name) {
		return sc, sp.fail(0, "name %q must be 1 to 64 of a-z, 0-9 and '-', starting with a letter or digit", raw.Name)
	}
	if len(sc.Agents) == 0 {
		sc.Agents = []string{"main"}
	}
	for i, a := range sc.Agents {
		if err := store.ValidateAgentName(a); err != nil {
			return sc, sp.fail(0, "agents[%d]: %v", i, err)
		}
		if slices.Index(sc.Agents, a) != i {
			return sc, sp.fail(0, "agents: %q is listed twice", a)
		}
	}
	return sc, sp.reads(&sc, raw.Reads)
}

// reads checks the grants: readers and the agents they read among agents,
// none reading itself.
func (sp *scenarioParser) reads(sc *Scenario, reads map[string][]string) error {
	for _, reader := range slices.Sorted(maps.Keys(reads)) {
		if !slices.Contains(sc.Agents, reader) {
			return sp.fail(0, "reads: reader %q is not in agents %v", reader, sc.Agents)
		}
		for _, a := range reads[reader] {
			if !slices.Contains(sc.Agents, a) || a == reader {
				return sp.fail(0, "reads.%s: %q must be another agent of agents %v", reader, a, sc.Agents)
			}
		}
	}
	sc.Reads = reads
	return nil
}

// agent is a, or the first agent when a is empty; one not in agents fails.
func (sp *scenarioParser) agent(l int, what, a string) (string, error) {
	if a == "" {
		return sp.agents[0], nil
	}
	if !slices.Contains(sp.agents, a) {
		return "", sp.fail(l, "%s: agent %q is not in agents %v", what, a, sp.agents)
	}
	return a, nil
}

func (sp *scenarioParser) parseAt(l int, what, v string) (time.Time, error) {
	t, err := parseTime(v, sp.loc)
	if err != nil {
		return t, sp.fail(l, "%s: %v", what, err)
	}
	return t, nil
}

// event builds one event; an error that does not name its line gets the
// event's.
func (sp *scenarioParser) event(re rawEvent, what string, l int) (Event, error) {
	ev, err := sp.buildEvent(re, what, l)
	if err != nil {
		if pe, ok := errors.AsType[*ParseError](err); ok {
			return ev, pe
		}
		return ev, sp.fail(l, "%s: %v", what, err)
	}
	return ev, nil
}

// probe builds one probe and checks that it asserts something it can.
func (sp *scenarioParser) probe(rp rawProbe, what string, l int) (Probe, error) {
	var err error
	p := Probe{Line: l, Ask: strings.TrimSpace(rp.Ask), Abstain: rp.Abstain, Budget: DefaultBudget,
		Needs: rp.Needs, ExpectAny: rp.ExpectAny, ExpectNone: rp.ExpectNone, ExpectOrigin: rp.Origin}
	if p.Ask == "" {
		return p, sp.fail(l, "%s: ask is required", what)
	}
	if len(p.Ask) > 4096 {
		return p, sp.fail(l, "%s: ask is %d bytes; the limit is 4096", what, len(p.Ask))
	}
	if p.Agent, err = sp.agent(l, what, rp.Agent); err != nil {
		return p, err
	}
	if rp.AsOf != "" {
		if p.AsOf, err = sp.parseAt(l, what+".as_of", rp.AsOf); err != nil {
			return p, err
		}
	}
	if rp.Budget != nil {
		if *rp.Budget < 1 || *rp.Budget > MaxBudget {
			return p, sp.fail(l, "%s: budget_tokens must be from 1 to %d", what, MaxBudget)
		}
		p.Budget = *rp.Budget
	}
	if msg := probeExpectations(p); msg != "" {
		return p, sp.fail(l, "%s: %s", what, msg)
	}
	return p, nil
}

// probeExpectations says what is wrong with a probe's lists, or "".
func probeExpectations(p Probe) string {
	for _, list := range []struct {
		name string
		v    []string
	}{{"needs", p.Needs}, {"expect_any", p.ExpectAny}, {"expect_none", p.ExpectNone}, {"expect_origin", p.ExpectOrigin}} {
		for j, s := range list.v {
			if Normalise(s) == "" {
				return fmt.Sprintf("%s[%d] is empty", list.name, j)
			}
		}
	}
	switch {
	case p.Abstain && len(p.ExpectAny) > 0:
		return "an abstain probe expects nothing to be recalled, so it cannot have expect_any"
	case p.Abstain && len(p.ExpectOrigin) > 0:
		return "an abstain probe expects nothing to be recalled, so it cannot have expect_origin"
	case p.Abstain && len(p.Needs) > 0:
		return "an abstain probe has nothing relevant stored, so its needs must be empty"
	case !p.Abstain && len(p.ExpectAny) == 0:
		return "expect_any is required (or abstain: true): a probe must assert something"
	case !p.Abstain && len(p.Needs) == 0:
		return "needs is required: the oracle arm answers from it"
	}
	return ""
}

// buildEvent checks that an item is exactly one kind of event with only
// that kind's keys.
func (sp *scenarioParser) buildEvent(re rawEvent, what string, l int) (Event, error) {
	ev := Event{Line: l, Repeat: 1}
	if err := oneKind(re); err != nil {
		return ev, err
	}
	switch {
	case re.Consolidate != nil:
		return consolidateEvent(ev, *re.Consolidate)
	case re.Forget != nil:
		return sp.forgetEvent(ev, re.Forget, what)
	case re.IngestFile != nil:
		return sp.ingestFileEvent(ev, re.IngestFile, what)
	case re.Share != nil:
		return sp.shareEvent(ev, re.Share, what)
	}
	return sp.memoryEvent(ev, re, what)
}

// oneKind checks that an item has the keys of exactly one kind of event.
func oneKind(re rawEvent) error {
	memoryKeys := re.At != nil || re.Agent != nil || re.Session != nil || re.Role != nil || re.Type != nil ||
		re.Importance != nil || re.Source != nil || re.Content != nil
	kinds := 0
	for _, b := range []bool{re.Consolidate != nil, re.Forget != nil, re.IngestFile != nil, re.Share != nil, re.Repeat != nil || memoryKeys} {
		if b {
			kinds++
		}
	}
	if kinds == 0 {
		return errors.New("empty event: give at and content, consolidate, forget, ingest_file, share or repeat")
	}
	if kinds > 1 {
		return errors.New("an event is one of: a memory (at, content, ...), repeat (with at, content, ...), consolidate, forget, ingest_file or share")
	}
	return nil
}

func consolidateEvent(ev Event, day string) (Event, error) {
	ev.Kind = EventConsolidate
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ev, fmt.Errorf("consolidate: %q is not a date such as 2026-03-02", day)
	}
	ev.Day = d.Format(time.DateOnly)
	return ev, nil
}

func (sp *scenarioParser) forgetEvent(ev Event, f *rawForget, what string) (Event, error) {
	var err error
	ev.Kind = EventForget
	ev.Match = f.Match
	if Normalise(ev.Match) == "" {
		return ev, errors.New("forget: match is required")
	}
	ev.Agent, err = sp.agent(ev.Line, what+".forget", f.Agent)
	return ev, err
}

func (sp *scenarioParser) shareEvent(ev Event, s *rawShare, what string) (Event, error) {
	var err error
	ev.Kind, ev.Match = EventShare, s.Match
	if Normalise(ev.Match) == "" {
		return ev, errors.New("share: match is required")
	}
	if ev.Agent, err = sp.agent(ev.Line, what+".share", s.Agent); err != nil {
		return ev, err
	}
	if s.To == "" {
		return ev, errors.New("share: to (the agent the copies go to) is required")
	}
	if ev.To, err = sp.agent(ev.Line, what+".share.to", s.To); err != nil {
		return ev, err
	}
	if ev.To == ev.Agent {
		return ev, fmt.Errorf("share: to is %q, the agent the memories are in", ev.To)
	}
	return ev, nil
}

func (sp *scenarioParser) ingestFileEvent(ev Event, f *rawIngest, what string) (Event, error) {
	var err error
	ev.Kind = EventIngestFile
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
	if ev.At, err = sp.parseAt(ev.Line, what+".ingest_file.at", f.At); err != nil {
		return ev, err
	}
	ev.Agent, err = sp.agent(ev.Line, what+".ingest_file", f.Agent)
	return ev, err
}

// memoryEvent builds a memory (repeated, with repeat) and checks its fields.
func (sp *scenarioParser) memoryEvent(ev Event, re rawEvent, what string) (Event, error) {
	var err error
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
	if ev.At, err = sp.parseAt(ev.Line, what+".at", *re.At); err != nil {
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
	if ev.Agent, err = sp.agent(ev.Line, what, deref(re.Agent)); err != nil {
		return ev, err
	}
	return memoryLabels(ev, re)
}

// memoryLabels checks a memory's session, type, source, role and importance.
func memoryLabels(ev Event, re rawEvent) (Event, error) {
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
	s = strings.ReplaceAll(s, " in type eval.rawShare", " in share")
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
