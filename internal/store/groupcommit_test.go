package store

import (
	"context"
	"sync"
	"testing"
	"time"
)

// txCounter numbers the writer's transactions: each write it runs records
// the number of the one it is in.
type txCounter struct {
	mu  sync.Mutex
	n   int
	got map[string]int
}

// countCommits returns a txCounter counting a's transactions.
func countCommits(t *testing.T, a *Agent) *txCounter {
	t.Helper()
	tc := &txCounter{got: map[string]int{}}
	if err := a.write(t.Context(), func(_ context.Context, c *conn) error {
		c.db.CommitHook(func() bool { tc.mu.Lock(); tc.n++; tc.mu.Unlock(); return true })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return tc
}

// write runs a write named name; a gate, when given, holds it (and the
// writer) until closed, after running is closed.
func (tc *txCounter) write(t *testing.T, a *Agent, name string, running, gate chan struct{}) {
	t.Helper()
	err := a.write(t.Context(), func(ctx context.Context, c *conn) error {
		if gate != nil {
			close(running)
			<-gate
		}
		tc.mu.Lock()
		tc.got[name] = tc.n
		tc.mu.Unlock()
		// SQLite calls the commit hook only for transactions that wrote.
		return c.execArgs(ctx, `INSERT OR REPLACE INTO leases (name, holder, expires_at) VALUES (?, '', 0)`, name)
	})
	if err != nil {
		t.Errorf("write %s: %v", name, err)
	}
}

// waitQueued returns once exactly n writes wait in a's queue.
func waitQueued(a *Agent, n int) {
	for len(a.writes) != n {
		time.Sleep(time.Millisecond) // polls a condition; no timer is raced
	}
}

// TestGroupCommitWindowGathersConcurrentWriters: while writers are
// concurrent, a write arriving within the window joins the transaction of
// those queued before it, and none of them is acknowledged before that
// transaction commits.
func TestGroupCommitWindowGathersConcurrentWriters(t *testing.T) {
	s := openTest(t, Options{GroupCommitMax: 3, GroupCommitWindow: time.Hour})
	a := acquire(t, s, "main")
	tc := countCommits(t, a)
	running, gate := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { tc.write(t, a, "gate", running, gate) }) // holds the writer while two more queue
	<-running
	wg.Go(func() { tc.write(t, a, "first", nil, nil) })
	wg.Go(func() { tc.write(t, a, "second", nil, nil) })
	waitQueued(a, 2)
	close(gate)
	waitQueued(a, 0) // the writer took both and waits, the window not over
	wg.Go(func() { tc.write(t, a, "late", nil, nil) })
	wg.Wait()
	if tc.got["first"] != tc.got["late"] || tc.got["second"] != tc.got["late"] || tc.got["gate"] == tc.got["late"] {
		t.Errorf("transactions = %v, want first, second and late in one, gate in another", tc.got)
	}
}

// TestLoneWriterNeverWaitsForTheWindow: one write at a time commits at
// once, however long the window (an hour here: the test would time out).
func TestLoneWriterNeverWaitsForTheWindow(t *testing.T) {
	s := openTest(t, Options{GroupCommitWindow: time.Hour})
	a := acquire(t, s, "main")
	for i := range 5 {
		if _, err := a.Insert(t.Context(), []Memory{mem("lone "+string(rune('a'+i)), "")}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitQueuedAll returns once exactly n writes, foreground and background,
// wait in a's queues.
func waitQueuedAll(a *Agent, n int) {
	for len(a.writes)+len(a.background) != n {
		time.Sleep(time.Millisecond) // polls a condition; no timer is raced
	}
}

// TestCaptureQueuedBehindAConsolidationGoesFirst: a day's consolidation
// commit waiting for the writer lets a capture that queued after it go
// first, in a transaction of its own, instead of holding it for the
// milliseconds the day's commit takes.
func TestCaptureQueuedBehindAConsolidationGoesFirst(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	tc := countCommits(t, a)
	running, gate := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { tc.write(t, a, "gate", running, gate) }) // holds the writer while the others queue
	<-running
	wg.Go(func() {
		_, err := a.CommitConsolidation(t.Context(), Commit{
			Record: Consolidation{Date: "2026-02-01", Summary: "a day", Model: "offline"},
			Run:    Run{Day: "2026-02-01", Provider: "offline", Status: RunOK},
		})
		if err != nil {
			t.Errorf("commit the day: %v", err)
		}
	})
	waitQueuedAll(a, 1)
	wg.Go(func() { tc.write(t, a, "capture", nil, nil) })
	waitQueuedAll(a, 2)
	close(gate)
	wg.Wait()
	// The gate's transaction is number g: the capture's must be the next,
	// and the day's the one after, alone.
	if g := tc.got["gate"]; tc.got["capture"] != g+1 || tc.n != g+3 {
		t.Errorf("the gate committed as number %d, the capture in %d, %d in all; want the capture in %d of %d: first and alone",
			g+1, tc.got["capture"]+1, tc.n, g+2, g+3)
	}
}
