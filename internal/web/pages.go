package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// The overview: every agent, the health report and the timers.

type indexData struct {
	Agents   []agentRow
	Health   *health.Report
	Timers   []Timer
	Now      time.Time
	Remember rememberForm
	Start    startLines // how to add the first memory, on an empty install
}

type agentRow struct {
	Name   string
	Health *health.Agent // nil without a health monitor or reading
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	names, err := h.agentNames()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	names = h.visible(r, names)
	d := indexData{Now: time.Now(), Timers: h.opts.Timers(r.Context()), Remember: h.newRemember(names)}
	d.Start = h.startLines(r, d.Remember.Agent)
	if h.opts.Health != nil {
		rep := h.opts.Health.Report(r.Context())
		if g, signedIn := auth.FromContext(r.Context()); signedIn && !g.AllowsAll(false) {
			// another agent's name or failing files are not this token's business
			rep = rep.For(func(n string) bool { return g.Allows(n, false) })
		}
		d.Health = &rep
	}
	for _, n := range names {
		row := agentRow{Name: n}
		if d.Health != nil {
			for i := range d.Health.Agents {
				if d.Health.Agents[i].Name == n {
					row.Health = &d.Health.Agents[i]
				}
			}
		}
		d.Agents = append(d.Agents, row)
	}
	p := h.newPage(w, r, "Memory bank")
	p.Data = d
	h.render(w, http.StatusOK, "index", p)
}

// One agent: its counts, recent days and runs, and the search box.

type overviewData struct {
	Stats    store.Stats
	Days     []store.Day
	Runs     []store.Run
	Remember rememberForm
	Start    startLines
	Activity activityPicture
	Profile  []profileCategory
}

func (h *Handler) overview(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	ctx := r.Context()
	d := overviewData{Remember: rememberForm{Agent: a.Name(), Fixed: true}, Start: h.startLines(r, a.Name())}
	var err error
	weeks, err := activityWeeksParam(r.URL.Query().Get("weeks"))
	if err != nil {
		h.failStatus(w, r, http.StatusBadRequest, err.Error())
		return
	}
	if d.Stats, err = a.Stats(ctx); err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Activity, err = h.activity(ctx, a, weeks, d.Stats.Unconsolidated); err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Days, err = a.Days(ctx, "", 7); err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Runs, err = a.Runs(ctx, "", 5); err != nil {
		h.fail(w, r, err)
		return
	}
	lines, err := a.Profile(ctx, time.Time{})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Profile = byCategory(lines)
	h.renderAgent(w, r, a, "overview", a.Name(), d)
}

func (h *Handler) renderAgent(w http.ResponseWriter, r *http.Request, a *store.Agent, tmpl, title string, data any) {
	h.renderAgentStatus(w, r, a, http.StatusOK, tmpl, title, "", data)
}

func (h *Handler) renderAgentStatus(w http.ResponseWriter, r *http.Request, a *store.Agent, status int, tmpl, title, errMsg string, data any) {
	p := h.newPage(w, r, title)
	p.Agent, p.Nav, p.Error, p.Data = a.Name(), tmpl, errMsg, data
	h.render(w, status, tmpl, p)
}

// Search: recall with each item's score and its parts.

type searchData struct {
	Query, Budget, K string
	Searched         bool
	Result           recall.Result
	Items            []searchItem
	Took             time.Duration
	Scoring          []scorePart // what the parts of a score mean
	Top              float64     // the best score, the meters' full scale (a score is not a share of 1)
}

type searchItem struct {
	recall.Item
	Parts []shownPart
	Link  string // the cited record's page
}

