package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/doctor"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// consolidated seeds main, consolidates its past days through the API and
// returns the id of a current fact with an attribute.
func consolidated(t *testing.T, f *fixture) int64 {
	t.Helper()
	f.seed("main", seedDay)
	resp, err := http.Post(f.url+"/v1/agents/main/consolidate", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("consolidate through the API: %d", resp.StatusCode)
	}
	var id int64
	f.agent("main", func(a *store.Agent) {
		facts, err := a.Facts(t.Context(), store.FactFilter{Entity: "Alice"})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range facts {
			if x.Attribute == "job_title" {
				id = x.ID
			}
		}
	})
	if id == 0 {
		t.Fatal("the offline consolidator found no job title for Alice")
	}
	return id
}

func TestPagesRender(t *testing.T) {
	f := newFixture(t, fixtureOptions{timers: []Timer{
		{Unit: "dormouse-consolidate.timer", Known: true, Installed: true, Active: "active",
			Last: time.Date(2026, 2, 10, 0, 3, 0, 0, time.UTC), Next: time.Date(2026, 2, 11, 0, 0, 0, 0, time.UTC)},
		{Unit: "dormouse-backup.timer", Known: true},
		{Unit: "other.timer"},
	}})
	fact := consolidated(t, f)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/", []string{"Memory bank", `href="/agents/main"`, "degraded", `memories unconsolidated for 12h0m0s`,
			"2026-02-10 00:03", "2026-02-11 00:00", "not installed", "unknown (systemd not reachable)", "/health"}},
		{"/agents/main", []string{"4 (1 waiting for consolidation)", "2026-02-09", `action="/agents/main/search"`, "#1", "offline"}},
		{"/agents/main/search", []string{`name="q"`, "How recall scores", "Words held"}},
		{"/agents/main/search?q=Alice+role", []string{"Alice&#39;s role is engineer.", `href="/agents/main/memories/1"`, "score ", "<meter"}},
		{"/agents/main/search?q=", []string{"items", "Today the Atlas review went well."}},
		{"/agents/main/days", []string{`href="/agents/main/days/2026-02-10"`, "1 waiting", "consolidated"}},
		{"/agents/main/days/2026-02-08", []string{"Alice&#39;s role is engineer.", "Bob fixed the login timeout", "Key facts",
			"Rebuild this day", `action="/agents/main/memories/1/delete"`, "extractive-v1"}},
		{"/agents/main/days/2026-02-10", []string{"no consolidation record yet", "Consolidate this day"}},
		{"/agents/main/days/2025-01-01", []string{"No memories on this day."}},
		{"/agents/main/memories/1", []string{"memory:1", "chat-1", "Delete memory 1", `href="/agents/main/days/2026-02-08"`}},
		{"/agents/main/facts", []string{"Alice", "job_title", "current"}},
		{"/agents/main/facts?history=1&entity=alice", []string{"with history", "job_title"}},
		{fmt.Sprintf("/agents/main/facts/%d", fact), []string{"Alice", `href="/agents/main/memories/1"`,
			"the record of 2026-02-08", "Save correction", "Reject fact"}},
		{"/agents/main/consolidate", []string{"Run a consolidation", "Recent runs", "2026-02-09"}},
	} {
		r := f.get(tc.path)
		if r.status != http.StatusOK {
			t.Errorf("GET %s: status %d\n%s", tc.path, r.status, r.body)
			continue
		}
		if ct := r.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", tc.path, ct)
		}
		if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.body, w) {
				t.Errorf("GET %s: the page lacks %q", tc.path, w)
			}
		}
	}
	css := f.get("/static/style.css")
	if css.status != http.StatusOK || !strings.HasPrefix(css.header.Get("Content-Type"), "text/css") || !strings.Contains(css.body, "@media") {
		t.Errorf("GET /static/style.css: %d %q", css.status, css.header.Get("Content-Type"))
	}
}

