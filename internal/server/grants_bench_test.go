package server

import (
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// BenchmarkGrants measures what two read grants cost a recall (issue 29's
// target: p95 ≤ 1.5× the reader alone): the reader holds 100,000 dense
// memories and each granted agent 10,000 (written a year earlier, so the
// texts differ in their dates), and each of 200 questions is asked alone
// and with the grants, one after the other, in the same run.
func BenchmarkGrants(b *testing.B) {
	st, err := store.Open(b.Context(), store.Options{Dir: b.TempDir(), Kinds: kinds.Of})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	sizes := []struct {
		name string
		n    int
		end  time.Time
	}{{"main", 100_000, benchEnd}, {"household", 10_000, benchEnd.AddDate(-1, 0, 0)}, {"team", 10_000, benchEnd.AddDate(-2, 0, 0)}}
	var sources []recall.Source
	for _, s := range sizes {
		a, err := st.Acquire(b.Context(), s.name, true)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Release(a) })
		stored := 0
		growTo(b, a, benchdata.Dense(s.n, s.end, benchdata.WithoutSession), &stored, s.n)
		agent := s.name
		if agent == "main" {
			agent = ""
		}
		sources = append(sources, recall.Source{Agent: agent, Searcher: a})
	}
	eng := &recall.Engine{Now: func() time.Time { return benchEnd }}
	queries := benchdata.DenseQueries(200)
	for b.Loop() {
		var alone, granted, household []time.Duration
		for _, q := range queries {
			alone = append(alone, timeRecallFrom(b, eng, sources[:1], q))
			granted = append(granted, timeRecallFrom(b, eng, sources, q))
			household = append(household, timeRecallFrom(b, eng, sources[1:2], q))
		}
		slices.Sort(alone)
		slices.Sort(granted)
		slices.Sort(household)
		b.ReportMetric(quantileMS(household, 0.50), "p50-household-alone-ms")
		b.ReportMetric(quantileMS(alone, 0.50), "p50-alone-ms")
		b.ReportMetric(quantileMS(granted, 0.50), "p50-granted-ms")
		b.ReportMetric(quantileMS(alone, 0.95), "p95-alone-ms")
		b.ReportMetric(quantileMS(granted, 0.95), "p95-granted-ms")
		b.ReportMetric(quantileMS(granted, 0.95)/quantileMS(alone, 0.95), "p95-ratio")
	}
}

func timeRecallFrom(b *testing.B, eng *recall.Engine, sources []recall.Source, q string) time.Duration {
	start := time.Now()
	if _, err := eng.RecallFrom(b.Context(), sources, recall.Query{Text: q}); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
