package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
)

// denseRSSPerAgent, denseRSSSingles and denseRSSQueries size the load each
// agent of BenchmarkDenseRSS takes: the dense run (20,000 tool-log
// memories), part of it as single POSTs, then two-word recalls.
// BENCH_RSS_MEMORIES sets another size for a quick look.
var denseRSSPerAgent, denseRSSSingles, denseRSSQueries = envInt("BENCH_RSS_MEMORIES", 20_000), 1_000, 200

// denseRSSIdle is how long the daemon stands idle after the load before
// BenchmarkDenseRSS measures it again (the idle-* metrics): past the
// backlog check (consolidate.backlog_debounce, 1m after a write, which
// reads the agent but consolidates nothing here: the load is of a past
// day), then storage.conn_idle_close (30s) and the janitor's next tick,
// when idle connections are closed and free memory returned.
// BENCH_RSS_IDLE_SECONDS sets another; envInt takes 0 as unset.
var denseRSSIdle = time.Duration(envInt("BENCH_RSS_IDLE_SECONDS", 120)) * time.Second

func envInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkDenseRSS loads the dense corpus into 1 and 5 agents at once over
// HTTP (batches of 500, then single POSTs from 4 clients an agent), recalls
// on each, and reports the daemon's memory: VmRSS and VmHWM, the anonymous
// and file-backed parts of the RSS (the file part is mostly the binary's
// pages), the Go heap in use and what the Go runtime holds from the OS
// (from /metrics), and the anonymous RSS beyond that: SQLite's, since
// ncruces/go-sqlite3 gives each connection a memory of its own outside the
// Go heap, which keeps what it once touched until the connection closes. Target (issue 17): rss-MiB ≤ 48 with 5 agents.
func BenchmarkDenseRSS(b *testing.B) {
	for _, agents := range []int{1, 5} {
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) {
			for b.Loop() {
				d := startDaemonB(b, b.TempDir(), "")
				var wg sync.WaitGroup
				for i := range agents {
					wg.Go(func() { loadDense(b, d.addr, fmt.Sprintf("agent%d", i)) })
				}
				wg.Wait()
				reportMemory(b, d, "")
				if denseRSSIdle > 0 {
					time.Sleep(denseRSSIdle)
					reportMemory(b, d, "idle-")
				}
				stopB(b, d)
			}
		})
	}
}

// loadDense stores the dense corpus in agent, the last denseRSSSingles
// memories one a request, and runs denseRSSQueries recalls.
func loadDense(b *testing.B, addr, agent string) {
	mems := benchdata.Dense(denseRSSPerAgent, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), benchdata.WithoutSession)
	batched := max(0, len(mems)-denseRSSSingles)
	for i := 0; i < batched; i += 500 {
		postDense(b, addr, agent, mems[i:min(i+500, batched)])
	}
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			for i := batched + c; i < len(mems); i += 4 {
				postDense(b, addr, agent, mems[i:i+1])
			}
		})
	}
	wg.Wait()
	for _, q := range benchdata.DenseQueries(denseRSSQueries) {
		postJSON(b, "http://"+addr+"/v1/agents/"+agent+"/recall", map[string]any{"query": q}, http.StatusOK)
	}
}

func postDense(b *testing.B, addr, agent string, mems []benchdata.Memory) {
	type in struct {
		Content   string `json:"content"`
		Role      string `json:"role"`
		Timestamp string `json:"timestamp"`
	}
	ins := make([]in, len(mems))
	for i, m := range mems {
		ins[i] = in{m.Content, m.Role, m.Timestamp.Format(time.RFC3339)}
	}
	postJSON(b, "http://"+addr+"/v1/agents/"+agent+"/memories", map[string]any{"memories": ins}, http.StatusCreated)
}

// postJSON POSTs v as JSON to url, failing b unless the answer is want.
func postJSON(b *testing.B, url string, v any, want int) {
	body, _ := json.Marshal(v)
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		b.Errorf("POST %s: %d, want %d", url, resp.StatusCode, want)
	}
}

