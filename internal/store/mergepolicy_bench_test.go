package store

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/kinds"
)

// BenchmarkMergePolicy weighs an FTS5 merge policy for ingest at scale:
// a fresh agent grown to 300,000 dense memories (DORMOUSE_MERGE_N) 500 a
// transaction, under FTS5's default automerge (4) or automerge 16 with a
// "night" after each 100k that merges both memory indexes ('merge' of
// 500 pages until no work is left, usermerge 4; or 'merge' of -500, which
// merges every level toward one segment), timed apart. It reports
// the ingest per CPU second of the first and the last 100k (without the
// nights), the nights' CPU, and the p50 / p95 of 200 two-word searches
// (SearchMemories as recall calls it, window 400) at the end. The two
// policies alternate: -count N gives N of each in one run.
func BenchmarkMergePolicy(b *testing.B) {
	mems := hashedDense(benchSize("DORMOUSE_MERGE_N", 300_000))
	queries := benchdata.DenseQueries(200)
	for _, p := range []struct {
		name      string
		automerge int // 0: FTS5's default
		pages     int // a night's merge step: 'merge' of this many pages (< 0: of every level)
		usermerge int // the segments a level needs for the night to merge it (0: FTS5's 4)
	}{{"default", 0, 0, 0}, {"automerge16+nightly", 16, 500, 0}, {"automerge16+nightly-all", 16, -500, 0},
		{"automerge16+nightly-usermerge2", 16, 500, 2}} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				mergePolicy(b, mems, queries, p.automerge, p.pages, p.usermerge)
			}
		})
	}
}

func mergePolicy(b *testing.B, mems []Memory, queries []string, automerge, pages, usermerge int) {
	s, err := Open(b.Context(), Options{Dir: b.TempDir(), DedupWindow: 24 * time.Hour, Kinds: kinds.Of})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	a, err := s.Acquire(b.Context(), "main", true)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Release(a)
	if automerge > 0 {
		if err := a.write(b.Context(), func(_ context.Context, c *conn) error {
			for _, t := range []string{"memories_fts", "memory_kinds"} {
				if err := c.exec("INSERT INTO " + t + "(" + t + ", rank) VALUES ('automerge', " + strconv.Itoa(automerge) + ")"); err != nil {
					return err
				}
				if usermerge > 0 {
					if err := c.exec("INSERT INTO " + t + "(" + t + ", rank) VALUES ('usermerge', " + strconv.Itoa(usermerge) + ")"); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	const chunk = 100_000
	var rates []float64
	var nights time.Duration
	cpu := processCPU(b)
	for lo := 0; lo < len(mems); lo += 500 {
		if _, err := a.Insert(b.Context(), mems[lo:min(lo+500, len(mems))]); err != nil {
			b.Fatal(err)
		}
		if end := lo + 500; end%chunk == 0 || end >= len(mems) {
			rates = append(rates, float64(chunk)/(processCPU(b)-cpu).Seconds())
			if automerge > 0 {
				night := processCPU(b)
				if err := mergeIndexes(b.Context(), a, pages); err != nil {
					b.Fatal(err)
				}
				nights += processCPU(b) - night
			}
			cpu = processCPU(b)
		}
	}
	var lat []time.Duration
	for _, q := range queries {
		start := time.Now()
		if _, err := a.SearchMemories(b.Context(), SearchOptions{Terms: strings.Fields(q), Limit: 10, Window: 400}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(rates[0], "first100k/cpu-s")
	b.ReportMetric(rates[len(rates)-1], "last100k/cpu-s")
	b.ReportMetric(rates[len(rates)-1]/rates[0], "last/first")
	b.ReportMetric(nights.Seconds(), "nights-cpu-s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "search-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "search-p95-ms")
}

// mergeIndexes merges both memory indexes' segments, pages a background
// write, until a merge does no work.
func mergeIndexes(ctx context.Context, a *Agent, pages int) error {
	for _, t := range memoryIndexes {
		if err := mergeSteps(ctx, a, t, pages); err != nil {
			return err
		}
	}
	return nil
}
