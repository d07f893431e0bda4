package consolidate

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/capture"
)

// BenchmarkNightlyDay consolidates one day of 1,000, 10,000 and 50,000 memories
// of each text (LoCoMo turns; dense tool logs without a session) with the
// offline consolidator, as the nightly job does: issue 30's target is a
// 10,000-memory day in 60 s. Reported beside the time: µs a memory (flat
// from 1k to 10k when the cost is linear in the day), the peak of the Go
// heap's objects during the run (sampled every 5 ms) and the process's
// peak RSS over the run (VmHWM, reset before it, after the free heap went
// back to the system).
func BenchmarkNightlyDay(b *testing.B) {
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for _, text := range []string{"locomo", "dense"} {
		for _, n := range []int{1000, 10000, 50000} {
			b.Run(fmt.Sprintf("%s/%dk", text, n/1000), func(b *testing.B) {
				ins := dayOf(b, text, n, day)
				st := openStore(b)
				ingest(b, st, "main", ins)
				e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
					Now: func() time.Time { return day.AddDate(0, 0, 1).Add(time.Hour) }}
				debug.FreeOSMemory() // what earlier sizes left resident is not this one's
				resetPeakRSS(b)
				peak := sampleHeap()
				b.ResetTimer()
				for b.Loop() {
					run, err := e.Run(b.Context(), "main", day.Format(time.DateOnly))
					if err != nil {
						b.Fatal(err)
					}
					if run.Memories != n {
						b.Fatalf("consolidated %d memories, want %d", run.Memories, n)
					}
				}
				b.StopTimer()
				heap := peak()
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/day")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/memory")
				b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(peakRSS(b)/(1<<10), "peak-rss-MiB")
			})
		}
	}
}

// dayOf is n memories of text spread evenly over day.
func dayOf(b *testing.B, text string, n int, day time.Time) []capture.Input {
	var mems []benchdata.Memory
	switch text {
	case "dense":
		mems = benchdata.Dense(n, day, benchdata.WithoutSession)
	default:
		set, err := benchdata.Load()
		if errors.Is(err, benchdata.ErrMissing) {
			b.Skip(err)
		}
		if err != nil {
			b.Fatal(err)
		}
		mems = set.Memories(n, day)
	}
	step := 24 * time.Hour / time.Duration(n)
	ins := make([]capture.Input, n)
	for i, m := range mems {
		ts := day.Add(time.Duration(i) * step)
		ins[i] = capture.Input{Content: m.Content, SessionID: m.Session, Role: m.Role, Timestamp: ts.Format(time.RFC3339)}
	}
	return ins
}

// sampleHeap samples the bytes of heap objects until the returned func is
// called, which returns the highest seen.
func sampleHeap() func() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var hi uint64
	stop, done := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			mu.Lock()
			hi = max(hi, s[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return hi
	}
}

// resetPeakRSS sets the process's VmHWM back to its current RSS.
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("peak RSS not reset (%v): peak-rss-MiB includes the load", err)
	}
}

// peakRSS is VmHWM in KiB.
func peakRSS(b *testing.B) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Logf("no /proc/self/status: %v", err)
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb
		}
	}
	return 0
}
