package main

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
)

// millionMemories is BenchmarkMillion's agent size; BENCH_MILLION_MEMORIES
// sets another for a quick look.
var millionMemories = envInt("BENCH_MILLION_MEMORIES", 1_000_000)

// BenchmarkMillion stores a million dense memories in one agent through
// the real daemon's HTTP API (batches of 500), then measures what issue 30
// asks of a big agent: serve's start to READY=1 (the median of 3 starts),
// and, after 200 two-word recalls, the daemon's memory as BenchmarkDenseRSS
// reports it, then again once idle (denseRSSIdle). Targets: READY ≤ 2 s,
// RSS ≤ 64 MiB.
func BenchmarkMillion(b *testing.B) {
	// Without the start-up catch-up, which would consolidate the load's
	// dozen past days of 86,400 memories each while the memory is measured.
	b.Setenv("BENCH_DAEMON_ENV", "DORMOUSE_CONSOLIDATE_CATCH_UP=false "+os.Getenv("BENCH_DAEMON_ENV"))
	for b.Loop() {
		data := b.TempDir()
		d := startDaemonB(b, data, "")
		mems := benchdata.Dense(millionMemories, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), benchdata.WithoutSession)
		start := time.Now()
		for i := 0; i < len(mems); i += 500 {
			postDense(b, d.addr, "main", mems[i:min(i+500, len(mems))])
		}
		b.ReportMetric(float64(len(mems))/time.Since(start).Seconds(), "ingest/s")
		stopB(b, d)
		b.ReportMetric(float64(dirSize(b, data))/float64(len(mems)), "bytes/memory")

		n := notifySocket(b)
		var took []time.Duration
		for range 3 {
			var t time.Duration
			t, d = untilReady(b, data, n)
			took = append(took, t)
			stopB(b, d)
		}
		b.ReportMetric(float64(median(took).Microseconds())/1000, "ms-to-ready(median)")

		_, d = untilReady(b, data, n)
		for _, q := range benchdata.DenseQueries(200) {
			postJSON(b, "http://"+d.addr+"/v1/agents/main/recall", map[string]any{"query": q}, http.StatusOK)
		}
		reportMemory(b, d, "")
		time.Sleep(denseRSSIdle) // idle connections closed, memory returned
		reportMemory(b, d, "idle-")
		stopB(b, d)
	}
}

// dirSize is the bytes of the agent files under data.
func dirSize(b *testing.B, data string) int64 {
	b.Helper()
	var n int64
	for _, name := range []string{"main.db", "main.db-wal"} {
		if fi, err := os.Stat(filepath.Join(data, "agents", name)); err == nil {
			n += fi.Size()
		}
	}
	return n
}
