package replicate

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkCaptureReplication posts single memories, one client, to the
// real daemon without replication and with a file:// replica, alternated
// three times, and reports each setting's p50 and p95 (the median of its rounds)
// and their ratio. Issue 28's target: p95 on ≤ 1.2× off.
func BenchmarkCaptureReplication(b *testing.B) {
	needBinaries(b)
	for b.Loop() {
		lat := map[string][][]time.Duration{}
		for round := range 3 {
			for _, mode := range []string{"off", "on"} {
				env := testEnv()
				if mode == "on" {
					env = testEnv("DORMOUSE_REPLICATION_URL=file://" + b.TempDir())
				}
				lat[mode] = append(lat[mode], postSingles(b, serve(b, b.TempDir(), env), 300, round))
			}
		}
		for _, q := range []struct {
			p    float64
			name string
		}{{0.50, "p50"}, {0.95, "p95"}} {
			off, on := medianQuantile(lat["off"], q.p), medianQuantile(lat["on"], q.p)
			b.ReportMetric(off, q.name+"-off-ms")
			b.ReportMetric(on, q.name+"-on-ms")
			b.ReportMetric(on/off, q.name+"-on/off")
		}
	}
}

// postSingles posts n memories one at a time to p's agent main and returns
// their latencies, after a warm-up memory that creates the agent.
func postSingles(b *testing.B, p *serveProc, n, round int) []time.Duration {
	post := func(content string) time.Duration {
		start := time.Now()
		resp, err := http.Post("http://"+p.addr+"/v1/agents/main/memories", "application/json",
			strings.NewReader(fmt.Sprintf(`{"content":%q}`, content)))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("POST: %s", resp.Status)
		}
		return time.Since(start)
	}
	post("the first memory creates the agent")
	time.Sleep(2 * time.Second) // Litestream picks the new agent up
	lat := make([]time.Duration, n)
	for i := range lat {
		lat[i] = post(fmt.Sprintf("round %d memory %d: the heating comes on at six", round, i))
	}
	return lat
}

// medianQuantile is the median over rounds of each round's p quantile, in ms.
func medianQuantile(rounds [][]time.Duration, p float64) float64 {
	var qs []float64
	for _, r := range rounds {
		s := slices.Sorted(slices.Values(r))
		qs = append(qs, float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds())/1000)
	}
	slices.Sort(qs)
	return qs[len(qs)/2]
}
