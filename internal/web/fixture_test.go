package web

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// fixtureNow is the clock of every service in the fixture.
var fixtureNow = time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)

// fixtureArrival is when the store says every memory arrived: the fixture
// day's start, so by fixtureNow they have waited 12 hours (health's
// threshold here is one).
var fixtureArrival = time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC)

// fixture is the daemon's stack on loopback: the API server with the page
// mounted, over a real store, recall and consolidation engine and health
// monitor.
type fixture struct {
	t     testing.TB
	url   string
	store *store.Store
	web   *Handler
	jar   http.CookieJar
	hc    *http.Client
}

type fixtureOptions struct {
	noConsolidate bool
	agents        []string // a fixed agent list: AutoCreate off
	noFiles       bool     // no file pipeline: the upload form is hidden
	maxUpload     int64
	timers        []Timer
	describe      func(ctx context.Context, name, mime string, data []byte) (string, error) // the vision model
	keyring       *auth.Keyring                                                             // tokens for the API and the page
	proxies       []netip.Prefix                                                            // trusted proxies
	onWrite       func(agent string)                                                        // the page's write listener
	backups       string                                                                    // where deleting an agent backs it up; "": no deleting
	model         answer.Generator                                                          // the answering model; nil: offline
	replication   *health.Replication                                                       // the replicas /health reports; nil: replication off
	reads         map[string][]string                                                       // read grants (agents.<reader>.reads)
}

func newFixture(t testing.TB, fo fixtureOptions) *fixture {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(t.Context(), store.Options{Dir: dir, Location: time.UTC, DedupWindow: time.Hour,
		Now: func() time.Time { return fixtureArrival }})
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return fixtureNow }
	eng := &recall.Engine{Now: now}
	host := &health.Host{DataDir: dir, Store: st, Location: time.UTC}
	if fo.replication != nil {
		host.Replication = func(context.Context) *health.Replication { return fo.replication }
	}
	mon := &health.Monitor{
		Collector:  host,
		Thresholds: health.Thresholds{ConsolidationOverdue: time.Hour},
		TTL:        time.Nanosecond, // every page load reads afresh
		Now:        now,
	}
	o := Options{Store: st, Recall: eng, Health: mon, AutoCreate: fo.agents == nil, Agents: fo.agents,
		Location: time.UTC, Timers: func(context.Context) []Timer { return fo.timers }}
	so := server.Options{AutoCreate: o.AutoCreate, Agents: fo.agents, Now: now, Health: mon}
	o.Keyring, so.Keyring = fo.keyring, fo.keyring
	o.Reads = gate.NewReads(fo.reads)
	so.Reads = o.Reads
	o.TrustedProxies = fo.proxies
	o.OnWrite, o.Now = fo.onWrite, now
	if fo.model != nil {
		o.Answer = &answer.Answerer{Recall: eng, Model: fo.model}
	}
	if fo.backups != "" {
		o.Backups = &backup.Options{Dir: fo.backups}
	}
	if !fo.noFiles { // the daemon's wiring: one ingester behind the API and the page
		ing := &watch.Ingester{Store: st, Location: time.UTC, AutoCreate: true, Describe: fo.describe, DescribedBy: "ollama/llava"}
		o.Files, so.Files = ing, ing
		o.MaxUploadBytes, so.MaxUploadBytes = fo.maxUpload, fo.maxUpload
	}
	if !fo.noConsolidate {
		cons := &consolidate.Engine{Store: st, Consolidator: consolidate.Offline{}, Location: time.UTC, Now: now}
		o.Consolidate, so.Consolidate = cons, cons
	}
	page, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	so.Web = page
	srv := server.New(st, eng, so)
	srv.SetReady(true)
	ts := httptest.NewServer(srv)
	jar, _ := cookiejar.New(nil)
	t.Cleanup(func() {
		ts.Close()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return &fixture{t: t, url: ts.URL, store: st, web: page, jar: jar, hc: &http.Client{
		Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // tests look at the 303 itself
		},
	}}
}

// seed stores memories through the API, as an agent would.
func (f *fixture) seed(agent, body string) {
	f.t.Helper()
	resp, err := http.Post(f.url+"/v1/agents/"+agent+"/memories", "application/json", strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		f.t.Fatalf("seed %s: %d %s", agent, resp.StatusCode, b)
	}
}

// seedAs stores memories through the API with a bearer token (fixtures
// with a keyring).
func (f *fixture) seedAs(token, agent, body string) {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), "POST", f.url+"/v1/agents/"+agent+"/memories", strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if r := f.do(req); r.status != http.StatusCreated {
		f.t.Fatalf("seed %s: %d %s", agent, r.status, r.body)
	}
}

// agent runs fn on an open agent of the fixture's store.
func (f *fixture) agent(name string, fn func(a *store.Agent)) {
	f.t.Helper()
	if err := f.store.With(f.t.Context(), name, false, func(a *store.Agent) error { fn(a); return nil }); err != nil {
		f.t.Fatal(err)
	}
}

type response struct {
	status int
	header http.Header
	body   string
}

func (f *fixture) do(req *http.Request) response {
	f.t.Helper()
	resp, err := f.hc.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, string(b)}
}

func (f *fixture) get(path string) response {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), http.MethodGet, f.url+path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.do(req)
}

// post sends a form as a browser on the page would (same-origin).
func (f *fixture) post(path string, form url.Values, header ...string) response {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), http.MethodPost, f.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return f.do(req)
}

var tokenRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token loads a page and returns its forms' CSRF token.
func (f *fixture) token(path string) string {
	f.t.Helper()
	r := f.get(path)
	m := tokenRE.FindStringSubmatch(r.body)
	if r.status != http.StatusOK || m == nil {
		f.t.Fatalf("GET %s: %d, no CSRF token in the page:\n%s", path, r.status, r.body)
	}
	return m[1]
}

// seedDay is two days of memories for agent main: the offline
// consolidator finds facts in them.
const seedDay = `{"memories":[
	{"content":"Alice's role is engineer.","timestamp":"2026-02-08T09:00:00Z","role":"user","session_id":"chat-1"},
	{"content":"Bob fixed the login timeout on the Atlas proxy.","timestamp":"2026-02-08T10:00:00Z","role":"user"},
	{"content":"I prefer oat milk in my coffee, never cow's milk.","timestamp":"2026-02-09T09:00:00Z","role":"user"},
	{"content":"Today the Atlas review went well.","timestamp":"2026-02-10T09:00:00Z","role":"assistant"}]}`

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