// reportMemory reports the daemon's memory figures as benchmark metrics,
// each name prefixed by prefix.
func reportMemory(b *testing.B, d *daemonProc, prefix string) {
	pid := d.cmd.Process.Pid
	// /proc first: /metrics opens a read connection to each agent for its
	// figures.
	st := procFields(b, fmt.Sprintf("/proc/%d/status", pid))
	sqlite := sqliteResident(b, pid)
	for _, f := range []struct{ key, unit string }{
		{"VmRSS", "rss-MiB"}, {"VmHWM", "hwm-MiB"}, {"RssAnon", "anon-MiB"}, {"RssFile", "file-MiB"},
	} {
		b.ReportMetric(float64(st[f.key])/1024, prefix+f.unit)
	}
	m := goMemory(b, d.addr)
	b.ReportMetric(m["go_memstats_heap_inuse_bytes"]/(1<<20), prefix+"heap-MiB")
	b.ReportMetric(float64(st["RssAnon"]-sqlite)/1024, prefix+"go-MiB")
	b.ReportMetric(float64(sqlite)/1024, prefix+"sqlite-MiB")
	b.ReportMetric(m["process_cpu_seconds_total"], prefix+"cpu-s")
}

// sqliteMemoryKiB is the address space ncruces/go-sqlite3 reserves for each
// connection's memory (256 MiB on 64-bit), of which it makes only the start
// accessible as the connection's memory grows.
const sqliteMemoryKiB = 256 << 10

// sqliteResident is the resident KiB of the process's SQLite connection
// memories. In /proc/PID/smaps each is a run of contiguous mappings ending
// in the inaccessible rest of its reservation, sqliteMemoryKiB in all: the
// accessible start, private and anonymous, with the agent's -shm file
// mapped into it (file-backed, not counted). All other anonymous memory is
// the Go runtime's.
func sqliteResident(b *testing.B, pid int) int64 {
	maps := smaps(b, pid)
	var kib int64
	for i, rest := range maps {
		if rest.perms != "---p" {
			continue
		}
		j := i
		for j > 0 && maps[j-1].end == maps[j].start && (rest.end-maps[j-1].start)>>10 <= sqliteMemoryKiB {
			j--
		}
		if (rest.end-maps[j].start)>>10 != sqliteMemoryKiB {
			continue
		}
		for _, m := range maps[j:i] {
			if m.perms == "rw-p" {
				kib += m.rss
			}
		}
	}
	return kib
}

// mapping is one line of /proc/PID/smaps with its Rss.
type mapping struct {
	start, end uint64
	perms      string
	rss        int64 // KiB
}

func smaps(b *testing.B, pid int) []mapping {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		b.Fatal(err)
	}
	var out []mapping
	for line := range strings.SplitSeq(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if f[0] == "Rss:" && len(out) > 0 {
			out[len(out)-1].rss, _ = strconv.ParseInt(f[1], 10, 64)
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if ok && err1 == nil && err2 == nil {
			out = append(out, mapping{start: start, end: end, perms: f[1]})
		}
	}
	return out
}

// procFields reads the "Key: N kB" lines of a /proc file.
func procFields(b *testing.B, path string) map[string]int64 {
	st, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]int64{}
	for line := range strings.SplitSeq(string(st), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); ok && err == nil {
			out[k] = n
		}
	}
	return out
}

// goMemory reads the Go runtime's go_memstats_* gauges and the process's
// CPU seconds from the daemon's /metrics.
func goMemory(b *testing.B, addr string) map[string]float64 {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseFloat(v, 64)
		if err == nil && (strings.HasPrefix(k, "go_memstats_") || k == "process_cpu_seconds_total") {
			out[k] = n
		}
	}
	if out["go_memstats_sys_bytes"] == 0 {
		b.Fatal("no go_memstats_sys_bytes in /metrics")
	}
	return out
}
