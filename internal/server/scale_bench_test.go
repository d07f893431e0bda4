package server

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// scaleSizes are the sizes BenchmarkScale measures recall at, in one agent
// grown from empty; DORMOUSE_SCALE_MAX stops it at that size (a quick run).
var scaleSizes = []int{10_000, 100_000, 1_000_000}

// BenchmarkScale grows one agent to a million memories of each text (the
// dense tool log and, when its data is here, LoCoMo's turns) in batches of
// 500 through capture, as the daemon stores them, and at 10k, 100k and 1M
// recalls 200 questions: p50 / p95 / p99 and CPU a question at each size,
// the ingest rate of the first and the last 100k (per wall and per CPU
// second of the process, the figure a shared machine moves less), and
// bytes a memory. Issue 30's targets:
// p95 at 1M ≤ 3× p95 at 100k, p50 at 1M ≤ 10 ms, the last 100k ingested at
// ≥ 0.7× the first. DORMOUSE_SCALE_PROFILE=DIR writes a CPU profile of
// each size's recalls there.
func BenchmarkScale(b *testing.B) {
	b.Run("dense", func(b *testing.B) {
		scale(b, func(n int) []benchdata.Memory { return benchdata.Dense(n, benchEnd, benchdata.WithoutSession) },
			benchdata.DenseQueries(200))
	})
	b.Run("locomo", func(b *testing.B) {
		set := loadSet(b)
		scale(b, func(n int) []benchdata.Memory { return withoutSessions(set.Memories(n, benchEnd)) },
			recallQueries(set, 200))
	})
}

// sizesToRun is scaleSizes up to DORMOUSE_SCALE_MAX, and that size too.
func sizesToRun() []int {
	m, err := strconv.Atoi(os.Getenv("DORMOUSE_SCALE_MAX"))
	if err != nil || m <= 0 {
		return scaleSizes
	}
	sizes := slices.DeleteFunc(slices.Clone(scaleSizes), func(n int) bool { return n >= m })
	return append(sizes, m)
}

func scale(b *testing.B, memories func(n int) []benchdata.Memory, queries []string) {
	sizes := sizesToRun()
	mems := memories(sizes[len(sizes)-1])
	for b.Loop() {
		dir := b.TempDir()
		_, a := benchAgent(b, dir)
		eng := &recall.Engine{Now: func() time.Time { return benchEnd }}
		stored := 0
		var spans []ingestSpan // of each 100k, split where recall was measured
		for _, n := range sizes {
			spans = append(spans, growTo(b, a, mems, &stored, n)...)
			cpu := cpuTime(b)
			lat := timeRecalls(b, eng, a, queries, fmt.Sprintf("%s-%s", b.Name(), count(n)))
			b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/1000/float64(len(lat)), "cpu-ms/q-"+count(n))
			slices.Sort(lat)
			for _, q := range []struct {
				p    float64
				name string
			}{{0.50, "p50"}, {0.95, "p95"}, {0.99, "p99"}} {
				b.ReportMetric(quantileMS(lat, q.p), q.name+"-"+count(n)+"-ms")
			}
		}
		rates := per100k(spans)
		first, last := rates[0], rates[len(rates)-1]
		if spans[0].n < 100_000 { // the first 10k alone, as the figures before 2026-12-04 called the first 100k
			b.ReportMetric(spans[0].rate().cpu, "ingest-first10k/cpu-s")
		}
		b.ReportMetric(first.wall, "ingest-first100k/s")
		b.ReportMetric(last.wall, "ingest-last100k/s")
		b.ReportMetric(first.cpu, "ingest-first100k/cpu-s")
		b.ReportMetric(last.cpu, "ingest-last100k/cpu-s")
		b.ReportMetric(last.cpu/first.cpu, "ingest-last/first-cpu")
		b.ReportMetric(float64(dirBytes(b, filepath.Join(dir, "agents")))/float64(stored), "bytes/memory")
	}
}