func (h *Handler) search(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q := r.URL.Query()
	d := searchData{Query: q.Get("q"), Budget: q.Get("budget"), K: q.Get("k"), Scoring: scorePartsKnown}
	if !q.Has("q") {
		h.renderAgent(w, r, a, "search", "Search "+a.Name(), d)
		return
	}
	req, err := recallRequest(d.Query, d.Budget, d.K)
	if err == nil {
		var query recall.Query
		if query, err = req.Parse(); err == nil {
			start := time.Now()
			err = h.withGranted(r, a, func(g *gate.Granted) error {
				d.Result, err = h.opts.Recall.RecallFrom(r.Context(), g.Sources, query)
				d.Result.Note = gate.JoinNotes(d.Result.Note, g.Note)
				return err
			})
			d.Took = time.Since(start).Round(10 * time.Microsecond)
		}
	}
	var re *recall.RequestError
	if errors.As(err, &re) {
		h.renderAgentStatus(w, r, a, gate.Of(err).Status, "search", "Search "+a.Name(), re.Error(), d)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Searched = true
	days := h.citedDays(r, a, d.Result.Items)
	d.Top = 1
	for _, it := range d.Result.Items {
		d.Top = max(d.Top, it.Score)
		d.Items = append(d.Items, searchItem{Item: it, Parts: explainParts(it.Explain), Link: citationLink(a.Name(), it, days)})
	}
	h.renderAgent(w, r, a, "search", "Search "+a.Name(), d)
}

// recallRequest builds the request the API would decode from the form's
// fields, asking for the score's explanation: recall versions that know
// "explain" return each score's parts, older ones ignore it.
func recallRequest(query, budget, k string) (recall.Request, error) {
	body := map[string]any{"query": query, "explain": true}
	for _, f := range []struct{ name, key, v string }{{"budget", "budget_tokens", budget}, {"k", "k", k}} {
		if f.v == "" {
			continue
		}
		n, err := strconv.Atoi(f.v)
		if err != nil {
			return recall.Request{}, &recall.RequestError{Msg: fmt.Sprintf("%s must be a whole number, got %q", f.name, f.v)}
		}
		body[f.key] = n
	}
	b, err := json.Marshal(body)
	if err != nil {
		return recall.Request{}, err
	}
	var req recall.Request
	if err := json.Unmarshal(b, &req); err != nil {
		return recall.Request{}, err
	}
	return req, nil
}

// withGranted runs fn over a and the granted agents the page's sign-in may
// read (gate.Reads.Open), released after.
func (h *Handler) withGranted(r *http.Request, a *store.Agent, fn func(g *gate.Granted) error) error {
	tok, _ := auth.FromContext(r.Context())
	g, err := h.opts.Reads.Open(r.Context(), h.opts.Store, tok, a)
	if err != nil {
		return err
	}
	defer g.Release()
	return fn(g)
}

// citedDays finds the days of the consolidation records among items.
func (h *Handler) citedDays(r *http.Request, a *store.Agent, items []recall.Item) map[int64]string {
	var ids []int64
	for _, it := range items {
		if kind, id, ok := recall.ParseID(it.ID); ok && kind == "consolidation" {
			ids = append(ids, id)
		}
	}
	days, err := a.ConsolidationDates(r.Context(), ids)
	if err != nil {
		h.log.Warn("web: look up cited days", "err", err)
	}
	return days
}

// citationLink is the page of what it cites: of the agent it comes from
// (a granted agent's, or agent's own), a day only when days has it.
func citationLink(agent string, it recall.Item, days map[int64]string) string {
	from, cite := recall.SplitCite(it.ID)
	kind, id, ok := recall.ParseID(cite)
	if !ok {
		return ""
	}
	if from != "" {
		agent, days = from, nil // a granted agent's days are not looked up
	}
	base := "/agents/" + agent
	switch kind {
	case "memory":
		return base + "/memories/" + strconv.FormatInt(id, 10)
	case "fact":
		return base + "/facts/" + strconv.FormatInt(id, 10)
	case "profile":
		return base + "/profile/" + strconv.FormatInt(id, 10)
	case "consolidation":
		if d, ok := days[id]; ok {
			return base + "/days/" + d
		}
	}
	return ""
}

// Days: the list, and one day with its consolidation beside its memories.

type daysData struct {
	Days []store.Day
	Next string // the next page's cursor
}

const daysPerPage = 31

func (h *Handler) days(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	before := r.URL.Query().Get("before")
	if before != "" && !isDate(before) {
		h.failStatus(w, r, http.StatusBadRequest, fmt.Sprintf("before must be a date such as 2026-02-01, got %q", before))
		return
	}
	days, err := a.Days(r.Context(), before, daysPerPage)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := daysData{Days: days}
	if len(days) == daysPerPage {
		d.Next = days[len(days)-1].Day
	}
	h.renderAgent(w, r, a, "days", "Days of "+a.Name(), d)
}

func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

type dayData struct {
	Day        string
	Memories   []store.Memory
	Shown      int // memories shown, of len(Memories)
	Record     *store.Consolidation
	Parts      *recordParts
	Runs       []store.Run
	CanRebuild bool
}

// recordParts are a record's JSON parts, decoded for display; Raw holds a
// part that did not decode (shown as it is rather than hidden).
type recordParts struct {
	KeyFacts []consolidate.KeyFact
	Entities []consolidate.Entity
	Topics   []string
	Insights []consolidate.Insight
	Raw      []string
}

// maxDayMemories bounds one day page; the rest are counted, not shown.
const maxDayMemories = 1000

func (h *Handler) day(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	ctx := r.Context()
	day := r.PathValue("day")
	if !isDate(day) {
		h.failStatus(w, r, http.StatusBadRequest, fmt.Sprintf("%q is not a date such as 2026-02-01.", day))
		return
	}
	d := dayData{Day: day, CanRebuild: h.opts.Consolidate != nil}
	var err error
	if d.Memories, err = a.DayMemories(ctx, day); err != nil {
		h.fail(w, r, err)
		return
	}
	d.Shown = min(len(d.Memories), maxDayMemories)
	recs, err := a.Consolidations(ctx, day, day, 1)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(recs) > 0 {
		d.Record = &recs[0]
		d.Parts = decodeParts(recs[0])
	}
	if d.Runs, err = a.Runs(ctx, day, 10); err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderAgent(w, r, a, "day", day+" · "+a.Name(), d)
}

func decodeParts(c store.Consolidation) *recordParts {
	p := &recordParts{}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  any
	}{{"key facts", c.KeyFacts, &p.KeyFacts}, {"entities", c.Entities, &p.Entities},
		{"topics", c.Topics, &p.Topics}, {"insights", c.Insights, &p.Insights}} {
		if len(f.raw) == 0 {
			continue
		}
		if err := json.Unmarshal(f.raw, f.dst); err != nil {
			p.Raw = append(p.Raw, f.name+": "+string(f.raw))
		}
	}
	return p
}

