package consolidate

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// threadNice is the nice value of the calling thread.
func threadNice(t *testing.T) int {
	t.Helper()
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - prio
}

// threadEnds waits until thread tid of the process has ended, for at most
// a while: a goroutine locked to its thread ends that thread as it exits,
// just after its deferred calls ran. The main thread is the exception:
// the runtime parks it for good instead, so it never runs Go code again.
func threadEnds(tid int) bool {
	if tid == os.Getpid() {
		return true
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid)); errors.Is(err, os.ErrNotExist) {
			return true
		}
		runtime.Gosched()
	}
	return false
}

// backgroundNiceHere is the nice value background work of this process
// runs at; it skips the test when that is the process's own.
func backgroundNiceHere(t *testing.T) int {
	t.Helper()
	base := threadNice(t)
	want := min(base+backgroundNice, 19)
	if want == base {
		t.Skipf("the test runs at nice %d already: no lower priority to see", base)
	}
	return want
}

// thread is the thread a consolidator's Map ran on.
type thread struct{ tid, nice int }

// mapThread is a consolidator that records the thread its Map runs on.
func mapThread(t *testing.T, got chan<- thread) fake {
	return fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		select {
		case got <- thread{syscall.Gettid(), threadNice(t)}:
		default:
		}
		return Offline{}.Map(ctx, day, mems)
	}}
}

// TestCatchUpRunsAtBackgroundPriority: the start-up catch-up's work runs on
// a thread backgroundNice nicer than the daemon's, and that thread ends
// with it (no other goroutine is left at the lower priority).
func TestCatchUpRunsAtBackgroundPriority(t *testing.T) {
	want := backgroundNiceHere(t)
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{say("I moved to Lisbon last spring.", now.AddDate(0, 0, -2))})
	got := make(chan thread, 1)
	e := engine(st, mapThread(t, got))
	e.CatchUp(t.Context())
	var th thread
	select {
	case th = <-got:
	default:
		t.Fatal("the catch-up consolidated nothing")
	}
	if th.nice != want {
		t.Errorf("the catch-up consolidated at nice %d, want %d", th.nice, want)
	}
	if !threadEnds(th.tid) {
		t.Errorf("thread %d, at nice %d, outlived the catch-up: another goroutine may run at its priority", th.tid, th.nice)
	}
}

// TestBacklogRunsAtBackgroundPriority: the backlog trigger's early
// consolidation of today runs at background priority too.
func TestBacklogRunsAtBackgroundPriority(t *testing.T) {
	want := backgroundNiceHere(t)
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{say("I moved to Lisbon last spring.", now.Add(-time.Hour))})
	got := make(chan thread, 1)
	b := &Backlog{Engine: engine(st, mapThread(t, got)), Threshold: 1}
	b.Start(t.Context())
	b.Notify("main")
	b.Wait()
	select {
	case th := <-got:
		if th.nice != want {
			t.Errorf("the backlog trigger consolidated at nice %d, want %d", th.nice, want)
		}
	default:
		t.Fatal("the backlog trigger consolidated nothing")
	}
}
