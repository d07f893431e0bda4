package consolidate

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestAwaitQuietWaitsForAPause: the wait ends once quiet has passed since
// the last capture, at once when it has already, and at the limit when
// capture never pauses; an ended context ends it too.
func TestAwaitQuietWaitsForAPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const quiet, limit = 300 * time.Millisecond, 5 * time.Second
		waited := func(ctx context.Context, last func() time.Time) time.Duration {
			start := time.Now()
			awaitQuiet(ctx, last, quiet, limit)
			return time.Since(start)
		}
		at := func(t time.Time) func() time.Time { return func() time.Time { return t } }
		if got := waited(t.Context(), at(time.Time{})); got != 0 {
			t.Errorf("no capture ever: waited %v", got)
		}
		if got := waited(t.Context(), at(time.Now().Add(-time.Second))); got != 0 {
			t.Errorf("a capture 1s ago: waited %v", got)
		}
		if got := waited(t.Context(), at(time.Now().Add(-100*time.Millisecond))); got != quiet-100*time.Millisecond {
			t.Errorf("a capture 100ms ago: waited %v, want %v", got, quiet-100*time.Millisecond)
		}

		var last atomic.Int64 // capture every 100ms from now on
		last.Store(time.Now().UnixNano())
		ctx, stop := context.WithCancel(t.Context())
		capturing := make(chan struct{})
		go func() {
			defer close(capturing)
			for tick := time.NewTicker(100 * time.Millisecond); ; {
				select {
				case <-ctx.Done():
					tick.Stop()
					return
				case now := <-tick.C:
					last.Store(now.UnixNano())
				}
			}
		}()
		lastCapture := func() time.Time { return time.Unix(0, last.Load()) }
		if got := waited(t.Context(), lastCapture); got != limit {
			t.Errorf("capture that never pauses: waited %v, want the limit %v", got, limit)
		}
		ended, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if got := waited(ended, lastCapture); got != time.Second {
			t.Errorf("capture that never pauses, a context ending after 1s: waited %v", got)
		}
		stop()
		<-capturing
	})
}

// TestCatchUpGivesWayToCapture: the catch-up starts no day until capture
// has stored nothing for captureQuiet, neither its first (after the memory
// stored just before it began) nor the next (after one stored while the
// first was consolidated).
func TestCatchUpGivesWayToCapture(t *testing.T) {
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{
		say("I moved to Lisbon last spring.", now.AddDate(0, 0, -3)),
		say("My sister Ana is visiting in May.", now.AddDate(0, 0, -2)),
	})
	var mu sync.Mutex
	var gaps []time.Duration // from the last capture to each day's Map
	e := engine(st, fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		mu.Lock()
		gaps = append(gaps, time.Since(st.LastCapture()))
		first := len(gaps) == 1
		mu.Unlock()
		if first { // capture goes on while the first day is consolidated
			ingest(t, st, "main", []capture.Input{say("The deploy finished.", now)})
		}
		return Offline{}.Map(ctx, day, mems)
	}})
	ingest(t, st, "main", []capture.Input{say("Lunch with Ana at noon.", now)})
	e.CatchUp(t.Context())
	if len(gaps) != 2 {
		t.Fatalf("the catch-up mapped %d days, want 2", len(gaps))
	}
	for i, gap := range gaps {
		if gap < captureQuiet {
			t.Errorf("day %d was begun %v after a capture, want at least %v", i+1, gap, captureQuiet)
		}
	}
}

// TestBacklogGivesWayToCapture: the backlog trigger's early rebuild of
// today waits for capture to be quiet too.
func TestBacklogGivesWayToCapture(t *testing.T) {
	st := openStore(t)
	gap := make(chan time.Duration, 1)
	e := engine(st, fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		gap <- time.Since(st.LastCapture())
		return Offline{}.Map(ctx, day, mems)
	}})
	ingest(t, st, "main", []capture.Input{say("Lunch with Ana at noon.", now.Add(-time.Hour))})
	b := &Backlog{Engine: e, Threshold: 1}
	b.Start(t.Context())
	b.Notify("main")
	b.Wait()
	select {
	case g := <-gap:
		if g < captureQuiet {
			t.Errorf("today was rebuilt %v after a capture, want at least %v", g, captureQuiet)
		}
	default:
		t.Fatal("the backlog trigger consolidated nothing")
	}
}

// TestCatchUpWaitsForTheBacklogsRebuild: a catch-up that begins while the
// backlog trigger rebuilds today waits for its turn and then consolidates
// the past day; it used to meet the rebuild on the agent, be told ErrBusy
// and leave the day unconsolidated.
func TestCatchUpWaitsForTheBacklogsRebuild(t *testing.T) {
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{
		say("I moved to Lisbon last spring.", now.AddDate(0, 0, -2)),
		say("Lunch with Ana at noon.", now.Add(-time.Hour)),
	})
	today := now.Format(time.DateOnly)
	rebuilding, release := make(chan struct{}), make(chan struct{})
	e := engine(st, fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		if day == today {
			close(rebuilding)
			<-release
		}
		return Offline{}.Map(ctx, day, mems)
	}})
	waiting := &noticed{msg: "waiting for the background consolidation running to end", seen: make(chan struct{})}
	e.Logger = slog.New(waiting)
	b := &Backlog{Engine: e, Threshold: 1}
	b.Start(t.Context())
	b.Notify("main")
	<-rebuilding
	caughtUp := make(chan struct{})
	go func() {
		defer close(caughtUp)
		e.CatchUp(t.Context())
	}()
	select {
	case <-waiting.seen:
	case <-caughtUp: // it did not wait: the day is left, as checked below
	}
	close(release)
	<-caughtUp
	b.Wait()
	if s := stats(t, st, "main"); s.Unconsolidated != 0 {
		t.Errorf("after the rebuild of today and the catch-up: %d memories unconsolidated, want 0", s.Unconsolidated)
	}
}

// noticed is a log handler that closes seen once msg is logged.
type noticed struct {
	msg  string
	seen chan struct{}
	once sync.Once
}

func (n *noticed) Enabled(context.Context, slog.Level) bool { return true }
func (n *noticed) WithAttrs([]slog.Attr) slog.Handler       { return n }
func (n *noticed) WithGroup(string) slog.Handler            { return n }

func (n *noticed) Handle(_ context.Context, r slog.Record) error {
	if r.Message == n.msg {
		n.once.Do(func() { close(n.seen) })
	}
	return nil
}
