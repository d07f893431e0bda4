package store

import (
	"crypto/sha256"
	"encoding/hex"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/kinds"
)

// BenchmarkDenseBatchInsert is the store's share of DenseBatchBeside: 20,000
// dense memories without session id, content hashes as capture makes them,
// stored 500 a transaction into a fresh agent with the kinds index, and
// the CPU microseconds a memory this process spent on it (the writer and
// the rows stage beside it), for weighing the schema's and FTS5's costs
// without HTTP and extraction.
func BenchmarkDenseBatchInsert(b *testing.B) {
	mems := denseMemories(20_000, benchdata.WithoutSession)
	for i := range mems {
		h := sha256.Sum256([]byte(mems[i].Content))
		mems[i].ContentHash = hex.EncodeToString(h[:])
	}
	var spent time.Duration
	for b.Loop() {
		s, err := Open(b.Context(), Options{Dir: b.TempDir(), DedupWindow: 24 * time.Hour, Kinds: kinds.Of})
		if err != nil {
			b.Fatal(err)
		}
		a, err := s.Acquire(b.Context(), "main", true)
		if err != nil {
			b.Fatal(err)
		}
		start := processCPU(b)
		for lo := 0; lo < len(mems); lo += 500 {
			if _, err := a.Insert(b.Context(), mems[lo:lo+500]); err != nil {
				b.Fatal(err)
			}
		}
		spent += processCPU(b) - start
		s.Release(a)
		s.Close()
	}
	b.ReportMetric(float64(spent.Microseconds())/float64(b.N*len(mems)), "cpu-µs/mem")
}

// processCPU is this process's user and system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
