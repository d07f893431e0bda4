package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestRememberFromThePage: the box stores a memory as the API would, with
// its role and session, tells the write's listeners, and shows it.
func TestRememberFromThePage(t *testing.T) {
	var wrote []string
	f := newFixture(t, fixtureOptions{onWrite: func(a string) { wrote = append(wrote, a) }})
	tok := f.token("/")
	form := url.Values{"csrf": {tok}, "agent": {"main"}, "content": {"Carol plays the cello."},
		"role": {"user"}, "session_id": {"chat-9"}}
	r := f.post("/memories", form)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/agents/main/memories/1?done=remembered" {
		t.Fatalf("POST /memories: %d to %q\n%s", r.status, r.header.Get("Location"), r.body)
	}
	f.agent("main", func(a *store.Agent) {
		m, err := a.Get(t.Context(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.Content != "Carol plays the cello." || m.Role != "user" || m.SessionID != "chat-9" || !m.Timestamp.Equal(fixtureNow) {
			t.Errorf("stored %+v", m)
		}
	})
	if !slices.Equal(wrote, []string{"main"}) {
		t.Errorf("the write listener heard %q, want main once", wrote)
	}
	if p := f.get("/agents/main/memories/1?done=remembered"); !strings.Contains(p.body, "The memory is stored.") {
		t.Errorf("the memory's page after adding it:\n%s", p.body)
	}
	// The same text again is the API's duplicate: no second memory, no write.
	r = f.post("/memories", form)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/agents/main/memories/1?done=duplicate" {
		t.Errorf("the same memory again: %d to %q", r.status, r.header.Get("Location"))
	}
	if len(wrote) != 1 {
		t.Errorf("a duplicate told the write listener: %q", wrote)
	}
}

// TestRememberRefusedKeepsTheText: a refused memory comes back on the page
// with the reason and everything typed, and stores nothing.
func TestRememberRefusedKeepsTheText(t *testing.T) {
	f := newFixture(t, fixtureOptions{agents: []string{"main"}})
	f.seed("main", `{"content":"Already here.","timestamp":"2026-02-09T12:00:00Z"}`)
	tok := f.token("/")
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"blank text", url.Values{"agent": {"main"}, "content": {"   "}, "role": {"user"}, "fixed": {"1"}},
			http.StatusUnprocessableEntity, []string{"content", "must not be blank", `value="user"`, `href="/agents/main/ask"`}},
		{"no agent", url.Values{"content": {"Dana likes jazz."}},
			http.StatusBadRequest, []string{"Name the agent", "Dana likes jazz."}},
		{"bad agent name", url.Values{"agent": {"Bad Name"}, "content": {"Dana likes jazz."}, "session_id": {"s-1"}},
			http.StatusBadRequest, []string{"not one Dormouse accepts", "Dana likes jazz.", `value="s-1"`, `value="Bad Name"`}},
		{"agent not listed", url.Values{"agent": {"stranger"}, "content": {"Dana likes jazz."}},
			http.StatusNotFound, []string{"not in this server&#39;s agent list", "Dana likes jazz."}},
	} {
		tc.form.Set("csrf", tok)
		r := f.post("/memories", tc.form)
		if r.status != tc.status {
			t.Errorf("%s: %d, want %d\n%s", tc.name, r.status, tc.status, r.body)
		}
		for _, w := range append(tc.want, `class="error"`, `action="/memories"`) {
			if !strings.Contains(r.body, w) {
				t.Errorf("%s: the page lacks %q", tc.name, w)
			}
		}
	}
	f.agent("main", func(a *store.Agent) {
		if st, err := a.Stats(t.Context()); err != nil || st.Memories != 1 {
			t.Errorf("after refused memories main has %d (%v), want 1", st.Memories, err)
		}
	})
	if names, _ := f.store.Agents(); slices.Contains(names, "stranger") {
		t.Error("a refused memory created an agent")
	}
	// Without the form's token nothing is stored either.
	if r := f.post("/memories", url.Values{"agent": {"main"}, "content": {"x"}}); r.status != http.StatusForbidden {
		t.Errorf("POST /memories without a CSRF token: %d, want 403", r.status)
	}
}

