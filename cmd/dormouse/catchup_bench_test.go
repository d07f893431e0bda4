package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
)

// catchUpDays and perDay size the backlog a daemon finds at start-up after
// the box was off: 40 days of a busy agent.
const catchUpDays, perDay = 40, 250

// catchUpSettings turn the backlog trigger off: the catch-up gives way to
// capture, and beside POSTs that never pause it lasts minutes, long enough
// for the trigger to rebuild today (a hundred thousand POSTs) after it, in
// the idle phase. Main's catch-up, over within its first minute, never met
// it.
var catchUpSettings = []string{"DORMOUSE_CONSOLIDATE_BACKLOG_THRESHOLD=0"}

// afterPosts bounds the POSTs to the same daemon once it has caught up
// (at most as many as during the catch-up): a few thousand tell its p95.
const afterPosts = 5000

// BenchmarkSinglePostDuringCatchUp measures single-memory POSTs (one client)
// while the daemon consolidates a backlog of past days at start-up, beside
// two idle baselines. Target: the p95 during the catch-up within 2x the idle
// p95.
//   - p95-ratio: against the same daemon once it has caught up (idle-p95-ms,
//     up to afterPosts POSTs onto the file the busy phase grew);
//   - twin-ratio: against a twin (twin-p95-ms), a daemon started on a copy of
//     the data dir taken before the catch-up, which catches up with nothing
//     beside it and then takes as many POSTs as the busy phase did: the same
//     memories onto the same file, differing only in the catch-up.
//
// The two baselines differ (the twin's p95 was ~1.5 ms, the same daemon's
// after its busy phase ~0.8, unexplained), so both are reported.
// rss-rise-MiB is how much the daemon's resident memory grew from its start
// to the end of its idle POSTs: what the catch-up left behind. catch-up-s
// is how long the catch-up took, from the daemon's start (beside the POSTs)
// to its "caught up".
func BenchmarkSinglePostDuringCatchUp(b *testing.B) {
	set, err := benchdata.Load()
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		data, twinDir := b.TempDir(), b.TempDir()
		d := startDaemonB(b, data, "")
		postBacklog(b, d.addr, set)
		stopB(b, d)
		copyDataDir(b, data, twinDir)

		d = startDaemonB(b, data, "", catchUpSettings...)
		rss := vmRSS(b, d.cmd.Process.Pid)
		start := time.Now()
		busy := singlePosts(b, d, func() bool { return !strings.Contains(d.stderr.String(), "caught up") })
		waitForLog(b, d, "caught up", 10*time.Minute)
		catchUp := time.Since(start)
		n := min(len(busy), afterPosts)
		idle := singlePosts(b, d, func() bool { n--; return n >= 0 })
		rise := vmRSS(b, d.cmd.Process.Pid) - rss
		stopB(b, d)
		keepDaemonLog(b, d)
		if len(busy) < 20 {
			b.Fatalf("the catch-up ended after %d POSTs: too few to measure", len(busy))
		}
		twin := idlePosts(b, twinDir, len(busy))
		bp, ip, tp := percentile(busy, 95), percentile(idle, 95), percentile(twin, 95)
		b.ReportMetric(ms(percentile(busy, 50)), "busy-p50-ms")
		b.ReportMetric(ms(bp), "busy-p95-ms")
		b.ReportMetric(ms(ip), "idle-p95-ms")
		b.ReportMetric(float64(bp)/float64(ip), "p95-ratio")
		b.ReportMetric(ms(tp), "twin-p95-ms")
		b.ReportMetric(float64(bp)/float64(tp), "twin-ratio")
		b.ReportMetric(float64(len(busy)), "busy-posts")
		b.ReportMetric(catchUp.Seconds(), "catch-up-s")
		b.ReportMetric(float64(rss)/(1<<20), "rss-start-MiB")
		b.ReportMetric(float64(rise)/(1<<20), "rss-rise-MiB")
	}
}

// idlePosts starts a daemon on data, lets it catch up with nothing beside
// it, then POSTs n single memories and returns their latencies.
func idlePosts(b *testing.B, data string, n int) []time.Duration {
	b.Helper()
	d := startDaemonB(b, data, "", catchUpSettings...)
	defer stopB(b, d)
	waitForLog(b, d, "caught up", 10*time.Minute)
	return singlePosts(b, d, func() bool { n--; return n >= 0 })
}

// copyDataDir copies a stopped daemon's data dir.
func copyDataDir(b *testing.B, from, to string) {
	b.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		b.Fatalf("copy the data dir: %v", err)
	}
}

// keepDaemonLog writes the daemon's log to the file BENCH_DAEMON_LOG names,
// if set: what ran during the catch-up and after it (with
// BENCH_DAEMON_ENV=GODEBUG=gctrace=1, its garbage collections too).
func keepDaemonLog(b *testing.B, d *daemonProc) {
	b.Helper()
	path := os.Getenv("BENCH_DAEMON_LOG")
	if path == "" {
		return
	}
	if err := os.WriteFile(path, []byte(d.stderr.String()), 0o600); err != nil {
		b.Fatalf("keep the daemon's log: %v", err)
	}
}

// postBacklog stores catchUpDays days of perDay memories each, ending the
// day before yesterday, in batches.
func postBacklog(b *testing.B, addr string, set *benchdata.Set) {
	b.Helper()
	type in struct {
		Content   string `json:"content"`
		SessionID string `json:"session_id"`
		Timestamp string `json:"timestamp"`
	}
	first := time.Now().AddDate(0, 0, -catchUpDays-2).Truncate(24 * time.Hour).Add(8 * time.Hour)
	mems := set.Memories(catchUpDays*perDay, time.Now())
	for i := 0; i < len(mems); i += 500 {
		var batch []in
		for j, m := range mems[i:min(i+500, len(mems))] {
			k := i + j
			ts := first.AddDate(0, 0, k/perDay).Add(time.Duration(k%perDay) * time.Minute)
			batch = append(batch, in{m.Content, m.Session, ts.UTC().Format(time.RFC3339)})
		}
		body, _ := json.Marshal(map[string]any{"memories": batch})
		resp, err := http.Post("http://"+addr+"/v1/agents/main/memories", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("POST backlog: %d", resp.StatusCode)
		}
	}
}

// singlePosts POSTs one new memory at a time while more reports true, and
// returns each POST's latency.
func singlePosts(b *testing.B, d *daemonProc, more func() bool) []time.Duration {
	b.Helper()
	var took []time.Duration
	for i := 0; more() && i < 100_000; i++ {
		body := fmt.Sprintf(`{"content":"status line %d: the deploy of build %d finished","session_id":"live"}`, len(took), i)
		start := time.Now()
		resp, err := http.Post("http://"+d.addr+"/v1/agents/main/memories", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("POST: %d", resp.StatusCode)
		}
		took = append(took, time.Since(start))
	}
	return took
}

// waitForLog waits until the daemon's log holds s.
func waitForLog(b *testing.B, d *daemonProc, s string, limit time.Duration) {
	b.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(d.stderr.String(), s) {
		if time.Now().After(deadline) {
			b.Fatalf("no %q in the daemon's log after %v:\n%s", s, limit, d.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