// One memory, and deleting it.

type memoryData struct {
	Memory  store.Memory
	Day     string
	Context string   // the memory's context object, indented
	Agents  []string // the other agents the token may see: the Share form's choices
}

func (h *Handler) id(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.failStatus(w, r, http.StatusBadRequest, fmt.Sprintf("The id must be a positive integer, not %q.", r.PathValue("id")))
		return 0, false
	}
	return id, true
}

func (h *Handler) memory(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	m, err := a.Get(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	names, err := h.agentNames()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	others := slices.DeleteFunc(h.visible(r, names), func(n string) bool { return n == a.Name() })
	d := memoryData{Memory: m, Day: m.Timestamp.In(h.opts.Location).Format(time.DateOnly), Agents: others}
	if len(m.Context) > 0 {
		var v any
		if json.Unmarshal(m.Context, &v) == nil {
			b, _ := json.MarshalIndent(v, "", "  ")
			d.Context = string(b)
		} else {
			d.Context = string(m.Context)
		}
	}
	h.renderAgent(w, r, a, "memory", fmt.Sprintf("Memory %d · %s", id, a.Name()), d)
}

func (h *Handler) deleteMemory(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	m, err := a.Get(r.Context(), id)
	if err == nil {
		err = a.Delete(r.Context(), id)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("web: memory deleted", "agent", a.Name(), "id", id)
	redirect(w, r, "/agents/"+a.Name()+"/days/"+m.Timestamp.In(h.opts.Location).Format(time.DateOnly), "deleted")
}

// shareMemory copies the memory into the agent the form names, by the
// API's rules (Store.Share, and mayRemember's for the target: a valid name,
// this server's list, a token that may write it), and shows the copy.
func (h *Handler) shareMemory(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	to := strings.TrimSpace(r.PostFormValue("to"))
	create, status, msg := h.mayRemember(r, to)
	if status != 0 {
		h.failStatus(w, r, status, msg)
		return
	}
	sh, err := h.opts.Store.Share(r.Context(), a, id, to, create)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	done := "already_shared"
	if !sh.Existing {
		done = "shared"
		h.log.Info("web: memory shared", "agent", a.Name(), "id", id, "to", to, "copy", sh.ID)
		if h.opts.OnWrite != nil {
			h.opts.OnWrite(to)
		}
	}
	redirect(w, r, "/agents/"+to+"/memories/"+strconv.FormatInt(sh.ID, 10), done)
}

// Facts: the list (current, or every value with its history), one fact
// with its history and sources, rejecting and correcting.

type factsData struct {
	Entity   string
	History  bool
	Groups   []factGroup
	Entities []entityFacts // Groups by entity
	Count    int
	Limited  bool
}

// factGroup is one entity's attribute: its facts, newest first.
type factGroup struct {
	Entity, Attribute string
	Facts             []store.Fact
}

const maxFacts = 1000

func (h *Handler) facts(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q := r.URL.Query()
	d := factsData{Entity: strings.TrimSpace(q.Get("entity")), History: q.Get("history") != ""}
	facts, err := a.Facts(r.Context(), store.FactFilter{Entity: d.Entity, History: d.History, Limit: maxFacts})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Count, d.Limited = len(facts), len(facts) == maxFacts
	d.Groups = groupFacts(facts)
	d.Entities = byEntity(d.Groups)
	h.renderAgent(w, r, a, "facts", "Facts of "+a.Name(), d)
}

// groupFacts groups facts by entity (case-insensitive) and attribute, in
// the order the newest fact of each group comes; facts without an
// attribute each stand alone, as they never supersede by attribute.
func groupFacts(facts []store.Fact) []factGroup {
	var out []factGroup
	index := map[string]int{}
	for _, f := range facts {
		key := strings.ToLower(f.Entity) + "\x00" + f.Attribute
		if f.Attribute == "" {
			key = "#" + strconv.FormatInt(f.ID, 10)
		}
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, factGroup{Entity: f.Entity, Attribute: f.Attribute})
		}
		out[i].Facts = append(out[i].Facts, f)
	}
	return out
}