// benchAgent is an empty agent in dir, opened as the daemon opens it (with
// capture.dedup_window's default, so every memory is probed for a duplicate),
// and its store.
func benchAgent(b *testing.B, dir string) (*store.Store, *store.Agent) {
	st, err := store.Open(b.Context(), store.Options{Dir: dir, Kinds: kinds.Of,
		DedupWindow: time.Duration(config.Default().Capture.DedupWindow)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	a, err := st.Acquire(b.Context(), "main", true)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Release(a) })
	return st, a
}

// ingestRate is memories stored per second of wall time and per second of
// the process's CPU (which other work on the machine moves less).
type ingestRate struct{ wall, cpu float64 }

// ingestSpan is n memories stored in wall and cpu time.
type ingestSpan struct {
	n         int
	wall, cpu time.Duration
}

func (s ingestSpan) rate() ingestRate {
	return ingestRate{wall: float64(s.n) / s.wall.Seconds(), cpu: float64(s.n) / s.cpu.Seconds()}
}

// per100k joins consecutive spans into the rates of each whole 100k stored
// (the first 100k is grown in two spans, 10k and 90k, with recall measured
// between them), and of what is left after the last whole 100k.
func per100k(spans []ingestSpan) []ingestRate {
	var out []ingestRate
	var cur ingestSpan
	stored := 0
	for _, s := range spans {
		cur.n, cur.wall, cur.cpu = cur.n+s.n, cur.wall+s.wall, cur.cpu+s.cpu
		if stored += s.n; stored%100_000 == 0 {
			out, cur = append(out, cur.rate()), ingestSpan{}
		}
	}
	if cur.n > 0 {
		out = append(out, cur.rate())
	}
	return out
}

// growTo stores mems[*stored:n] in batches of 500 and returns the time of
// each 100k it stored (or of all of them, when fewer).
func growTo(b *testing.B, a *store.Agent, mems []benchdata.Memory, stored *int, n int) []ingestSpan {
	const batch, chunk = 500, 100_000
	var spans []ingestSpan
	start, cpu, from := time.Now(), cpuTime(b), *stored
	stop := profileIngest(b, *stored/chunk)
	defer func() { stop() }()
	for ; *stored < n; *stored += batch {
		end := min(*stored+batch, n)
		if _, err := capture.Ingest(b.Context(), a, inputs(mems[*stored:end]), capture.Limits{MaxContent: 64 << 10}, benchEnd); err != nil {
			b.Fatal(err)
		}
		if end%chunk == 0 || end == n {
			spans = append(spans, ingestSpan{n: end - from, wall: time.Since(start), cpu: cpuTime(b) - cpu})
			start, cpu, from = time.Now(), cpuTime(b), end
			stop()
			stop = profileIngest(b, end/chunk)
		}
	}
	return spans
}

// profileIngest starts a CPU profile of the ingest of the 100k numbered
// chunk (0 the first) when DORMOUSE_SCALE_INGEST_PROFILE is a directory, and
// returns what stops it.
func profileIngest(b *testing.B, chunk int) (stop func()) {
	dir := os.Getenv("DORMOUSE_SCALE_INGEST_PROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-ingest-%d.pprof", filepath.Base(b.Name()), chunk)))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// timeRecalls asks each query once and returns the latencies, under a CPU
// profile named name when DORMOUSE_SCALE_PROFILE is a directory.
func timeRecalls(b *testing.B, eng *recall.Engine, a *store.Agent, queries []string, name string) []time.Duration {
	if dir := os.Getenv("DORMOUSE_SCALE_PROFILE"); dir != "" {
		f, err := os.Create(filepath.Join(dir, filepath.Base(name)+".pprof"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	lat := make([]time.Duration, 0, len(queries))
	for _, q := range queries {
		start := time.Now()
		if _, err := eng.Recall(b.Context(), a, recall.Query{Text: q}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat
}

// count names a size as the figures do: 10k, 100k, 1M.
func count(n int) string {
	if n >= 1_000_000 && n%1_000_000 == 0 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprintf("%dk", n/1000)
}

// dirBytes is the size of the files in dir.
func dirBytes(b *testing.B, dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}