func TestErrorsAndAPIPaths(t *testing.T) {
	f := newFixture(t, fixtureOptions{agents: []string{"main", "empty"}})
	f.seed("main", seedDay)
	for _, tc := range []struct {
		path   string
		status int
		html   bool
		want   string
	}{
		{"/agents/stranger", http.StatusNotFound, true, "not in this server&#39;s agent list"},
		{"/agents/main/", http.StatusBadRequest, false, "invalid_path"}, // the server refuses it before routing
		{"/agents/Bad..Name", http.StatusBadRequest, true, "invalid agent name"},
		{"/agents/UPPER", http.StatusBadRequest, true, "agent name"},
		{"/agents/main/memories/999", http.StatusNotFound, true, "not found"},
		{"/agents/main/memories/abc", http.StatusBadRequest, true, "positive integer"},
		{"/agents/main/facts/0", http.StatusBadRequest, true, "positive integer"},
		{"/agents/main/days/yesterday", http.StatusBadRequest, true, "not a date"},
		{"/agents/main/days?before=x", http.StatusBadRequest, true, "before must be a date"},
		{"/agents/main/search?q=a&budget=lots", http.StatusBadRequest, true, "budget must be a whole number"},
		{"/agents/main/search?q=a&k=5000", http.StatusBadRequest, true, "k must be from 1 to"},
		{"/nowhere", http.StatusNotFound, true, "There is no page at /nowhere."},
		{"/v1/nowhere", http.StatusNotFound, false, `"not_found"`},
		{"/agents/empty", http.StatusOK, true, "No memories yet."}, // a listed agent always exists
	} {
		r := f.get(tc.path)
		if r.status != tc.status || !strings.Contains(r.body, tc.want) {
			t.Errorf("GET %s: %d, want %d with %q:\n%s", tc.path, r.status, tc.status, tc.want, r.body)
		}
		if html := strings.HasPrefix(r.header.Get("Content-Type"), "text/html"); html != tc.html {
			t.Errorf("GET %s: Content-Type %q, want HTML %v", tc.path, r.header.Get("Content-Type"), tc.html)
		}
	}
	// Looking at an unknown agent must not create it.
	if names, _ := f.store.Agents(); strings.Contains(strings.Join(names, ","), "stranger") {
		t.Errorf("agents after a 404 = %v", names)
	}
}

func TestUserContentIsEscaped(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	const evil = `<script>alert("memory")</script><img src=x onerror=alert(1)>`
	b, _ := json.Marshal(map[string]any{"content": "Mallory wrote " + evil, "timestamp": "2026-02-09T08:00:00Z",
		"session_id": `"><script>alert(2)</script>`, "role": "user", "context": map[string]string{"k": evil}})
	f.seed("main", string(b))
	var fact int64
	f.agent("main", func(a *store.Agent) {
		var err error
		fact, err = a.AddFact(t.Context(), store.Fact{Entity: evil, Attribute: evil, Value: evil, Content: "Mallory says " + evil,
			SourceMemoryIDs: []int64{1}})
		if err != nil {
			t.Fatal(err)
		}
	})
	for _, path := range []string{
		"/agents/main/days/2026-02-09",
		"/agents/main/memories/1",
		"/agents/main/search?q=" + url.QueryEscape("Mallory "+evil),
		"/agents/main/facts?history=1&entity=" + url.QueryEscape(evil),
		"/agents/main/facts",
		fmt.Sprintf("/agents/main/facts/%d", fact),
	} {
		r := f.get(path)
		if r.status != http.StatusOK {
			t.Errorf("GET %s: %d", path, r.status)
			continue
		}
		for _, bad := range []string{"<script>", "<img src=x", `"><script`} {
			if strings.Contains(r.body, bad) {
				t.Errorf("GET %s: the page contains %q unescaped", path, bad)
			}
		}
		if !strings.Contains(r.body, "&lt;script&gt;alert(") {
			t.Errorf("GET %s: the stored script is not shown as text", path)
		}
	}
}