// entityFacts is one entity's attributes, with the facts that have none
// (each a group of its own) among them.
type entityFacts struct {
	Entity string
	Groups []factGroup
	Facts  int
}

// byEntity gathers attribute groups under their entity (case-insensitive),
// in the order the entities first come.
func byEntity(groups []factGroup) []entityFacts {
	var out []entityFacts
	index := map[string]int{}
	for _, g := range groups {
		key := strings.ToLower(g.Entity)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, entityFacts{Entity: g.Entity})
		}
		out[i].Groups = append(out[i].Groups, g)
		out[i].Facts += len(g.Facts)
	}
	return out
}

type factData struct {
	Fact    store.Fact
	State   string // current, superseded or rejected
	History []store.Fact
	Sources []source
	Days    map[int64]string // consolidation id → day
	Value   string           // the correction form's fields
	Content string
	CanEdit bool
}

// source is a memory a fact cites; Missing when it has been deleted.
type source struct {
	ID      int64
	Memory  store.Memory
	Missing bool
}

// maxSources bounds the memories fetched for one fact page.
const maxSources = 50

func factState(f store.Fact) string {
	switch {
	case f.Rejected:
		return "rejected"
	case f.SupersededBy != nil || f.ValidTo != nil:
		return "superseded"
	default:
		return "current"
	}
}

