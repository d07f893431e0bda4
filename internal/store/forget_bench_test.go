package store

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkInsertForgotten measures what looking new memories up among
// forgotten content costs a batch insert: "none" on a file where nothing
// was ever forgotten (one probe per write), "some" where something was (a
// normalisation, a SHA-256 and a probe per memory).
func BenchmarkInsertForgotten(b *testing.B) {
	for _, forgotten := range []bool{false, true} {
		name := map[bool]string{false: "none", true: "some"}[forgotten]
		b.Run(name, func(b *testing.B) {
			s, err := Open(b.Context(), withDefaults(Options{Dir: b.TempDir()}))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			a, err := s.Acquire(b.Context(), "main", true)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Release(a)
			if forgotten {
				ins, err := a.Insert(b.Context(), []Memory{mem("The door code is 1234.", "x")})
				if err != nil {
					b.Fatal(err)
				}
				if err := a.Delete(b.Context(), ins[0].ID); err != nil {
					b.Fatal(err)
				}
			}
			const batch = 1000
			filler := strings.Repeat("we talked about the garden and the new fence ", 6)
			n := 0
			for b.Loop() {
				mems := make([]Memory, batch)
				for i := range mems {
					mems[i] = mem(fmt.Sprintf("%d %s", n, filler), "s")
					n++
				}
				if _, err := a.Insert(b.Context(), mems); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/memory")
		})
	}
}
