package server

import (
	"net/http"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// BenchmarkConcurrentRecall100k asks one daemon's HTTP API, over 100,000
// LoCoMo turns, 200 recalls from one client and then 20 each from 32
// clients at once, each asking again as soon as it is answered. Issue 30's
// target: the 32 clients' p99 ≤ 10× the single client's p50. Beside it,
// the recalls a second of each (rate-32/rate-1: 1 means the 32 gained
// nothing from the second core, GOMAXPROCS the most they can) and the p50
// a server without any lock would give such clients, every recall waiting
// its turn at the cores: 32 ÷ GOMAXPROCS × the single client's mean
// (queue-floor-ms).
func BenchmarkConcurrentRecall100k(b *testing.B) {
	set := loadSet(b)
	ts, st := benchServer(b)
	fill(b, st, inputs(set.Memories(100_000, benchEnd)))
	queries := recallQueries(set, 200)
	cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	ask := func(q string) time.Duration {
		start := time.Now()
		if err := postWith(cl, ts.URL+"/v1/agents/main/recall", map[string]any{"query": q}, 200); err != nil {
			b.Error(err)
		}
		return time.Since(start)
	}
	for _, q := range queries[:warmQueries] {
		ask(q)
	}
	for b.Loop() {
		start := time.Now()
		one := make([]time.Duration, len(queries))
		for i, q := range queries {
			one[i] = ask(q)
		}
		rate1 := float64(len(one)) / time.Since(start).Seconds()
		start = time.Now()
		many := askConcurrently(32, 20, queries, ask)
		rate32 := float64(len(many)) / time.Since(start).Seconds()
		slices.Sort(one)
		slices.Sort(many)
		p50 := quantileMS(one, 0.50)
		b.ReportMetric(p50, "single-p50-ms")
		b.ReportMetric(quantileMS(many, 0.50), "c32-p50-ms")
		b.ReportMetric(quantileMS(many, 0.95), "c32-p95-ms")
		b.ReportMetric(quantileMS(many, 0.99), "c32-p99-ms")
		b.ReportMetric(quantileMS(many, 0.99)/p50, "c32-p99/single-p50")
		b.ReportMetric(rate32/rate1, "rate-32/rate-1")
		b.ReportMetric(32/float64(runtime.GOMAXPROCS(0))*1000/rate1, "queue-floor-ms")
	}
}

// askConcurrently has clients ask each perClient queries in turn, all at
// once, and returns every latency.
func askConcurrently(clients, perClient int, queries []string, ask func(string) time.Duration) []time.Duration {
	out := make([]time.Duration, clients*perClient)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range perClient {
				n := c*perClient + i
				out[n] = ask(queries[n%len(queries)])
			}
		})
	}
	wg.Wait()
	return out
}

// fill stores ins in agent main of st, 5,000 a batch.
func fill(b *testing.B, st *store.Store, ins []capture.Input) {
	err := st.With(b.Context(), "main", true, func(a *store.Agent) error {
		for i := 0; i < len(ins); i += 5000 {
			if _, err := capture.Ingest(b.Context(), a, ins[i:min(i+5000, len(ins))], capture.Limits{MaxContent: 64 << 10}, benchEnd); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
