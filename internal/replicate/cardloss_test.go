package replicate

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recoveryPoint is what a dead card may lose: memories acknowledged this
// long before the kill must all come back (issue 28's target).
const recoveryPoint = 10 * time.Second

type ack struct {
	agent   string
	id      int64
	content string
	at      time.Time
}

// writer stores memories to each agent (the second created while
// Litestream already runs) until end is called, at the daemon's address
// (moveTo changes it).
type writer struct {
	addr   atomic.Pointer[string]
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	acks   []ack
	failed int // writes the daemon did not acknowledge
}

func startWriter(addr string, agents []string) *writer {
	w := &writer{stop: make(chan struct{})}
	w.moveTo(addr)
	for i, agent := range agents {
		w.wg.Go(func() {
			if i > 0 {
				time.Sleep(2 * time.Second)
			}
			for n := 0; ; n++ {
				select {
				case <-w.stop:
					return
				default:
				}
				c := fmt.Sprintf("%s wrote note %d about the orchard and the %s", agent, n, strings.Repeat("pears ", n%7))
				id := remember(*w.addr.Load(), agent, c)
				w.mu.Lock()
				if id != 0 {
					w.acks = append(w.acks, ack{agent, id, c, time.Now()})
				} else {
					w.failed++
				}
				w.mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	return w
}

func (w *writer) moveTo(addr string) { w.addr.Store(&addr) }

// end stops the writers and returns what was acknowledged and how many
// writes were not.
func (w *writer) end() ([]ack, int) {
	close(w.stop)
	w.wg.Wait()
	return w.acks, w.failed
}

// cardLoss is the dead-card story against the replica env names: write,
// then lose the card mid-write.
func cardLoss(t *testing.T, env []string, secret string) {
	data := t.TempDir()
	p := serve(t, data, env)
	agents := []string{"ada", "ben"}
	w := startWriter(p.addr, agents)
	time.Sleep(15 * time.Second)
	checkHealth(t, p.addr, agents)
	loseTheCard(t, p, w, data, env, secret, agents)
}

// loseTheCard kills -9 the daemon while w writes (Litestream dies with
// it), deletes the data directory, restores --from-replica --all, and
// checks that every memory acknowledged recoveryPoint before the kill is
// back, with its content. secret, when not empty, must appear in no log
// or output.
func loseTheCard(t *testing.T, p *serveProc, w *writer, data string, env []string, secret string, agents []string) {
	ls := p.litestreamPID(t)
	p.kill9(t)
	killed := time.Now()
	acks, _ := w.end()
	gone(t, ls, 5*time.Second) // its parent-death signal
	emptyDir(t, data)          // a new card: the directory may be a mount point

	start := time.Now()
	out, err := dormouseCmd(t, env, "restore", "--from-replica", "--all", "--data", data, "--addr", "127.0.0.1:1")
	if err != nil {
		t.Fatalf("restore --from-replica --all: %v\n%s", err, out)
	}
	t.Logf("restore took %v:\n%s", time.Since(start).Round(time.Millisecond), out)
	if secret != "" && (strings.Contains(out, secret) || strings.Contains(p.log.String(), secret)) {
		t.Errorf("the secret key shows in serve's log or restore's output")
	}
	q := serve(t, data, testEnv())
	got := map[string]map[int64]string{}
	for _, a := range agents {
		got[a] = contents(t, q.addr, a)
		if len(got[a]) == 0 {
			t.Errorf("agent %s came back empty", a)
		}
	}
	countLost(t, acks, got, killed, len(agents))
}

// emptyDir removes everything in dir.
func emptyDir(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// countLost fails for every acknowledged memory missing from got that was
// acknowledged recoveryPoint or more before killed, or that came back
// changed.
func countLost(t *testing.T, acks []ack, got map[string]map[int64]string, killed time.Time, agents int) {
	var lost, lostLate int
	var newest time.Time
	for _, a := range acks {
		switch c, ok := got[a.agent][a.id]; {
		case ok && c != a.content:
			t.Errorf("%s's memory %d came back as %q, was %q", a.agent, a.id, c, a.content)
		case ok:
			if a.at.After(newest) {
				newest = a.at
			}
		case killed.Sub(a.at) >= recoveryPoint:
			lost++
			if lost <= 5 {
				t.Errorf("%s's memory %d, acknowledged %v before the kill, is lost", a.agent, a.id, killed.Sub(a.at).Round(time.Millisecond))
			}
		default:
			lostLate++
		}
	}
	t.Logf("%d memories acknowledged over %d agents; lost %d acknowledged %v or more before the kill, %d within it; "+
		"the newest that came back was acknowledged %v before the kill",
		len(acks), agents, lost, recoveryPoint, lostLate, killed.Sub(newest).Round(time.Millisecond))
	if len(acks) < 100 {
		t.Errorf("only %d memories were acknowledged: the test wrote too little to tell", len(acks))
	}
}

// TestCardLossFileReplica: the dead card against a file:// replica (a
// mounted NAS or USB disk).
func TestCardLossFileReplica(t *testing.T) {
	needBinaries(t)
	cardLoss(t, testEnv("DORMOUSE_REPLICATION_URL=file://"+t.TempDir()), "")
}

// checkHealth: /health shows each agent's replica replicating, synced
// within the recovery point and not lagging past it; /metrics has its lag.
func checkHealth(t *testing.T, addr string, agents []string) {
	t.Helper()
	var h struct {
		Replication *struct {
			Running bool
			Agents  []struct {
				Agent      string
				State      string
				LagSeconds float64    `json:"lag_seconds"`
				LastSync   *time.Time `json:"last_sync"`
			}
		}
	}
	resp, err := client.Get("http://" + addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if err != nil || h.Replication == nil || !h.Replication.Running {
		t.Fatalf("/health: %v, replication %+v; want it running", err, h.Replication)
	}
	seen := map[string]bool{}
	for _, a := range h.Replication.Agents {
		seen[a.Agent] = true
		if a.State != "replicating" || a.LastSync == nil || time.Since(*a.LastSync) > recoveryPoint || a.LagSeconds > recoveryPoint.Seconds() {
			t.Errorf("/health: agent %s's replica %+v; want replicating, synced and at most %v behind", a.Agent, a, recoveryPoint)
		}
		t.Logf("/health: agent %s's replica %s, lag %.2fs, last sync %v ago", a.Agent, a.State, a.LagSeconds, time.Since(*a.LastSync).Round(time.Millisecond))
	}
	resp, err = client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp, err = client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	status, err := dormouseCmd(t, testEnv("DORMOUSE_ADDR="+addr), "status")
	if err != nil {
		t.Errorf("dormouse status: %v\n%s", err, status)
	}
	for _, a := range agents {
		if !regexp.MustCompile(`replica ` + a + `: replicating, .* shipped, 0 sync errors`).MatchString(status) {
			t.Errorf("dormouse status shows no replicating replica of %s with its counters:\n%s", a, status)
		}
		if !strings.Contains(string(page), "<td>"+a+"</td><td>replicating</td>") {
			t.Errorf("the page shows no replicating replica of %s", a)
		}
		if !seen[a] {
			t.Errorf("/health shows no replica of agent %s", a)
		}
		for _, m := range []string{"dormouse_replica_lag_seconds", "dormouse_replica_sync_errors_total", "dormouse_replica_wal_bytes_total"} {
			if !strings.Contains(string(body), m+`{agent="`+a+`"}`) {
				t.Errorf("/metrics has no %s for agent %s", m, a)
			}
		}
	}
}
