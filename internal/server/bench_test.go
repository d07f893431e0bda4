package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

var benchEnd = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)

func loadSet(b *testing.B) *benchdata.Set {
	b.Helper()
	set, err := benchdata.Load()
	if err != nil {
		b.Skip(err)
	}
	return set
}

func benchServer(b *testing.B) (*httptest.Server, *store.Store) {
	b.Helper()
	// The daemon's group-commit window, so concurrent singles share commits as they do there.
	window := time.Duration(config.Default().Storage.GroupCommitWindow)
	return serveStore(b, store.Options{Dir: b.TempDir(), DedupWindow: 24 * time.Hour, Kinds: kinds.Of, GroupCommitWindow: window})
}

// serveStore serves a store opened with o until the benchmark ends.
func serveStore(b *testing.B, o store.Options) (*httptest.Server, *store.Store) {
	b.Helper()
	st, err := store.Open(b.Context(), o)
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(New(st, &recall.Engine{}, Options{AutoCreate: true}))
	b.Cleanup(func() {
		ts.Close()
		st.Close()
	})
	return ts, st
}

func inputs(mems []benchdata.Memory) []capture.Input {
	out := make([]capture.Input, len(mems))
	for i, m := range mems {
		out[i] = capture.Input{Content: m.Content, SessionID: m.Session, Role: m.Role, Timestamp: m.Timestamp.Format(time.RFC3339)}
	}
	return out
}

