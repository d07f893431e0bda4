package consolidate

import (
	"errors"
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
