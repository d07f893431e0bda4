package consolidate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// BenchmarkOfflineDay consolidates a day of 1,000 LoCoMo turns with the
// offline consolidator, end to end: select, chunk, map, reduce and commit
// (each iteration rebuilds the day). The target is 1 s per day on a Pi.
func BenchmarkOfflineDay(b *testing.B) {
	set, err := benchdata.Load()
	if errors.Is(err, benchdata.ErrMissing) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	day := time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC)
	var ins []capture.Input
	for _, m := range set.Memories(1000, day) {
		ins = append(ins, capture.Input{Content: m.Content, SessionID: m.Session, Role: m.Role, Timestamp: m.Timestamp.Format(time.RFC3339)})
	}
	st := openStore(b)
	ingest(b, st, "main", ins)
	e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
		Now: func() time.Time { return time.Date(2026, 3, 3, 1, 0, 0, 0, time.UTC) }}
	b.ResetTimer()
	var run store.Run
	for b.Loop() {
		if run, err = e.Run(b.Context(), "main", "2026-03-02"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(run.Memories), "memories")
	b.ReportMetric(float64(len(Chunks(dayMemories(b, st), DefaultChunkTokens))), "chunks")
	b.ReportMetric(float64(run.Facts), "facts")
}

func dayMemories(b *testing.B, st *store.Store) []store.Memory {
	var mems []store.Memory
	err := st.With(b.Context(), "main", false, func(a *store.Agent) error {
		var err error
		mems, err = a.DayMemories(b.Context(), "2026-03-02")
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return mems
}

// BenchmarkCatchUpWrites consolidates a backlog of 40 past days of 250
// LoCoMo turns with the offline consolidator by the daemon's start-up
// catch-up (Engine.CatchUp, at background priority), while one writer stores single memories one after
// another: the writes' latency during the catch-up (write-p95-us) is what
// a capture client waits while the catch-up holds the agent's writer.
func BenchmarkCatchUpWrites(b *testing.B) {
	set, err := benchdata.Load()
	if errors.Is(err, benchdata.ErrMissing) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	const days, perDay = 40, 250
	clock := time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)
	var took []time.Duration
	for b.Loop() {
		b.StopTimer()
		st := openStore(b)
		ingest(b, st, "main", backlog(set, days, perDay, clock))
		e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC, Now: func() time.Time { return clock }}
		b.StartTimer()
		took = append(took, writesDuring(b, st, clock, func() { e.CatchUp(b.Context()) })...)
		if left := unconsolidatedDays(b, st); left != 0 {
			b.Fatalf("the catch-up left %d days unconsolidated", left)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "write-p50-us")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds()), "write-p95-us")
	b.ReportMetric(float64(took[len(took)-1].Microseconds()), "write-max-us")
}

func unconsolidatedDays(b *testing.B, st *store.Store) int {
	var n int
	err := st.With(b.Context(), "main", false, func(a *store.Agent) error {
		days, err := a.UnconsolidatedDays(b.Context(), "2026-03-10")
		n = len(days)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// backlog is days days of perDay turns each, a minute apart from 08:00,
// ending the day before clock's.
func backlog(set *benchdata.Set, days, perDay int, clock time.Time) []capture.Input {
	first := clock.Truncate(24*time.Hour).AddDate(0, 0, -days).Add(8 * time.Hour)
	var ins []capture.Input
	for i, m := range set.Memories(days*perDay, clock) {
		ts := first.AddDate(0, 0, i/perDay).Add(time.Duration(i%perDay) * time.Minute)
		ins = append(ins, capture.Input{Content: m.Content, SessionID: m.Session, Role: m.Role, Timestamp: ts.Format(time.RFC3339)})
	}
	return ins
}

// writesDuring stores one memory at a time, dated today, while work runs
// and returns how long each store took.
func writesDuring(b testing.TB, st *store.Store, today time.Time, work func()) []time.Duration {
	stop, stopped := make(chan struct{}), make(chan struct{})
	var took []time.Duration
	go func() {
		defer close(stopped)
		err := st.With(context.Background(), "main", false, func(a *store.Agent) error {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return nil
				default:
				}
				in := capture.Input{Content: fmt.Sprintf("status line %d: the deploy finished", i), SessionID: "live",
					Timestamp: today.Format(time.RFC3339)}
				start := time.Now()
				if _, err := capture.Ingest(context.Background(), a, []capture.Input{in}, capture.Limits{MaxContent: 1 << 16}, time.Now()); err != nil {
					return err
				}
				took = append(took, time.Since(start))
			}
		})
		if err != nil {
			b.Error(err)
		}
	}()
	work()
	close(stop)
	<-stopped
	return took
}
