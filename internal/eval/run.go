package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Runner plays scenarios. Each runs in a fresh temporary data directory
// behind the real HTTP API (internal/server over httptest), with the store,
// recall engine, consolidation engine and answerer built from Config as the
// daemon builds them; only the clock is the scenario's.
type Runner struct {
	Config  config.Config // Timezone is the box's local time; DataDir is ignored
	Environ []string      // where an LLM provider's key is found
	Logger  *slog.Logger
	// TempDir is where the data directories are made ("" is os.TempDir).
	TempDir string
}

// Arm is one way a probe was asked.
type Arm struct {
	Pass bool   `json:"pass"`
	Why  string `json:"why,omitempty"` // why it failed
	// Context is what the arm held: the recalled context (on), the needs
	// (oracle) or nothing (off).
	Context string `json:"context"`
	Answer  string `json:"answer,omitempty"`
	Items   int    `json:"items"`
	Tokens  int    `json:"tokens"`
}

// ProbeResult is one probe asked three ways.
type ProbeResult struct {
	Ask     string `json:"ask"`
	Agent   string `json:"agent"`
	AsOf    string `json:"as_of"`
	Abstain bool   `json:"abstain,omitempty"`
	On      Arm    `json:"on"`
	Off     Arm    `json:"off"`
	Oracle  Arm    `json:"oracle"`
	// Leaking is a probe answered without memory: it measures nothing.
	// Abstain probes cannot leak (no memory trivially finds nothing).
	Leaking bool `json:"leaking"`
	// Citations is the on arm's answer's citations (all checked to be in
	// its context).
	Citations []string `json:"citations"`
}

// Counts are probes passed per arm and what follows from them.
type Counts struct {
	Probes  int `json:"probes"`
	On      int `json:"on"`
	Off     int `json:"off"`
	Oracle  int `json:"oracle"`
	Leaking int `json:"leaking"`
	// Contribution is on − off: what memory adds.
	Contribution int `json:"contribution"`
	// Gap is oracle − on: what retrieval misses.
	Gap int `json:"gap"`
	// ContextTokens is the on arm's context tokens, summed.
	ContextTokens int `json:"context_tokens"`
	// MeanContextTokens is ContextTokens per probe.
	MeanContextTokens float64 `json:"mean_context_tokens"`
}

func (c *Counts) add(p ProbeResult) {
	c.Probes++
	c.On += b2i(p.On.Pass)
	c.Off += b2i(p.Off.Pass)
	c.Oracle += b2i(p.Oracle.Pass)
	c.Leaking += b2i(p.Leaking)
	c.ContextTokens += p.On.Tokens
	c.finish()
}

func (c *Counts) sum(o Counts) {
	c.Probes += o.Probes
	c.On += o.On
	c.Off += o.Off
	c.Oracle += o.Oracle
	c.Leaking += o.Leaking
	c.ContextTokens += o.ContextTokens
	c.finish()
}

func (c *Counts) finish() {
	c.Contribution, c.Gap = c.On-c.Off, c.Oracle-c.On
	if c.Probes > 0 {
		c.MeanContextTokens = float64(c.ContextTokens) / float64(c.Probes)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ScenarioResult is one scenario's run.
type ScenarioResult struct {
	Name   string        `json:"name"`
	About  string        `json:"about,omitempty"`
	File   string        `json:"file,omitempty"`
	Probes []ProbeResult `json:"probes"`
	Counts Counts        `json:"counts"`
	// Error is why the scenario could not be played (an API call failed);
	// its probes then count as failed.
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Passed reports whether every on probe passed, none leaked and the
// scenario ran.
func (r ScenarioResult) Passed() bool {
	return r.Error == "" && r.Counts.On == r.Counts.Probes && r.Counts.Leaking == 0
}

// Report is a run over many scenarios.
type Report struct {
	Provider  string           `json:"provider"`
	Scenarios []ScenarioResult `json:"scenarios"`
	Total     Counts           `json:"total"`
	Failed    []string         `json:"failed"` // scenarios that did not pass
}

// Passed reports whether every scenario passed.
func (r Report) Passed() bool { return len(r.Failed) == 0 }

// LoadDir parses every *.yaml in dir, sorted by file name; names must be
// unique. All files' errors are reported together.
func LoadDir(dir string, loc *time.Location) ([]Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("list scenarios in %s: %w", dir, err)
	}
	if len(files) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("scenarios: %w", err)
		}
		return nil, fmt.Errorf("scenarios: no *.yaml files in %s", dir)
	}
	sort.Strings(files)
	var out []Scenario
	var errs []error
	names := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("read scenario: %w", err))
			continue
		}
		sc, err := Parse(data, f, loc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := names[sc.Name]; dup {
			errs = append(errs, &ParseError{File: f, Msg: fmt.Sprintf("name %q is already used by %s", sc.Name, prev)})
			continue
		}
		names[sc.Name] = f
		out = append(out, sc)
	}
	return out, errors.Join(errs...)
}

