package server

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// BenchmarkSinglePostSynchronous is what storage.synchronous costs a
// single-memory POST: p50 and p95 with 1 and 8 clients, FULL beside NORMAL
// in the same run (docs/operations.md#durability). FULL syncs the WAL at
// every commit, so each commit waits for the disk; group commit shares one
// sync among the writes that arrive together. This machine's disk syncs far
// faster than an SD card: the ratio is the figure to read, not the ms.
func BenchmarkSinglePostSynchronous(b *testing.B) {
	const each = 400
	for _, clients := range []int{1, 8} {
		b.Run(map[int]string{1: "1-client", 8: "8-clients"}[clients], func(b *testing.B) {
			mems := benchdata.Dense(clients*each+1, benchEnd, benchdata.WithSession)
			var normal, full []time.Duration
			for b.Loop() {
				normal = append(normal, postLatencies(b, "NORMAL", mems, clients)...)
				full = append(full, postLatencies(b, "FULL", mems, clients)...)
			}
			p50n, p95n := percentiles(normal)
			p50f, p95f := percentiles(full)
			b.ReportMetric(p50n, "normal-p50-ms")
			b.ReportMetric(p95n, "normal-p95-ms")
			b.ReportMetric(p50f, "full-p50-ms")
			b.ReportMetric(p95f, "full-p95-ms")
			b.ReportMetric(p50f/p50n, "full/normal-p50")
			b.ReportMetric(p95f/p95n, "full/normal-p95")
		})
	}
}

// postLatencies posts mems one a request from clients at once to a new
// store opened with synchronous (the first, untimed, opens the agent), and
// returns each other request's time.
func postLatencies(b *testing.B, synchronous string, mems []benchdata.Memory, clients int) []time.Duration {
	b.StopTimer()
	window := time.Duration(config.Default().Storage.GroupCommitWindow)
	ts, st := serveStore(b, store.Options{Dir: b.TempDir(), DedupWindow: 24 * time.Hour, Kinds: kinds.Of,
		GroupCommitWindow: window, Synchronous: synchronous})
	defer func() { ts.Close(); st.Close() }()
	url := ts.URL + "/v1/agents/main/memories"
	if err := postJSON(url, inputs(mems[:1])[0], 201); err != nil {
		b.Fatal(err)
	}
	mems = mems[1:]
	b.StartTimer()
	lat := make([]time.Duration, len(mems))
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; i < len(mems); i += clients {
				start := time.Now()
				if err := postJSON(url, inputs(mems[i : i+1])[0], 201); err != nil {
					b.Error(err)
					return
				}
				lat[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	return lat
}

// percentiles returns the p50 and p95 of lat in ms.
func percentiles(lat []time.Duration) (p50, p95 float64) {
	slices.Sort(lat)
	return quantileMS(lat, 0.50), quantileMS(lat, 0.95)
}