// BenchmarkIngestVsRaw measures, in one run, batch ingest through HTTP (JSON,
// validation, offline extraction, dedup check, group commit, FTS5) against
// inserting the same prepared rows with FTS5 in one transaction straight
// into the store. Targets: ≥ 7,000 memories/s through HTTP and ≥ 70% of raw.
func BenchmarkIngestVsRaw(b *testing.B) {
	set := loadSet(b)
	const n, batch = 20_000, 1000
	mems := set.Memories(n, benchEnd)
	ins := inputs(mems)
	bodies := make([][]byte, 0, n/batch)
	for i := 0; i < n; i += batch {
		body, err := json.Marshal(map[string]any{"memories": ins[i : i+batch]})
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
	}
	valid, err := capture.Validate(ins, capture.Limits{MaxContent: 64 << 10}, benchEnd)
	if err != nil {
		b.Fatal(err)
	}
	prepared := valid.Memories()
	var httpTime, rawTime time.Duration
	for b.Loop() {
		b.StopTimer()
		ts, st := benchServer(b)
		b.StartTimer()
		start := time.Now()
		for _, body := range bodies {
			resp, err := http.Post(ts.URL+"/v1/agents/main/memories", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
		httpTime += time.Since(start)

		start = time.Now()
		rawStore, err := store.Open(b.Context(), store.Options{Dir: b.TempDir(), Kinds: kinds.Of})
		if err != nil {
			b.Fatal(err)
		}
		err = rawStore.With(b.Context(), "main", true, func(a *store.Agent) error {
			_, err := a.Insert(b.Context(), prepared)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		rawTime += time.Since(start)
		b.StopTimer()
		rawStore.Close()
		ts.Close()
		st.Close()
		b.StartTimer()
	}
	httpRate := float64(n*b.N) / httpTime.Seconds()
	rawRate := float64(n*b.N) / rawTime.Seconds()
	b.ReportMetric(httpRate, "http-mem/s")
	b.ReportMetric(rawRate, "raw-mem/s")
	b.ReportMetric(httpRate/rawRate, "http/raw")
}

// BenchmarkConcurrentSingles has 8 clients POST single memories at once:
// group commit turns them into shared transactions. Target ≥ 5,000/s. The
// texts: LoCoMo turns and dense tool logs (benchdata.Dense), each with its
// session ids and without (a tool log's: every memory of the day in one
// session); -cpuprofile of one of them is the single-POST profile.
func BenchmarkConcurrentSingles(b *testing.B) {
	const clients, each = 8, 1000
	texts := []struct {
		name string
		mems func() []benchdata.Memory
	}{
		{"locomo", func() []benchdata.Memory { return loadSet(b).Memories(clients*each, benchEnd) }},
		{"locomo-nosession", func() []benchdata.Memory { return withoutSessions(loadSet(b).Memories(clients*each, benchEnd)) }},
		{"dense", func() []benchdata.Memory { return benchdata.Dense(clients*each, benchEnd, benchdata.WithSession) }},
		{"dense-nosession", func() []benchdata.Memory { return benchdata.Dense(clients*each, benchEnd, benchdata.WithoutSession) }},
	}
	for _, text := range texts {
		b.Run(text.name, func(b *testing.B) {
			mems := text.mems()
			var total, cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				d := openDormouse(b)
				b.StartTimer()
				start, cpuStart := time.Now(), cpuTime(b)
				singlesRate(b, d, mems, clients)
				total += time.Since(start)
				cpu += cpuTime(b) - cpuStart
			}
			b.ReportMetric(float64(len(mems)*b.N)/total.Seconds(), "mem/s")
			// CPU a memory (server and clients, one process) says more than
			// the rate on a machine other jobs share.
			b.ReportMetric(float64(cpu.Microseconds())/float64(len(mems)*b.N), "cpu-µs/mem")
		})
	}
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func withoutSessions(mems []benchdata.Memory) []benchdata.Memory {
	for i := range mems {
		mems[i].Session = ""
	}
	return mems
}

// BenchmarkRecall100k recalls with 1–3 word queries (the content words of
// LoCoMo's questions) from one agent holding 100,000 memories and a profile
// of 66 lines, through the recall engine and store as the daemon runs them
// (no HTTP). Targets: p50 ≤ 5 ms, p95 ≤ 25 ms.
func BenchmarkRecall100k(b *testing.B) {
	a, queries := recallAgent100k(b)
	recallLatency(b, &recall.Engine{Now: func() time.Time { return benchEnd }}, a, queries)
}

// BenchmarkRecall100kProfileOff is BenchmarkRecall100k with
// recall.profile_tokens 0: what the profile stage costs.
func BenchmarkRecall100kProfileOff(b *testing.B) {
	a, queries := recallAgent100k(b)
	eng := &recall.Engine{Now: func() time.Time { return benchEnd }, Tuning: recall.DefaultTuning}
	eng.Tuning.ProfileTokens = 0
	recallLatency(b, eng, a, queries)
}

// BenchmarkRecall100kQuestions is BenchmarkRecall100k asked with the
// questions whole, as an agent sends them: their names, "my" and roles
// take the person stages (whom a question asks about, the names joined to
// them) that the lowercased words never reach.
func BenchmarkRecall100kQuestions(b *testing.B) {
	set := loadSet(b)
	a := recallAgent(b, set.Memories(100_000, benchEnd))
	if _, _, err := a.PutProfileLines(b.Context(), benchProfile(), benchEnd); err != nil {
		b.Fatal(err)
	}
	recallLatency(b, &recall.Engine{Now: func() time.Time { return benchEnd }}, a, set.Questions)
}

// recallAgent100k is an agent holding 100,000 memories of the bench set
// and a profile, and the queries to ask it.
func recallAgent100k(b *testing.B) (*store.Agent, []string) {
	set := loadSet(b)
	a := recallAgent(b, set.Memories(100_000, benchEnd))
	if _, _, err := a.PutProfileLines(b.Context(), benchProfile(), benchEnd); err != nil {
		b.Fatal(err)
	}
	return a, recallQueries(set, len(set.Questions))
}

// recallQueries are at most n of the set's questions cut to their first 1, 2
// or 3 content words in turn.
func recallQueries(set *benchdata.Set, n int) []string {
	var queries []string
	for i, q := range set.Questions {
		terms := text.Terms(q)
		if len(terms) == 0 {
			continue
		}
		if len(queries) == n {
			break
		}
		k := 1 + i%3 // 1, 2 and 3 words in turn
		queries = append(queries, strings.Join(terms[:min(k, len(terms))], " "))
	}
	return queries
}

// BenchmarkRecallDense20k recalls with DenseVsPeer's two-word queries from
// one agent holding its 20,000 dense memories without session id, through
// the recall engine and store (no HTTP): DenseVsPeer's recall figures
// alone, for profiling. Target: p95 ≤ 15 ms.
func BenchmarkRecallDense20k(b *testing.B) {
	a := recallAgent(b, benchdata.Dense(20_000, benchEnd, benchdata.WithoutSession))
	recallLatency(b, &recall.Engine{Now: func() time.Time { return benchEnd }}, a, benchdata.DenseQueries(200))
}

// recallAgent is an agent holding mems, captured in batches of 5,000, its
// memory indexes then merged as the nightly cycle leaves them (the days
// before benchEnd are past, so an appliance would have run its nights).
func recallAgent(b *testing.B, mems []benchdata.Memory) *store.Agent {
	_, a := benchAgent(b, b.TempDir())
	for i := 0; i < len(mems); i += 5000 {
		if _, err := capture.Ingest(b.Context(), a, inputs(mems[i:min(i+5000, len(mems))]), capture.Limits{MaxContent: 64 << 10}, benchEnd); err != nil {
			b.Fatal(err)
		}
	}
	if _, _, err := a.MergeIndexes(b.Context()); err != nil {
		b.Fatal(err)
	}
	return a
}

// benchProfile is a full profile: six lines in each of the eleven
// categories, larger than most people's.
func benchProfile() []store.ProfileLine {
	var out []store.ProfileLine
	for i, c := range claim.Categories {
		cat := c.Name
		for j := range 6 {
			v := fmt.Sprintf("%s value %d", cat, j)
			out = append(out, store.ProfileLine{Category: cat, Subject: "user", Key: cat, Value: v,
				Text: fmt.Sprintf("The user's %s: %s, said on day %d.", cat, v, i*6+j), SourceMemoryIDs: []int64{int64(1 + i*6 + j)},
				ValidFrom: benchEnd.Add(-time.Hour)})
		}
	}
	return out
}

// recallLatency asks the queries in turn and reports the percentiles.
func recallLatency(b *testing.B, eng *recall.Engine, a *store.Agent, queries []string) {
	var lat []time.Duration
	i := 0
	cpuStart := cpuTime(b)
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		start := time.Now()
		if _, err := eng.Recall(b.Context(), a, recall.Query{Text: q}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	// CPU a query (the whole process) holds still where other jobs share
	// the machine; wall latencies do not.
	b.ReportMetric(float64((cpuTime(b)-cpuStart).Microseconds())/1000/float64(len(lat)), "cpu-ms/q")
	slices.Sort(lat)
	b.ReportMetric(quantileMS(lat, 0.50), "p50-ms")
	b.ReportMetric(quantileMS(lat, 0.95), "p95-ms")
	b.ReportMetric(quantileMS(lat, 0.99), "p99-ms")
}

// quantileMS is the p quantile of sorted latencies, in ms.
func quantileMS(sorted []time.Duration, p float64) float64 {
	return float64(sorted[min(len(sorted)-1, int(p*float64(len(sorted))))].Microseconds()) / 1000
}
