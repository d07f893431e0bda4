package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// BenchmarkServeToReady measures `dormouse serve` from exec to READY=1 with
// five existing agents (target: 500 ms).
func BenchmarkServeToReady(b *testing.B) {
	data := b.TempDir()
	d := startDaemonB(b, data, "")
	for i := range 5 {
		post(b, d.addr, fmt.Sprintf("agent%d", i), []string{"a memory so the agent file exists"})
	}
	stopB(b, d)

	n := notifySocket(b)
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t, d := untilReady(b, data, n)
		took = append(took, t)
		b.StopTimer()
		stopB(b, d)
		b.StartTimer()
	}
	b.ReportMetric(float64(median(took).Microseconds())/1000, "ms-to-ready(median)")
}

// BenchmarkDaemonRSS loads 100,000 memories into one agent and a few
// thousand into four more, recalls from all five, and reports the daemon's
// resident memory (target: 64 MB).
func BenchmarkDaemonRSS(b *testing.B) {
	set, err := benchdata.Load()
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		data := b.TempDir()
		d := startDaemonB(b, data, "")
		load := func(agent string, n int) {
			mems := set.Memories(n, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
			for i := 0; i < len(mems); i += 1000 {
				var batch []string
				for _, m := range mems[i:min(i+1000, len(mems))] {
					batch = append(batch, m.Content)
				}
				post(b, d.addr, agent, batch)
			}
		}
		load("main", 100_000)
		for i := range 4 {
			load(fmt.Sprintf("agent%d", i), 5_000)
		}
		qs := set.Questions
		for i, q := range qs[:500] {
			agent := "main"
			if i%5 != 0 {
				agent = fmt.Sprintf("agent%d", i%4)
			}
			terms := text.Terms(q)
			body, _ := json.Marshal(map[string]any{"query": strings.Join(terms[:min(3, len(terms))], " ")})
			resp, err := http.Post("http://"+d.addr+"/v1/agents/"+agent+"/recall", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
		rss := vmRSS(b, d.cmd.Process.Pid)
		b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
		stopB(b, d)
	}
}

func vmRSS(b *testing.B, pid int) int64 {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

func post(b *testing.B, addr, agent string, contents []string) {
	b.Helper()
	type in struct {
		Content string `json:"content"`
	}
	ins := make([]in, len(contents))
	for i, c := range contents {
		ins[i] = in{c}
	}
	body, _ := json.Marshal(map[string]any{"memories": ins})
	resp, err := http.Post("http://"+addr+"/v1/agents/"+agent+"/memories", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("POST %s: %d", agent, resp.StatusCode)
	}
}

func startDaemonB(b *testing.B, data, notify string, settings ...string) *daemonProc {
	b.Helper()
	// BENCH_DAEMON_ENV passes settings to the daemon under test (the test
	// environment's own DORMOUSE_* are kept out), e.g.
	// BENCH_DAEMON_ENV=DORMOUSE_STORAGE_CACHE_SIZE_KIB=1024; they come after
	// the benchmark's own settings, so they win.
	env := append(append([]string{}, settings...), strings.Fields(os.Getenv("BENCH_DAEMON_ENV"))...)
	if notify != "" {
		env = append(env, "NOTIFY_SOCKET="+notify)
	}
	return startDaemon(b, data, env...)
}

// untilReady starts serve on data and returns how long it took to send
// READY=1 to n, and the daemon.
func untilReady(b *testing.B, data string, n *notes) (time.Duration, *daemonProc) {
	b.Helper()
	start := time.Now()
	d := startDaemonB(b, data, n.path)
	n.waitFor(b, d, "READY=1")
	return time.Since(start), d
}

func stopB(b *testing.B, d *daemonProc) {
	b.Helper()
	if err := d.stop(b, syscall.SIGTERM); err != nil {
		b.Fatalf("stop: %v", err)
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
