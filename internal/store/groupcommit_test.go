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
	tc := &txCounter{got: map[string]int{}}
	if err := a.write(t.Context(), func(_ context.Context, c *conn) error {
		c.db.CommitHook(func() bool { tc.mu.Lock(); tc.n++; tc.mu.Unlock(); return true })
		return nil
	}); err != nil {
		t.Fatal(err)
	}
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