func TestCSRF(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/memories/2")
	other := newFixture(t, fixtureOptions{}) // another process: another key
	other.seed("main", seedDay)
	otherTok := other.token("/agents/main/consolidate")

	exists := func() bool {
		var err error
		f.agent("main", func(a *store.Agent) { _, err = a.Get(t.Context(), 2) })
		return err == nil
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		header []string
	}{
		{"no token", url.Values{}, nil},
		{"empty token", url.Values{"csrf": {""}}, nil},
		{"wrong token", url.Values{"csrf": {tok[:len(tok)-2] + "xx"}}, nil},
		{"another server's token", url.Values{"csrf": {otherTok}}, nil},
		{"cross-site fetch", url.Values{"csrf": {tok}}, []string{"Sec-Fetch-Site", "cross-site"}},
		{"another origin", url.Values{"csrf": {tok}}, []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}},
	} {
		r := f.post("/agents/main/memories/2/delete", tc.form, tc.header...)
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "reload the page") {
			t.Errorf("%s: POST delete = %d, want 403:\n%s", tc.name, r.status, r.body)
		}
		if !exists() {
			t.Fatalf("%s: the memory was deleted without a valid token", tc.name)
		}
	}
	// Without the cookie, the token alone is not enough.
	noJar := &http.Client{CheckRedirect: f.hc.CheckRedirect}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+"/agents/main/memories/2/delete",
		strings.NewReader(url.Values{"csrf": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := noJar.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !exists() {
		t.Errorf("POST with the token but no cookie: %d, want 403 and the memory kept", resp.StatusCode)
	}
	// GET does not change anything.
	if r := f.get("/agents/main/memories/2/delete"); r.status != http.StatusMethodNotAllowed && r.status != http.StatusNotFound {
		t.Errorf("GET of a POST action: %d", r.status)
	}
	if !exists() {
		t.Fatal("a GET deleted the memory")
	}
	// The real thing.
	r := f.post("/agents/main/memories/2/delete", url.Values{"csrf": {tok}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/agents/main/days/2026-02-08?done=deleted" {
		t.Fatalf("POST delete with the token: %d %q", r.status, r.header.Get("Location"))
	}
	if exists() {
		t.Error("the memory is still there")
	}
	if r := f.get("/agents/main/days/2026-02-08?done=deleted"); !strings.Contains(r.body, "The memory was deleted.") ||
		strings.Contains(r.body, "Bob fixed the login timeout") {
		t.Errorf("the day after the delete:\n%s", r.body)
	}
	if r := f.post("/agents/main/memories/2/delete", url.Values{"csrf": {tok}}); r.status != http.StatusNotFound {
		t.Errorf("deleting it again: %d, want 404", r.status)
	}
}

func TestCSRFCookie(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	r := f.get("/")
	c := r.header.Get("Set-Cookie")
	for _, want := range []string{csrfCookie + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(c, want) {
			t.Errorf("Set-Cookie %q lacks %q", c, want)
		}
	}
	if r2 := f.get("/"); r2.header.Get("Set-Cookie") != "" {
		t.Errorf("a browser that has the cookie got a new one: %q", r2.header.Get("Set-Cookie"))
	}
}

func TestRejectAndCorrectFact(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	fact := consolidated(t, f)
	page := fmt.Sprintf("/agents/main/facts/%d", fact)
	tok := f.token(page)

	// A correction supersedes the old value.
	r := f.post(page+"/correct", url.Values{"csrf": {tok}, "content": {"Alice's role is staff engineer."}, "value": {"staff engineer"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("correct: %d\n%s", r.status, r.body)
	}
	loc := r.header.Get("Location")
	var newID int64
	if _, err := fmt.Sscanf(loc, "/agents/main/facts/%d?done=corrected", &newID); err != nil || newID == fact {
		t.Fatalf("correct redirected to %q", loc)
	}
	np := f.get(loc)
	for _, want := range []string{"Your correction is now the current fact", "Alice&#39;s role is staff engineer.",
		"No source memories", fmt.Sprintf(`href="/agents/main/facts/%d"`, fact), "superseded"} {
		if !strings.Contains(np.body, want) {
			t.Errorf("the corrected fact's page lacks %q", want)
		}
	}
	old := f.get(page)
	if !strings.Contains(old.body, `id="state">superseded`) || strings.Contains(old.body, "Save correction") {
		t.Errorf("the old fact's page does not show it superseded (or still offers to correct it)")
	}
	// Correcting the old value again is refused, and says why.
	r = f.post(page+"/correct", url.Values{"csrf": {tok}, "content": {"Alice is a manager."}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "Only the current value can be corrected") {
		t.Errorf("correcting a superseded fact: %d", r.status)
	}
	// Unchanged and empty corrections keep the person's text in the form.
	newPage := fmt.Sprintf("/agents/main/facts/%d", newID)
	r = f.post(newPage+"/correct", url.Values{"csrf": {tok}, "content": {"Alice's role is staff engineer"}, "value": {"Staff Engineer"}})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "says the same") {
		t.Errorf("unchanged correction: %d", r.status)
	}
	r = f.post(newPage+"/correct", url.Values{"csrf": {tok}, "content": {"  "}})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "statement is empty") {
		t.Errorf("empty correction: %d", r.status)
	}

	// Rejecting marks it rejected, and it leaves the current facts.
	r = f.post(newPage+"/reject", url.Values{"csrf": {tok}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != newPage+"?done=rejected" {
		t.Fatalf("reject: %d %q", r.status, r.header.Get("Location"))
	}
	rp := f.get(newPage + "?done=rejected")
	if !strings.Contains(rp.body, `id="state">rejected`) || !strings.Contains(rp.body, "The fact was rejected") ||
		strings.Contains(rp.body, "Reject fact") {
		t.Errorf("the rejected fact's page:\n%s", rp.body)
	}
	if cur := f.get("/agents/main/facts?entity=Alice"); strings.Contains(cur.body, "staff engineer") {
		t.Error("a rejected fact is listed as current")
	}
	if hist := f.get("/agents/main/facts?entity=Alice&history=1"); !strings.Contains(hist.body, "staff engineer") ||
		!strings.Contains(hist.body, ">rejected<") {
		t.Error("the history does not show the rejected fact")
	}
	// The rejected claim cannot come back through a correction of another fact.
	var other int64
	f.agent("main", func(a *store.Agent) {
		var err error
		other, err = a.AddFact(t.Context(), store.Fact{Entity: "Alice", Attribute: "title", Content: "Alice is a lead"})
		if err != nil {
			t.Fatal(err)
		}
	})
	r = f.post(fmt.Sprintf("/agents/main/facts/%d/correct", other), url.Values{"csrf": {tok}, "content": {"Alice's role is staff engineer."}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "You rejected that claim before") ||
		!strings.Contains(r.body, "Alice&#39;s role is staff engineer.</textarea>") {
		t.Errorf("correction to a rejected claim: %d\n%s", r.status, r.body)
	}
	if r := f.post("/agents/main/facts/9999/reject", url.Values{"csrf": {tok}}); r.status != http.StatusNotFound {
		t.Errorf("rejecting an unknown fact: %d", r.status)
	}
}

func TestConsolidateFromThePage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/consolidate")

	r := f.post("/agents/main/consolidate", url.Values{"csrf": {tok}, "dry_run": {"1"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, "Plan (dry run)") || !strings.Contains(r.body, "2026-02-08") {
		t.Fatalf("dry run: %d\n%s", r.status, r.body)
	}
	f.agent("main", func(a *store.Agent) {
		if runs, _ := a.Runs(t.Context(), "", 10); len(runs) != 0 {
			t.Errorf("a dry run recorded runs: %+v", runs)
		}
	})

	r = f.post("/agents/main/consolidate", url.Values{"csrf": {tok}})
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/agents/main/consolidate?ran=") {
		t.Fatalf("consolidate: %d %q", r.status, r.header.Get("Location"))
	}
	page := f.get(r.header.Get("Location"))
	if !strings.Contains(page.body, "This consolidation") || strings.Count(page.body, `<li class="run-ok">`) != 4 {
		t.Errorf("the runs page does not show the two new runs twice (this request, recent):\n%s", page.body)
	}
	// Again: nothing left to do.
	r = f.post("/agents/main/consolidate", url.Values{"csrf": {tok}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/agents/main/consolidate?done=nothing" {
		t.Errorf("second consolidate: %d %q", r.status, r.header.Get("Location"))
	}
	// Rebuild today from the day page's button.
	r = f.post("/agents/main/consolidate", url.Values{"csrf": {tok}, "date": {"2026-02-10"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("rebuild today: %d", r.status)
	}
	if day := f.get("/agents/main/days/2026-02-10"); !strings.Contains(day.body, "Rebuild this day") || strings.Contains(day.body, "no consolidation record yet") {
		t.Error("today's page shows no record after the rebuild")
	}
	for _, tc := range []struct {
		date string
		code int
		want string
	}{
		{"2026-13-01", http.StatusBadRequest, "is not a date"},
		{"2026-03-01", http.StatusBadRequest, "has not happened yet"},
	} {
		r := f.post("/agents/main/consolidate", url.Values{"csrf": {tok}, "date": {tc.date}})
		if r.status != tc.code || !strings.Contains(r.body, tc.want) {
			t.Errorf("consolidate %s: %d, want %d with %q", tc.date, r.status, tc.code, tc.want)
		}
	}
}

func TestConsolidationDisabled(t *testing.T) {
	f := newFixture(t, fixtureOptions{noConsolidate: true})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/memories/1")
	if p := f.get("/agents/main/consolidate"); !strings.Contains(p.body, "does not consolidate") || strings.Contains(p.body, "Run a consolidation") {
		t.Error("the page offers a consolidation the server cannot run")
	}
	if p := f.get("/agents/main/days/2026-02-08"); strings.Contains(p.body, "this day</button>") {
		t.Error("the day page offers a consolidation the server cannot run")
	}
	if r := f.post("/agents/main/consolidate", url.Values{"csrf": {tok}}); r.status != http.StatusNotImplemented {
		t.Errorf("POST consolidate: %d, want 501", r.status)
	}
}

func TestHealthUnknownWithoutMonitor(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, err := New(Options{Store: st, Recall: &recall.Engine{}, AutoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no systemctl
	rec := newRecorder()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "/", nil)
	h.ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, "no health monitor") || !strings.Contains(body, "unknown (systemd not reachable)") {
		t.Errorf("GET / without monitor or systemd: %d\n%s", rec.Code, body)
	}
	for _, unit := range doctor.Timers { // the shipped timers, by default
		if !strings.Contains(body, unit) {
			t.Errorf("GET / does not list %s", unit)
		}
	}
}

func TestNewNeedsServices(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Error("New without a store succeeded")
	}
}

// TestExplainParts: the parts of recall's explanation get the page's
// labels in the page's order, zero parts are left out, and a part the page
// does not know yet is still shown by its key.
func TestExplainParts(t *testing.T) {
	ex := map[string]any{"relevance": 0.8, "importance": 0.25, "recency": 0.123456, "by_kind": 0.5,
		"coverage": 0.0, "pinned": false, "total": 1.2, "new_part": 0.1}
	var got []string
	for _, p := range explainParts(ex) {
		got = append(got, p.Label+"="+p.Value)
	}
	want := []string{"Words=0.8", "Kind named=0.5", "Importance=0.25", "Recency=0.123", "new_part=0.1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("explainParts = %v, want %v", got, want)
	}
	if got := explainParts(&recall.Explain{Importance: 0.95, Pinned: true}); fmt.Sprint(got) !=
		fmt.Sprint([]shownPart{{"Importance", scorePartsKnown[12].About, "0.95"}, {"Pinned", scorePartsKnown[15].About, "yes"}}) {
		t.Errorf("explainParts of a pinned item = %v", got)
	}
	if got := explainParts((*recall.Explain)(nil)); len(got) != 0 {
		t.Errorf("explainParts of no explanation = %v, want none", got)
	}
}

func TestRecallRequest(t *testing.T) {
	req, err := recallRequest("alice", "200", "")
	if err != nil || req.Query != "alice" || req.BudgetTokens != 200 || req.K != 0 {
		t.Errorf("recallRequest = %+v, %v", req, err)
	}
	if _, err := recallRequest("a", "", "ten"); err == nil {
		t.Error("k=ten accepted")
	}
}

func TestFactHistory(t *testing.T) {
	id := func(n int64) *int64 { return &n }
	all := []store.Fact{ // newest first, as Facts returns them
		{ID: 6, Attribute: ""},                    // unrelated note
		{ID: 5, Attribute: "", SupersededBy: nil}, // the end of a correction chain
		{ID: 4, Attribute: "role"},
		{ID: 3, Attribute: "", SupersededBy: id(5)},
		{ID: 2, Attribute: "role", SupersededBy: id(4)},
		{ID: 1, Attribute: "", SupersededBy: id(3)},
	}
	ids := func(fs []store.Fact) []int64 {
		var out []int64
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	for _, tc := range []struct {
		of   int
		want []int64
	}{
		{of: 5, want: []int64{5, 3, 1}}, // from the end
		{of: 1, want: []int64{5, 3, 1}}, // from the start
		{of: 2, want: []int64{4, 2}},    // by attribute
		{of: 0, want: []int64{6}},
	} {
		if got := ids(factHistory(all[tc.of], all)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("history of fact %d = %v, want %v", all[tc.of].ID, got, tc.want)
		}
	}
	groups := groupFacts([]store.Fact{{ID: 3, Entity: "Alice", Attribute: "role"}, {ID: 2, Entity: "bob"},
		{ID: 1, Entity: "alice", Attribute: "role"}, {ID: 0, Entity: "bob"}})
	if len(groups) != 3 || len(groups[0].Facts) != 2 || groups[0].Facts[1].ID != 1 {
		t.Errorf("groupFacts = %+v", groups)
	}
}

func TestDaysPaging(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	var mems []string
	start := time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC)
	for i := range daysPerPage + 5 {
		mems = append(mems, fmt.Sprintf(`{"content":"note %d","timestamp":%q}`, i, start.AddDate(0, 0, i).Format(time.RFC3339)))
	}
	f.seed("main", `{"memories":[`+strings.Join(mems, ",")+`]}`)
	first := f.get("/agents/main/days")
	last := start.AddDate(0, 0, 5).Format(time.DateOnly) // the oldest day of the first page
	if !strings.Contains(first.body, `href="/agents/main/days?before=`+last+`"`) || strings.Contains(first.body, "/days/2025-12-01\"") {
		t.Fatalf("the first page of days has no link to the older ones (before %s), or already lists them:\n%s", last, first.body)
	}
	second := f.get("/agents/main/days?before=" + last)
	for i := range 5 {
		if d := start.AddDate(0, 0, i).Format(time.DateOnly); !strings.Contains(second.body, `/days/`+d+`"`) {
			t.Errorf("the second page lacks %s", d)
		}
	}
	if strings.Contains(second.body, "Older days") {
		t.Error("the last page links to older days")
	}
}

func TestFlashIsFixedText(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	for _, done := range []string{"<script>alert(1)</script>", "deleted2", ""} {
		r := f.get("/agents/main?done=" + url.QueryEscape(done))
		if r.status != http.StatusOK || strings.Contains(r.body, `class="flash"`) {
			t.Errorf("?done=%q shows a flash message", done)
		}
	}
	if r := f.get("/agents/main?done=deleted"); !strings.Contains(r.body, `<p class="flash" role="status">The memory was deleted.</p>`) {
		t.Error("?done=deleted shows no message")
	}
}

// TestCorruptAgentPageIs503 is the API's answer on the page: an agent whose
// file is damaged is unavailable (503, saying how to restore), not a 500.
func TestCorruptAgentPageIs503(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	garbage := bytes.Repeat([]byte("not a database "), 512)
	if err := os.WriteFile(filepath.Join(f.store.Dir(), "broken.db"), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := f.get("/agents/broken"); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "restore") {
		t.Errorf("GET /agents/broken: %d, want 503 naming the restore:\n%s", r.status, r.body)
	}
	if r := f.get("/agents/main"); r.status != http.StatusOK {
		t.Errorf("GET /agents/main beside a broken agent: %d, want 200", r.status)
	}
}

// TestFactsGroupedByEntity: the facts page has one section per entity
// (whatever its case), its attributes inside it.
func TestFactsGroupedByEntity(t *testing.T) {
	groups := groupFacts([]store.Fact{{ID: 4, Entity: "Alice", Attribute: "role"}, {ID: 3, Entity: "Bob", Attribute: "city"},
		{ID: 2, Entity: "alice", Attribute: "city"}, {ID: 1, Entity: "Alice"}})
	got := byEntity(groups)
	if len(got) != 2 || got[0].Entity != "Alice" || len(got[0].Groups) != 3 || got[0].Facts != 3 ||
		got[1].Entity != "Bob" || got[1].Facts != 1 {
		t.Errorf("byEntity = %+v", got)
	}
	f := newFixture(t, fixtureOptions{})
	consolidated(t, f)
	r := f.get("/agents/main/facts")
	sections := strings.Count(r.body, `<section class="card fact-entity"`)
	var entities int
	f.agent("main", func(a *store.Agent) {
		facts, err := a.Facts(t.Context(), store.FactFilter{Limit: maxFacts})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, x := range facts {
			seen[strings.ToLower(x.Entity)] = true
		}
		entities = len(seen)
	})
	if entities == 0 || sections != entities {
		t.Errorf("the facts page has %d entity sections for %d entities:\n%s", sections, entities, r.body)
	}
	if !strings.Contains(r.body, `<nav class="entities"`) || !strings.Contains(r.body, `href="#entity-0"`) {
		t.Error("the facts page has no index of its entities")
	}
}