// TestRememberNeedsAWriteToken: signed in with a read-only token, the box
// is refused for that agent; with a writer's, it stores.
func TestRememberNeedsAWriteToken(t *testing.T) {
	k, err := auth.New([]auth.Rule{
		{Name: "main-reader", SHA256: auth.Hash("tok-read"), Agents: []string{"main"}},
		{Name: "main-writer", SHA256: auth.Hash("tok-main"), Agents: []string{"main"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k})
	signIn := func(token string) string {
		csrf := f.token("/login")
		if r := f.post("/login", url.Values{"csrf": {csrf}, "token": {token}, "next": {"/"}}); r.status != http.StatusSeeOther {
			t.Fatalf("sign in with %s: %d", token, r.status)
		}
		return f.token("/")
	}
	tok := signIn("tok-read")
	if r := f.post("/memories", url.Values{"csrf": {tok}, "agent": {"main"}, "content": {"Eve owns a kayak."}}); r.status != http.StatusForbidden ||
		!strings.Contains(r.body, "may not change agent main") || !strings.Contains(r.body, "Eve owns a kayak.") {
		t.Errorf("a reader's memory: %d\n%s", r.status, r.body)
	}
	tok = signIn("tok-main")
	if r := f.post("/memories", url.Values{"csrf": {tok}, "agent": {"other"}, "content": {"Eve owns a kayak."}}); r.status != http.StatusForbidden {
		t.Errorf("main's writer adding to other: %d, want 403", r.status)
	}
	if r := f.post("/memories", url.Values{"csrf": {tok}, "agent": {"main"}, "content": {"Eve owns a kayak."}}); r.status != http.StatusSeeOther {
		t.Errorf("main's writer adding to main: %d\n%s", r.status, r.body)
	}
}

// TestEmptyInstallSaysHowToStart: with no memory anywhere, the overview
// offers the box and the CLI and HTTP lines for this very server.
func TestEmptyInstallSaysHowToStart(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	host := strings.TrimPrefix(f.url, "http://")
	r := f.get("/")
	for _, w := range []string{"Add the first memory", `action="/memories"`, `name="agent" value="main"`,
		`dormouse ingest --agent main &#34;I am allergic to penicillin&#34;`,
		`curl -s http://` + host + `/v1/agents/main/memories --json`} {
		if !strings.Contains(r.body, w) {
			t.Errorf("the empty overview lacks %q", w)
		}
	}
	f.seed("main", `{"content":"Now there is one.","timestamp":"2026-02-09T12:00:00Z"}`)
	if r := f.get("/"); strings.Contains(r.body, "Add the first memory") || !strings.Contains(r.body, "Add a memory") {
		t.Error("with a memory stored, the overview still says how to add the first")
	}
}

// TestPageCreatesAnAgentOnlyByAWrite: the page follows the API's create
// rule, as docs/web.md says: looking at an agent that does not exist is a
// 404 and creates nothing; adding its first memory creates it.
func TestPageCreatesAnAgentOnlyByAWrite(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	agents := func() []string {
		t.Helper()
		names, err := f.store.Agents()
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	for _, path := range []string{"/agents/fresh", "/agents/fresh/facts", "/agents/fresh/days"} {
		if r := f.get(path); r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, r.status)
		}
	}
	if got := agents(); len(got) != 0 {
		t.Fatalf("looking at an agent created %v", got)
	}
	form := url.Values{"csrf": {f.token("/")}, "agent": {"fresh"}, "content": {"The first thing worth keeping."}}
	if r := f.post("/memories", form); r.status != http.StatusSeeOther {
		t.Fatalf("POST /memories: %d\n%s", r.status, r.body)
	}
	if got := agents(); !slices.Equal(got, []string{"fresh"}) {
		t.Errorf("agents after the first memory from the page: %v, want [fresh]", got)
	}
}
