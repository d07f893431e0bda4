package consolidate

import (
	"context"
	"log/slog"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestPaceRestsAsLongAsTheWorkTook: pace waits the CPU time it is given,
// no more, and not at all for none; an ended context ends the rest.
func TestPaceRestsAsLongAsTheWorkTook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, cpu := range []time.Duration{0, -time.Second, 3 * time.Second} {
			start := time.Now()
			pace(t.Context(), cpu)
			if got := time.Since(start); got != max(cpu, 0) {
				t.Errorf("pace(%v) rested %v", cpu, got)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		pace(ctx, time.Hour)
		if got := time.Since(start); got != time.Second {
			t.Errorf("pace(1h) with a context ending after 1s rested %v", got)
		}
	})
}

// TestRunDaysReportsEachDaysCPU: the catch-up's loop is told, after each
// day, the CPU time the day took on the calling thread.
func TestRunDaysReportsEachDaysCPU(t *testing.T) {
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{
		say("I moved to Lisbon last spring.", now.AddDate(0, 0, -3)),
		say("My sister Ana is visiting in May.", now.AddDate(0, 0, -2)),
	})
	e := engine(st, fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		spin(20 * time.Millisecond)
		return Offline{}.Map(ctx, day, mems)
	}})
	var cpus []time.Duration
	runtime.LockOSThread() // threadCPU reads this goroutine's thread
	defer runtime.UnlockOSThread()
	plan, err := e.pending(t.Context(), "main", "", false)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := e.runDays(t.Context(), "main", plan, func(_ context.Context, cpu time.Duration) { cpus = append(cpus, cpu) })
	if err != nil || len(runs) != 2 {
		t.Fatalf("runDays: %d runs, %v", len(runs), err)
	}
	if len(cpus) != 2 {
		t.Fatalf("after ran %d times for 2 days", len(cpus))
	}
	for i, cpu := range cpus {
		if runtime.GOOS == "linux" && cpu < 10*time.Millisecond {
			t.Errorf("day %d: told %v of CPU; its Map alone spun 20ms", i, cpu)
		}
	}
}

// spin uses about d of the calling thread's CPU: by the thread's own clock
// where it is read (Linux), since on a loaded machine d of wall time may be
// far less CPU; by the wall clock elsewhere.
func spin(d time.Duration) {
	if runtime.GOOS != "linux" {
		for start := time.Now(); time.Since(start) < d; {
		}
		return
	}
	for start := threadCPU(); threadCPU()-start < d; {
	}
}

// TestBackgroundHasAPOfItsOwn: while background work runs, the scheduler
// has one more P than before, and the number is back after it.
func TestBackgroundHasAPOfItsOwn(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var during int
	inBackground(slog.New(slog.DiscardHandler), func() { during = runtime.GOMAXPROCS(0) })
	if during != before+1 {
		t.Errorf("GOMAXPROCS during background work: %d, want %d", during, before+1)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS after background work: %d, want %d", after, before)
	}
}