// RunAll plays scenarios one after another.
func (r *Runner) RunAll(ctx context.Context, scs []Scenario) Report {
	rep := Report{Provider: r.Config.LLM.Provider, Scenarios: []ScenarioResult{}, Failed: []string{}}
	for _, sc := range scs {
		res := r.Run(ctx, sc)
		rep.Scenarios = append(rep.Scenarios, res)
		rep.Total.sum(res.Counts)
		if !res.Passed() {
			rep.Failed = append(rep.Failed, res.Name)
		}
	}
	return rep
}

// clock is the scenario's time, which the server, the consolidation engine
// and the recall engine read.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// world is one scenario's running system.
type world struct {
	sc    Scenario
	loc   *time.Location
	clock *clock
	cl    *client.Client
	http  *http.Client
	url   string
	ans   *answer.Answerer // for the off and oracle arms with a model
	// rebuild re-runs the days whose records cited a file's replaced
	// memories, as the daemon's DayRebuilder does a few seconds later.
	rebuild *daemon.DayRebuilder
}

// Run plays one scenario. An error that stops it is reported in the result.
func (r *Runner) Run(ctx context.Context, sc Scenario) ScenarioResult {
	start := time.Now()
	res := ScenarioResult{Name: sc.Name, About: sc.About, File: sc.File, Probes: []ProbeResult{}}
	err := r.run(ctx, sc, &res)
	if err != nil {
		res.Error = err.Error()
		res.Probes = res.Probes[:0]
		res.Counts = Counts{Probes: len(sc.Probes)}
		for _, p := range sc.Probes {
			res.Probes = append(res.Probes, ProbeResult{Ask: p.Ask, Agent: p.Agent, Abstain: p.Abstain,
				On: Arm{Why: "not asked: " + err.Error()}, Citations: []string{}})
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

func (r *Runner) run(ctx context.Context, sc Scenario, res *ScenarioResult) (err error) {
	cfg := r.Config
	log := r.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	loc := cfg.Location()
	dir, err := os.MkdirTemp(r.TempDir, "dormouse-eval-*")
	if err != nil {
		return fmt.Errorf("make a data directory: %w", err)
	}
	defer os.RemoveAll(dir)
	cfg.DataDir = dir
	clk := &clock{}

	s, err := daemon.Open(ctx, cfg, r.Environ, log)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close store: %w", cerr)
		}
	}()
	switch {
	case s.ConsolidateErr != nil:
		return fmt.Errorf("set up consolidation: %w", s.ConsolidateErr)
	case s.AnswerErr != nil:
		return fmt.Errorf("set up answers: %w", s.AnswerErr)
	case s.VisionErr != nil:
		return fmt.Errorf("set up image descriptions: %w", s.VisionErr)
	}
	s.Consolidate.Now, s.Recall.Now = clk.Now, clk.Now
	api := server.New(s.Store, s.Recall, server.Options{
		MaxBodyBytes:    cfg.API.MaxBodyBytes,
		MaxBatch:        cfg.API.MaxBatch,
		MaxContentBytes: cfg.API.MaxContentBytes,
		Agents:          sc.Agents, // the scenario's agents, as api.agents
		Reads:           gate.NewReads(sc.Reads),
		Logger:          log,
		Now:             clk.Now,
		Consolidate:     s.Consolidate,
		Answer:          s.Answer,
		Files:           s.Watchers.Ingester(),
	})
	api.SetReady(true)
	ts := httptest.NewServer(api)
	defer ts.Close()
	w := &world{sc: sc, loc: loc, clock: clk, cl: client.New(ts.URL, client.WithHTTPClient(ts.Client())), http: ts.Client(), url: ts.URL, ans: s.Answer,
		rebuild: s.Rebuilder}

	for _, ev := range sc.Events {
		if err := w.apply(ctx, ev); err != nil {
			return fmt.Errorf("line %d: %w", ev.Line, err)
		}
	}
	if s.Embedder != nil { // the daemon's worker embeds in the background; the probes come after it
		if err := s.Embedder.Pass(ctx); err != nil {
			return fmt.Errorf("embed the memories: %w", err)
		}
	}
	end := sc.End(loc)
	for _, p := range sc.Probes {
		pr, err := w.probe(ctx, p, end)
		if err != nil {
			return fmt.Errorf("probe at line %d (%q): %w", p.Line, p.Ask, err)
		}
		res.Probes = append(res.Probes, pr)
		res.Counts.add(pr)
	}
	return nil
}

func (w *world) apply(ctx context.Context, ev Event) error {
	switch ev.Kind {
	case EventMemory:
		ins := make([]client.MemoryInput, 0, ev.Repeat)
		for i := 1; i <= ev.Repeat; i++ {
			content := ev.Content
			if ev.Repeated {
				content = strings.ReplaceAll(content, "{i}", strconv.Itoa(i))
			}
			at := ev.At.Add(time.Duration(i-1) * time.Minute)
			ins = append(ins, client.MemoryInput{Content: content, SessionID: ev.Session, Role: ev.Role,
				InteractionType: ev.Type, Importance: ev.Importance, Source: ev.Source, Timestamp: at})
		}
		w.clock.set(ev.At.Add(time.Duration(ev.Repeat-1) * time.Minute))
		for len(ins) > 0 {
			n := min(len(ins), 1000)
			if _, err := w.cl.RememberBatch(ctx, ev.Agent, ins[:n]); err != nil {
				return fmt.Errorf("store memory: %w", err)
			}
			ins = ins[n:]
		}
	case EventIngestFile:
		// Through the watched folders' pipeline, as a file saved at path
		// with mtime at: a re-saved path replaces its memories.
		w.clock.set(ev.At)
		out, err := w.cl.UploadFile(ctx, ev.Agent, path.Base(ev.Path), []byte(ev.Content), client.UploadOptions{MTime: ev.At, Path: ev.Path})
		if err != nil {
			return fmt.Errorf("ingest file %s: %w", ev.Path, err)
		}
		if out.Retired > 0 {
			if err := w.rebuild.Rebuild(ctx, ev.Agent); err != nil {
				return fmt.Errorf("rebuild the days that cited the old %s: %w", ev.Path, err)
			}
		}
	case EventConsolidate:
		w.clock.set(consolidationTime(ev.Day, w.loc))
		agents, err := w.cl.Agents(ctx)
		if err != nil {
			return fmt.Errorf("list agents: %w", err)
		}
		for _, a := range w.sc.Agents {
			if !slices.Contains(agents, a) {
				continue
			}
			res, err := w.cl.Consolidate(ctx, a, client.ConsolidateRequest{Date: ev.Day})
			var ae *client.APIError
			if errors.As(err, &ae) && ae.Code == "unknown_agent" {
				continue // listed but nothing stored yet: nothing to consolidate
			}
			if err != nil {
				return fmt.Errorf("consolidate %s for %s: %w", ev.Day, a, err)
			}
			for _, run := range res.Runs {
				if run.Status != store.RunOK {
					return fmt.Errorf("consolidate %s for %s: run %s: %s", ev.Day, a, run.Status, run.Error)
				}
			}
		}
	case EventForget:
		return w.forget(ctx, ev.Agent, ev.Match)
	case EventShare:
		return w.share(ctx, ev.Agent, ev.Match, ev.To)
	default:
		return fmt.Errorf("unknown event kind %d", ev.Kind)
	}
	return nil
}

// matching is the ids of agent's memories whose content holds match (none
// for an agent not made yet).
func (w *world) matching(ctx context.Context, agent, match string) ([]int64, error) {
	var ids []int64
	cursor := ""
	for {
		page, err := w.cl.Memories(ctx, agent, client.ListOptions{Limit: 1000, Cursor: cursor})
		if err != nil {
			var ae *client.APIError
			if errors.As(err, &ae) && ae.Code == "unknown_agent" {
				return nil, nil
			}
			return nil, fmt.Errorf("list memories: %w", err)
		}
		for _, m := range page.Memories {
			if Contains(m.Content, match) {
				ids = append(ids, m.ID)
			}
		}
		if page.NextCursor == "" {
			return ids, nil
		}
		cursor = page.NextCursor
	}
}

// share shares every memory of agent whose content holds match with agent
// to, through the API.
func (w *world) share(ctx context.Context, agent, match, to string) error {
	ids, err := w.matching(ctx, agent, match)
	if err != nil {
		return fmt.Errorf("share: %w", err)
	}
	if len(ids) == 0 {
		return fmt.Errorf("share: no memory of %s holds %q", agent, match)
	}
	for _, id := range ids {
		if _, err := w.cl.ShareMemory(ctx, agent, id, to); err != nil {
			return fmt.Errorf("share: memory %d with %s: %w", id, to, err)
		}
	}
	return nil
}

// forget does what a user who wants something forgotten does through the
// API: deletes every memory whose content holds match and rejects every
// fact that does.
func (w *world) forget(ctx context.Context, agent, match string) error {
	del, err := w.matching(ctx, agent, match)
	if err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	for _, id := range del {
		if err := w.cl.DeleteMemory(ctx, agent, id); err != nil {
			return fmt.Errorf("forget: delete memory %d: %w", id, err)
		}
	}
	var facts struct {
		Facts []client.Fact `json:"facts"`
	}
	if err := w.get(ctx, "/v1/agents/"+url.PathEscape(agent)+"/facts?history=true&limit=10000", &facts); err != nil {
		return fmt.Errorf("forget: list facts: %w", err)
	}
	for _, f := range facts.Facts {
		if f.Rejected {
			continue
		}
		if Contains(f.Content, match) || Contains(f.Entity+" "+f.Attribute+" "+f.Value, match) {
			if err := w.cl.RejectFact(ctx, agent, f.ID); err != nil {
				return fmt.Errorf("forget: reject fact %d: %w", f.ID, err)
			}
		}
	}
	return w.removeProfileLines(ctx, agent, match)
}

// removeProfileLines removes every current profile line that holds match,
// as the user would on the page.
func (w *world) removeProfileLines(ctx context.Context, agent, match string) error {
	lines, err := w.cl.Profile(ctx, agent, client.ProfileOptions{})
	if err != nil {
		return fmt.Errorf("forget: read the profile: %w", err)
	}
	for _, l := range lines {
		if !Contains(l.Text, match) && !Contains(l.Value, match) {
			continue
		}
		id, _ := strconv.ParseInt(strings.TrimPrefix(l.ID, "profile:"), 10, 64)
		if err := w.cl.RemoveProfileLine(ctx, agent, id); err != nil {
			return fmt.Errorf("forget: remove %s: %w", l.ID, err)
		}
	}
	return nil
}

// recalled is a recall response as a client reads it, explained: Pinned
// marks items the system always includes (a profile), which an abstaining
// recall may still hold.
type recalled struct {
	Items []struct {
		ID      string `json:"id"`
		Origin  string `json:"origin"`
		Explain *struct {
			Pinned bool `json:"pinned"`
		} `json:"explain"`
	} `json:"items"`
	Context string `json:"context"`
	Tokens  int    `json:"tokens"`
}

func (w *world) probe(ctx context.Context, p Probe, end time.Time) (ProbeResult, error) {
	asOf := p.AsOf
	if asOf.IsZero() {
		asOf = end
	}
	w.clock.set(asOf)
	pr := ProbeResult{Ask: p.Ask, Agent: p.Agent, AsOf: asOf.Format(time.RFC3339), Abstain: p.Abstain, Citations: []string{}}
	req := client.RecallRequest{Query: p.Ask, BudgetTokens: p.Budget, AsOf: asOf}

	// on: the context an agent would get, and the answer it would be given.
	var rec recalled
	explained := req
	explained.Explain = true
	if err := w.post(ctx, "/v1/agents/"+url.PathEscape(p.Agent)+"/recall", explained, &rec); err != nil {
		return pr, fmt.Errorf("recall: %w", err)
	}
	unpinned := 0
	for _, it := range rec.Items {
		if it.Explain == nil || !it.Explain.Pinned {
			unpinned++
		}
	}
	ans, err := w.cl.Ask(ctx, p.Agent, req)
	if err != nil {
		return pr, fmt.Errorf("ask: %w", err)
	}
	pr.Citations = ans.Citations
	pr.On = Arm{Context: rec.Context, Items: len(rec.Items), Tokens: rec.Tokens}
	checked := rec.Context
	if w.ans.Model != nil {
		pr.On.Answer = ans.Answer
		checked += "\n" + ans.Answer
	}
	pr.On.Pass, pr.On.Why = check(p, checked, unpinned)
	for _, why := range []string{originProblem(p, rec), citationProblem(ans), abstentionProblem(p, ans)} {
		if why != "" && pr.On.Pass {
			pr.On.Pass, pr.On.Why = false, why
		}
	}

	// off: the system knows only the question. A model answers it with no
	// context; offline, the question itself is all a memoryless system
	// could say, so a probe whose expectation the question holds leaks.
	pr.Off = Arm{Context: ""}
	offText := p.Ask
	if w.ans.Model != nil {
		a, err := w.ans.Compose(ctx, p.Ask, asOf, recall.Result{}, true)
		if err != nil {
			return pr, fmt.Errorf("off arm: %w", err)
		}
		pr.Off.Answer = a.Answer
		offText += "\n" + a.Answer
	}
	pr.Off.Pass, pr.Off.Why = check(p, offText, 0)
	pr.Leaking = pr.Off.Pass && !p.Abstain

	// oracle: the needs are the context.
	oracle := oracleContext(p.Needs)
	pr.Oracle = Arm{Context: oracle.Context, Items: len(oracle.Items), Tokens: oracle.Tokens}
	oracleText := oracle.Context
	if w.ans.Model != nil && len(oracle.Items) > 0 {
		a, err := w.ans.Compose(ctx, p.Ask, asOf, oracle, false)
		if err != nil {
			return pr, fmt.Errorf("oracle arm: %w", err)
		}
		pr.Oracle.Answer = a.Answer
		oracleText += "\n" + a.Answer
	}
	pr.Oracle.Pass, pr.Oracle.Why = check(p, oracleText, len(oracle.Items))
	return pr, nil
}

// check applies a probe's expectations to what an arm held; items is the
// number of recalled items that count against an abstention.
func check(p Probe, text string, items int) (bool, string) {
	var held []string
	for _, s := range p.ExpectNone {
		if Contains(text, s) {
			held = append(held, strconv.Quote(s))
		}
	}
	if len(held) > 0 {
		return false, "holds " + strings.Join(held, ", ") + " (expect_none)"
	}
	if p.Abstain {
		if items > 0 {
			return false, fmt.Sprintf("recalled %d items where nothing relevant is stored (abstain)", items)
		}
		return true, ""
	}
	for _, s := range p.ExpectAny {
		if Contains(text, s) {
			return true, ""
		}
	}
	q := make([]string, len(p.ExpectAny))
	for i, s := range p.ExpectAny {
		q[i] = strconv.Quote(s)
	}
	return false, "holds none of " + strings.Join(q, ", ") + " (expect_any)"
}

// originProblem checks a probe's expect_origin: some recalled item is a
// shared copy of one of the memories it names.
func originProblem(p Probe, rec recalled) string {
	if len(p.ExpectOrigin) == 0 {
		return ""
	}
	var got []string
	for _, it := range rec.Items {
		if slices.Contains(p.ExpectOrigin, it.Origin) {
			return ""
		}
		if it.Origin != "" {
			got = append(got, it.Origin)
		}
	}
	return fmt.Sprintf("no recalled item is a copy of %s (expect_origin; copies of %v)", strings.Join(p.ExpectOrigin, " or "), got)
}

// citationProblem checks an answer's integrity: every citation names an
// item of its context, and the answer holds no other.
func citationProblem(a client.Answer) string {
	in := map[string]bool{}
	for _, it := range a.Items {
		in[it.ID] = true
	}
	for _, c := range append(slices.Clone(a.Citations), answer.Cited(a.Answer)...) {
		if !in[c] {
			return fmt.Sprintf("the answer cites %s, which is not in its context", c)
		}
	}
	return ""
}

// abstentionProblem checks that the answer abstains exactly when the
// probe says nothing relevant is stored: an answer drawn from what does not
// address the question (a pinned memory beside it) is as wrong as silence
// where the context holds the answer.
func abstentionProblem(p Probe, a client.Answer) string {
	switch {
	case p.Abstain && !a.Abstained:
		return fmt.Sprintf("ask answered %q where nothing relevant is stored (abstain)", a.Answer)
	case !p.Abstain && a.Abstained:
		return "ask abstained where the context answers"
	}
	return ""
}

// oracleContext renders the needs as a context, one cited line each: found,
// since they are what answers.
func oracleContext(needs []string) recall.Result {
	res := recall.Result{Items: []recall.Item{}, Found: true}
	var lines []string
	for i, n := range needs {
		it := recall.Item{ID: fmt.Sprintf("memory:%d", i+1), Kind: "memory", Text: n}
		line := "[" + it.ID + "] " + strings.Join(strings.Fields(n), " ")
		res.Items = append(res.Items, it)
		lines = append(lines, line)
	}
	res.Context = strings.Join(lines, "\n")
	res.Tokens = text.EstimateTokens(res.Context)
	return res
}

func (w *world) post(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return w.do(req, out)
}

func (w *world) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.url+path, nil)
	if err != nil {
		return err
	}
	return w.do(req, out)
}

func (w *world) do(req *http.Request, out any) error {
	resp, err := w.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d: %s", req.Method, req.URL.Path, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return json.Unmarshal(data, out)
}
