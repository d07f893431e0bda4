package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// BenchmarkFirstAfterIdleClose is what storage.conn_idle_close costs the
// request that comes after the agent stood idle: a recall (2-word dense
// query) or a single POST on 2,000 dense memories, with the connections
// kept open (warm) and after they were closed (reopened: the request opens
// a connection and prepares its statements again). It reports the
// request's wall time and the process's CPU a request.
func BenchmarkFirstAfterIdleClose(b *testing.B) {
	mems := benchdata.Dense(2_000, benchEnd, benchdata.WithoutSession)
	queries := benchdata.DenseQueries(50)
	for _, op := range []string{"recall", "single"} {
		for _, closed := range []bool{false, true} {
			name := map[bool]string{false: "warm", true: "reopened"}[closed]
			b.Run(op+"/"+name, func(b *testing.B) {
				url := idleServer(b, closed) + "/v1/agents/main/"
				for i := 0; i < len(mems); i += 500 {
					if err := postJSON(url+"memories", map[string]any{"memories": inputs(mems[i : i+500])}, 201); err != nil {
						b.Fatal(err)
					}
				}
				i := 0
				var cpu time.Duration
				for b.Loop() {
					b.StopTimer()
					time.Sleep(600 * time.Millisecond) // past the idle close and the next tick when closed
					before := cpuTime(b)
					b.StartTimer()
					var err error
					if op == "recall" {
						err = postJSON(url+"recall", map[string]any{"query": queries[i%len(queries)]}, 200)
					} else {
						m := mems[i%len(mems)]
						m.Content = fmt.Sprintf("%s (again %d)", m.Content, i)
						err = postJSON(url+"memories", inputs([]benchdata.Memory{m})[0], 201)
					}
					b.StopTimer()
					cpu += cpuTime(b) - before
					b.StartTimer()
					if err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// idleServer serves a store whose connections close after 250ms unused
// (closed: longer than a request takes, so that they close between requests)
// or after the default.
func idleServer(b *testing.B, closed bool) string {
	o := store.Options{Dir: b.TempDir(), DedupWindow: 24 * time.Hour, Kinds: kinds.Of}
	if closed {
		o.ConnIdleClose = 250 * time.Millisecond
	}
	ts, _ := serveStore(b, o)
	return ts.URL
}
