package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// The benchmarks in this file print every Dormouse figure beside the same
// work done, in the same run, by a raw ncruces SQLite+FTS5 file
// (benchdata.Raw) and, on dense text, by the naive Python peer
// (benchdata/peer): the ratios are what the README quotes. `make bench` runs
// them once each (-benchtime=1x); BENCH= picks a subset.

// target is one system under benchmark, opened fresh and empty.
type target struct {
	single func(m benchdata.Memory) error
	batch  func(ms []benchdata.Memory) error
	recall func(q string) error
	// remote: the work is done by another process (the peer), whose CPU
	// this one cannot count; only its wall rates are reported.
	remote bool
}

// benchClient keeps eight connections per host alive, one per client.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}

// postJSON posts v and fails on any status but want.
func postJSON(url string, v any, want int) error { return postWith(benchClient, url, v, want) }

// postWith is postJSON through cl.
func postWith(cl *http.Client, url string, v any, want int) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	resp, err := cl.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body) // read to the end, so the connection is reused
	if resp.StatusCode != want {
		return fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, msg)
	}
	return nil
}

func openDormouse(b *testing.B) target {
	ts, _ := benchServer(b)
	url := ts.URL + "/v1/agents/main/"
	return target{
		single: func(m benchdata.Memory) error { return postJSON(url+"memories", inputs([]benchdata.Memory{m})[0], 201) },
		batch: func(ms []benchdata.Memory) error {
			return postJSON(url+"memories", map[string]any{"memories": inputs(ms)}, 201)
		},
		recall: func(q string) error { return postJSON(url+"recall", map[string]any{"query": q}, 200) },
	}
}

