package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/health"
)

// fixtureReplication is Litestream running, one agent caught up and one
// behind with an error, as /health reports them.
func fixtureReplication() *health.Replication {
	synced, stale := fixtureNow.Add(-2*time.Second), fixtureNow.Add(-3*time.Minute)
	return &health.Replication{Target: "s3://bucket/pi", Running: true, Restarts: 2, Agents: []health.Replica{
		{Agent: "main", State: "replicating", LastSync: &synced},
		{Agent: "notes", State: "replicating", LagSeconds: 184.25, LastSync: &stale,
			LastError: `level=ERROR msg="monitor error" db=notes.db error="operation error S3: PutObject, dial tcp 127.0.0.1:9000: connect: connection refused"`},
	}}
}

// TestPageShowsReplication: with replication on, the overview shows
// Litestream's state and each agent's replica state, lag, last sync and
// last error; without it there is no replication card.
func TestPageShowsReplication(t *testing.T) {
	f := newFixture(t, fixtureOptions{replication: fixtureReplication()})
	f.seed("main", `{"content":"Bo planted tulips."}`)
	r := f.get("/")
	if r.status != http.StatusOK {
		t.Fatalf("GET /: %d", r.status)
	}
	for _, want := range []string{
		"<h2>Replication</h2>", "<code>s3://bucket/pi</code>", "litestream running", "restarted 2 times",
		"<td>main</td><td>replicating</td><td>0.0s</td><td>2s ago</td>",
		"<td>notes</td><td>replicating</td><td>184.2s</td><td>3m ago</td>",
		`<tr><td colspan="4" class="reason">Last error: level=ERROR msg=&#34;monitor error&#34; db=notes.db`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("GET / lacks %q:\n%s", want, r.body)
		}
	}

	down := fixtureNow.Add(-5 * time.Minute)
	stopped := &health.Replication{Target: "file:///mnt/nas/dormouse", DownSince: &down, LastErrorAt: &down,
		LastError: "litestream exited: signal: killed", Agents: []health.Replica{{Agent: "main", State: "waiting", LagSeconds: 300}}}
	f = newFixture(t, fixtureOptions{replication: stopped})
	f.seed("main", `{"content":"Bo planted tulips."}`)
	r = f.get("/")
	for _, want := range []string{"litestream down for 5m", "Last error (2026-02-10 11:55): litestream exited: signal: killed",
		"<td>main</td><td>waiting</td><td>300.0s</td><td>never</td>"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("GET / with Litestream down lacks %q:\n%s", want, r.body)
		}
	}

	off := newFixture(t, fixtureOptions{})
	off.seed("main", `{"content":"Bo planted tulips."}`)
	if r := off.get("/"); strings.Contains(r.body, "<h2>Replication</h2>") {
		t.Errorf("GET / without replication shows a replication card:\n%s", r.body)
	}
}

// TestPageReplicationForAToken: a token for one agent sees that agent's
// replica only, as /health shows it.
func TestPageReplicationForAToken(t *testing.T) {
	k, err := auth.New([]auth.Rule{{Name: "main-reader", SHA256: auth.Hash("tok-read"), Agents: []string{"main"}},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}, Write: true}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, fixtureOptions{keyring: k, replication: fixtureReplication()})
	f.seedAs("tok-admin", "main", `{"content":"Bo planted tulips."}`)
	csrf := f.token("/login")
	if r := f.post("/login", url.Values{"csrf": {csrf}, "token": {"tok-read"}, "next": {"/"}}); r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", r.status)
	}
	r := f.get("/")
	if !strings.Contains(r.body, "<td>main</td><td>replicating</td>") {
		t.Errorf("the reader does not see main's replica:\n%s", r.body)
	}
	if strings.Contains(r.body, "notes") {
		t.Errorf("the reader of main sees the notes agent's replica:\n%s", r.body)
	}
}