func (h *Handler) fact(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	h.factPage(w, r, a, id, http.StatusOK, "", nil)
}

// factPage renders fact id; after a refused correction, with the error and
// the person's own text kept in the form.
func (h *Handler) factPage(w http.ResponseWriter, r *http.Request, a *store.Agent, id int64, status int, errMsg string, corr *store.Correction) {
	ctx := r.Context()
	f, err := a.Fact(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := factData{Fact: f, State: factState(f), Value: f.Value, Content: f.Content}
	d.CanEdit = d.State == "current"
	if corr != nil {
		d.Value, d.Content = corr.Value, corr.Content
	}
	all, err := a.Facts(ctx, store.FactFilter{Entity: f.Entity, History: true, Limit: maxFacts})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.History = factHistory(f, all)
	for i, mid := range f.SourceMemoryIDs {
		if i == maxSources {
			break
		}
		m, err := a.Get(ctx, mid)
		switch {
		case errors.Is(err, store.ErrNotFound):
			d.Sources = append(d.Sources, source{ID: mid, Missing: true})
		case err != nil:
			h.fail(w, r, err)
			return
		default:
			d.Sources = append(d.Sources, source{ID: mid, Memory: m})
		}
	}
	if d.Days, err = a.ConsolidationDates(ctx, f.SourceConsolidationIDs); err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderAgentStatus(w, r, a, status, "fact", fmt.Sprintf("Fact %d · %s", id, a.Name()), errMsg, d)
}

// factHistory is every value f's entity had for f's attribute, and the
// chain of corrections f belongs to (for a fact without an attribute),
// newest first.
func factHistory(f store.Fact, all []store.Fact) []store.Fact {
	byID := map[int64]store.Fact{}
	for _, x := range all {
		byID[x.ID] = x
	}
	in := map[int64]bool{f.ID: true}
	if f.Attribute != "" {
		for _, x := range all {
			if x.Attribute == f.Attribute {
				in[x.ID] = true
			}
		}
	}
	// Follow superseded_by both ways until nothing new joins.
	for changed := true; changed; {
		changed = false
		for _, x := range all {
			if in[x.ID] || x.SupersededBy == nil {
				continue
			}
			if in[*x.SupersededBy] {
				in[x.ID], changed = true, true
			}
		}
		for id := range in {
			if x, ok := byID[id]; ok && x.SupersededBy != nil && !in[*x.SupersededBy] {
				if _, known := byID[*x.SupersededBy]; known {
					in[*x.SupersededBy], changed = true, true
				}
			}
		}
	}
	var out []store.Fact
	for _, x := range all { // already newest first
		if in[x.ID] {
			out = append(out, x)
		}
	}
	return out
}

func (h *Handler) rejectFact(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	if err := a.RejectFact(r.Context(), id); err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.Info("web: fact rejected", "agent", a.Name(), "id", id)
	redirect(w, r, fmt.Sprintf("/agents/%s/facts/%d", a.Name(), id), "rejected")
}

func (h *Handler) correctFact(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	corr := store.Correction{Content: strings.TrimSpace(r.PostFormValue("content")), Value: strings.TrimSpace(r.PostFormValue("value"))}
	res, err := a.CorrectFact(r.Context(), id, corr)
	if err == nil {
		h.log.Info("web: fact corrected", "agent", a.Name(), "id", id, "new", res.ID)
		redirect(w, r, fmt.Sprintf("/agents/%s/facts/%d", a.Name(), res.ID), "corrected")
		return
	}
	// The status is the gate's (the API's); the page says it in its words,
	// on the fact's page, the person's text kept.
	status := gate.Of(err).Status
	var ce *store.CorrectionError
	switch {
	case errors.Is(err, store.ErrRejected):
		h.factPage(w, r, a, id, status, "You rejected that claim before, so it cannot become current. Reword it, or correct to another value.", &corr)
	case errors.Is(err, store.ErrNotCurrent):
		h.factPage(w, r, a, id, status, "Only the current value can be corrected; this one is superseded or rejected.", nil)
	case errors.Is(err, store.ErrUnchanged):
		h.factPage(w, r, a, id, status, "The correction says the same as the fact; change the statement or the value.", &corr)
	case errors.As(err, &ce):
		h.factPage(w, r, a, id, status, "The correction was not stored: "+ce.Error()+".", &corr)
	default:
		h.fail(w, r, err)
	}
}

// Consolidation: the form, a dry run's plan, and the run records.

type consolidateData struct {
	Enabled bool
	Date    string
	Plan    *consolidate.Plan
	Ran     []store.Run // the runs this request made (after the redirect)
	Runs    []store.Run // recent runs
}

// maxRanIDs bounds the run ids a redirect carries.
const maxRanIDs = 366

func (h *Handler) consolidatePage(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	h.consolidateView(w, r, a, http.StatusOK, "", consolidateData{})
}

func (h *Handler) consolidateView(w http.ResponseWriter, r *http.Request, a *store.Agent, status int, errMsg string, d consolidateData) {
	d.Enabled = h.opts.Consolidate != nil
	var ran []int64
	for s := range strings.SplitSeq(r.URL.Query().Get("ran"), ",") {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 && len(ran) < maxRanIDs {
			ran = append(ran, id)
		}
	}
	runs, err := a.Runs(r.Context(), "", max(50, len(ran)))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, run := range runs {
		if slices.Contains(ran, run.ID) {
			d.Ran = append(d.Ran, run)
		}
	}
	d.Runs = runs
	h.renderAgentStatus(w, r, a, status, "consolidate", "Consolidate "+a.Name(), errMsg, d)
}

func (h *Handler) consolidate(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	if h.opts.Consolidate == nil {
		h.failStatus(w, r, http.StatusNotImplemented, "This server does not consolidate.")
		return
	}
	req := consolidate.Request{Date: strings.TrimSpace(r.PostFormValue("date")), DryRun: r.PostFormValue("dry_run") != ""}
	d := consolidateData{Date: req.Date}
	res, err := h.opts.Consolidate.Do(r.Context(), a.Name(), req)
	switch {
	case err != nil:
		h.consolidateRefused(w, r, a, err, d)
	case req.DryRun:
		d.Plan = res.Plan
		h.consolidateView(w, r, a, http.StatusOK, "", d)
	case len(res.Runs) == 0:
		redirect(w, r, "/agents/"+a.Name()+"/consolidate", "nothing")
	default:
		ids := make([]string, len(res.Runs))
		for i, run := range res.Runs {
			ids[i] = strconv.FormatInt(run.ID, 10)
		}
		http.Redirect(w, r, "/agents/"+a.Name()+"/consolidate?ran="+strings.Join(ids, ","), http.StatusSeeOther)
	}
}

// consolidateRefused answers a consolidation that did not run, or failed,
// with the API's status (the gate's): on the form, unless the agent or the
// server is gone.
func (h *Handler) consolidateRefused(w http.ResponseWriter, r *http.Request, a *store.Agent, err error, d consolidateData) {
	ref := gate.OfConsolidation(err)
	switch ref.Code {
	case "busy":
		h.consolidateView(w, r, a, ref.Status, "Another consolidation of this agent is running; try again when it has finished.", d)
	case "consolidation_failed":
		// The run's record holds the same message; the memories stay unconsolidated.
		h.log.Warn("web: consolidation failed", "agent", a.Name(), "err", err)
		h.consolidateView(w, r, a, ref.Status, "The consolidation failed: "+err.Error(), d)
	case "invalid_request", "day_changed", "clock_implausible":
		h.consolidateView(w, r, a, ref.Status, ref.Msg, d)
	default:
		h.fail(w, r, err)
	}
}