func openRaw(b *testing.B) target {
	r, err := benchdata.OpenRaw(filepath.Join(b.TempDir(), "raw.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return target{
		single: func(m benchdata.Memory) error { return r.Insert([]benchdata.Memory{m}) },
		batch:  r.Insert,
		recall: func(q string) error { _, err := r.Search(q, 10); return err },
	}
}

// openPeer starts the Python peer; recall is its "context" call (the rows
// matching, joined into one string), the article's way of reading memory.
func openPeer(b *testing.B) target {
	p, err := benchdata.StartPeer(filepath.Join(b.TempDir(), "peer.db"))
	if errors.Is(err, benchdata.ErrNoPython) {
		b.Skip(err) // CI's machine need not have python3
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	url := "http://" + p.Addr + "/"
	type in struct {
		Content   string `json:"content"`
		SessionID string `json:"session_id"`
	}
	ins := func(ms []benchdata.Memory) []in {
		out := make([]in, len(ms))
		for i, m := range ms {
			out[i] = in{m.Content, m.Session}
		}
		return out
	}
	return target{
		single: func(m benchdata.Memory) error { return postJSON(url+"memories", ins([]benchdata.Memory{m})[0], 201) },
		batch: func(ms []benchdata.Memory) error {
			return postJSON(url+"memories", map[string]any{"memories": ins(ms)}, 201)
		},
		recall: func(q string) error { return postJSON(url+"context", map[string]any{"query": q}, 200) },
		remote: true,
	}
}

// rate is memories a second of wall time and of this process's CPU time
// (server and clients together, or the raw file's): on a machine other
// jobs share, the CPU rate is the one that holds still between runs.
type rate struct{ wall, cpu float64 }

// timed runs fn on n memories and returns its rate.
func timed(b *testing.B, t target, n int, fn func()) rate {
	start, cpuStart := time.Now(), cpuTime(b)
	fn()
	r := rate{wall: float64(n) / time.Since(start).Seconds()}
	if !t.remote {
		r.cpu = float64(n) / (cpuTime(b) - cpuStart).Seconds()
	}
	return r
}

// report reports r as name-mem/s and name-mem/cpu-s, and, when base is
// given, the ratios of both to base's (of the wall rates only, for a
// remote base).
func (r rate) report(b *testing.B, name string, base *rate, baseName string) {
	b.ReportMetric(r.wall, name+"-mem/s")
	if r.cpu > 0 {
		b.ReportMetric(r.cpu, name+"-mem/cpu-s")
	}
	if base == nil {
		return
	}
	b.ReportMetric(r.wall/base.wall, name+"/"+baseName)
	if base.cpu > 0 {
		b.ReportMetric(r.cpu/base.cpu, name+"/"+baseName+"-cpu")
	}
}

// singlesRate posts mems one a request from clients at once (client c
// sends every clients-th memory).
func singlesRate(b *testing.B, t target, mems []benchdata.Memory, clients int) rate {
	return timed(b, t, len(mems), func() {
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				for i := c; i < len(mems); i += clients {
					if err := t.single(mems[i]); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	})
}

// batchRate posts mems size a request.
func batchRate(b *testing.B, t target, mems []benchdata.Memory, size int) rate {
	return timed(b, t, len(mems), func() {
		for i := 0; i < len(mems); i += size {
			if err := t.batch(mems[i:min(i+size, len(mems))]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// warmQueries is how many queries each target is asked, untimed, before
// the timed pass: the first ones after a start pay once what no later query
// pays (Dormouse opens its read connection, prepares its statements, reads
// its word lists; 56 ms for the first dense query against a p50 of 15), and
// among 200 queries three or four such would be a third of the ten slowest
// that the p95 reads. What a start costs is the first figure.
const warmQueries = 10

// latencies asks the first warmQueries untimed, timing the first, then runs
// each query once and returns the first's time and the p50 and p95 in ms.
func latencies(b *testing.B, t target, queries []string) (first, p50, p95 float64) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for i, q := range queries[:min(warmQueries, len(queries))] {
		start := time.Now()
		if err := t.recall(q); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			first = ms(time.Since(start))
		}
	}
	lat := make([]time.Duration, len(queries))
	for i, q := range queries {
		start := time.Now()
		if err := t.recall(q); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(start)
	}
	slices.Sort(lat)
	return first, quantileMS(lat, 0.50), quantileMS(lat, 0.95)
}

// reportRecall reports the p50 and p95 of Dormouse's recall and of base's
// on the same queries, each after the same warm-up, how many times base's
// p50 is Dormouse's, and the first query of each.
func reportRecall(b *testing.B, queries []string, d, base target, baseName string) {
	first, p50, p95 := latencies(b, d, queries)
	baseFirst, baseP50, baseP95 := latencies(b, base, queries)
	b.ReportMetric(first, "recall-first-ms")
	b.ReportMetric(p50, "recall-p50-ms")
	b.ReportMetric(p95, "recall-p95-ms")
	b.ReportMetric(baseFirst, baseName+"-first-ms")
	b.ReportMetric(baseP50, baseName+"-p50-ms")
	b.ReportMetric(baseP95, baseName+"-p95-ms")
	b.ReportMetric(baseP50/p50, baseName+"-p50/recall-p50")
}

// corpus is one text of the benchmarks: n memories and queries on them.
type corpus struct {
	name     string
	memories func(b *testing.B, n int) []benchdata.Memory
	queries  func(b *testing.B) []string
}

var corpora = []corpus{
	{"dense", func(_ *testing.B, n int) []benchdata.Memory {
		return benchdata.Dense(n, benchEnd, benchdata.WithoutSession)
	}, func(*testing.B) []string { return benchdata.DenseQueries(200) }},
	{"locomo", func(b *testing.B, n int) []benchdata.Memory { return loadSet(b).Memories(n, benchEnd) }, locomoQueries},
}

// locomoQueries are the first two content words of LoCoMo's questions.
func locomoQueries(b *testing.B) []string {
	var out []string
	for _, q := range loadSet(b).Questions {
		if terms := text.Terms(q); len(terms) > 0 {
			out = append(out, strings.Join(terms[:min(2, len(terms))], " "))
		}
		if len(out) == 200 {
			break
		}
	}
	return out
}

var besideSizes = []int{1_000, 10_000, 100_000}

// eachCorpusAndSize runs fn as a sub-benchmark per text and size
// ("dense/10k"), on that many memories.
func eachCorpusAndSize(b *testing.B, fn func(b *testing.B, c corpus, mems []benchdata.Memory)) {
	for _, c := range corpora {
		for _, n := range besideSizes {
			b.Run(fmt.Sprintf("%s/%dk", c.name, n/1000), func(b *testing.B) {
				fn(b, c, c.memories(b, n))
			})
		}
	}
}

// BenchmarkIngestBeside: single-memory POSTs from 8 clients and batch POSTs
// of 500, each beside the raw SQLite+FTS5 file doing the same commits
// (target on dense text: batch ≥ 60% of raw).
func BenchmarkIngestBeside(b *testing.B) {
	eachCorpusAndSize(b, func(b *testing.B, _ corpus, mems []benchdata.Memory) {
		for b.Loop() {
			rawSingle, rawBatch := singlesRate(b, openRaw(b), mems, 8), batchRate(b, openRaw(b), mems, 500)
			singlesRate(b, openDormouse(b), mems, 8).report(b, "single8", &rawSingle, "raw")
			batchRate(b, openDormouse(b), mems, 500).report(b, "batch", &rawBatch, "raw")
			rawSingle.report(b, "raw-single8", nil, "")
			rawBatch.report(b, "raw-batch", nil, "")
		}
	})
}

// BenchmarkRecallBeside: recall over HTTP with two-word queries, beside
// the raw file's FTS5 MATCH of the same words (bm25, 10 rows).
func BenchmarkRecallBeside(b *testing.B) {
	eachCorpusAndSize(b, func(b *testing.B, c corpus, mems []benchdata.Memory) {
		queries := c.queries(b)
		d, raw := openDormouse(b), openRaw(b)
		batchRate(b, d, mems, 500)
		batchRate(b, raw, mems, 500)
		for b.Loop() {
			reportRecall(b, queries, d, raw, "raw")
		}
	})
}

// BenchmarkDenseVsPeer races the naive Python peer on 20,000 dense memories
// sent without a session id, with the raw file beside both. Targets: single
// POSTs from 8 clients ≥ 2× the peer; batch ≥ 60% of raw; recall p50 ≤ the
// peer's context p50 / 3, p95 ≤ 15 ms.
func BenchmarkDenseVsPeer(b *testing.B) {
	mems := benchdata.Dense(20_000, benchEnd, benchdata.WithoutSession)
	queries := benchdata.DenseQueries(200)
	openPeer(b) // skips here, before any work, when there is no python3
	for b.Loop() {
		peerSingle, peerOne := singlesRate(b, openPeer(b), mems, 8), singlesRate(b, openPeer(b), mems[:2000], 1)
		singlesRate(b, openDormouse(b), mems, 8).report(b, "single8", &peerSingle, "peer")
		singlesRate(b, openDormouse(b), mems[:2000], 1).report(b, "single1", &peerOne, "peer")
		peerSingle.report(b, "peer-single8", nil, "")
		peerOne.report(b, "peer-single1", nil, "")

		d, peer, raw := openDormouse(b), openPeer(b), openRaw(b)
		rawBatch := batchRate(b, raw, mems, 500)
		batchRate(b, d, mems, 500).report(b, "batch", &rawBatch, "raw")
		batchRate(b, peer, mems, 500).report(b, "peer-batch", nil, "")
		rawBatch.report(b, "raw-batch", nil, "")

		reportRecall(b, queries, d, peer, "peer-context")
	}
}

// BenchmarkDenseRecallVsPeer is DenseVsPeer's recall figure alone: 20,000
// dense memories without session id posted in batches of 500 to Dormouse
// and to the peer, then the same 200 queries of each, for profiling the
// recall path over HTTP and for its tail without the minutes of singles.
func BenchmarkDenseRecallVsPeer(b *testing.B) {
	mems := benchdata.Dense(20_000, benchEnd, benchdata.WithoutSession)
	queries := benchdata.DenseQueries(200)
	openPeer(b) // skips here, before any work, when there is no python3
	for b.Loop() {
		d, peer := openDormouse(b), openPeer(b)
		batchRate(b, d, mems, 500)
		batchRate(b, peer, mems, 500)
		reportRecall(b, queries, d, peer, "peer-context")
	}
}

// BenchmarkDenseBatchBeside is DenseVsPeer's batch figure alone (20,000
// dense memories without session id, POSTs of 500, beside raw doing the
// same transactions), for profiling the batch path with -cpuprofile.
func BenchmarkDenseBatchBeside(b *testing.B) {
	mems := benchdata.Dense(20_000, benchEnd, benchdata.WithoutSession)
	for b.Loop() {
		rawBatch := batchRate(b, openRaw(b), mems, 500)
		batchRate(b, openDormouse(b), mems, 500).report(b, "batch", &rawBatch, "raw")
		rawBatch.report(b, "raw-batch", nil, "")
	}
}
