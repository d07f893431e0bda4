package replicate

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

// outage is what a store that went away for a while did to the daemon.
type outage struct {
	failed   int           // writes not acknowledged while it was away
	acked    int           // writes acknowledged while it was away
	maxLag   float64       // the largest lag /health showed, seconds
	degraded bool          // /health said degraded while it was away
	staging  int64         // the most Litestream's local staging held, bytes
	catchUp  time.Duration // from its return until every replica is within recoveryPoint
}

// replicaLags is each agent's replica lag as /health shows it, and its
// state (ok, degraded, failing).
func replicaLags(t testing.TB, addr string) (map[string]float64, string) {
	t.Helper()
	var h struct {
		State       string
		Replication *struct {
			Agents []struct {
				Agent      string
				LagSeconds float64 `json:"lag_seconds"`
			}
		}
	}
	resp, err := client.Get("http://" + addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || h.Replication == nil {
		t.Fatalf("/health: %v, replication %v", err, h.Replication)
	}
	lags := map[string]float64{}
	for _, a := range h.Replication.Agents {
		lags[a.Agent] = a.LagSeconds
	}
	return lags, h.State
}

// storeOutage takes the S3 store s away for down while w writes through
// p, brings it back, and waits (at most 2 minutes) until every replica of
// agents is within recoveryPoint again.
func storeOutage(t testing.TB, s *s3Server, p *serveProc, w *writer, data string, agents []string, down time.Duration) outage {
	t.Helper()
	var o outage
	w.mu.Lock()
	acked0, failed0 := len(w.acks), w.failed
	w.mu.Unlock()
	s.stop(t)
	for end := time.Now().Add(down); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		lags, state := replicaLags(t, p.addr)
		for _, l := range lags {
			o.maxLag = max(o.maxLag, l)
		}
		o.degraded = o.degraded || state == "degraded"
		o.staging = max(o.staging, NewLayout(data).StagingBytes())
	}
	w.mu.Lock()
	o.acked, o.failed = len(w.acks)-acked0, w.failed-failed0
	w.mu.Unlock()
	s.start(t)
	back := time.Now()
	for {
		lags, _ := replicaLags(t, p.addr)
		caught := len(lags) == len(agents)
		for _, l := range lags {
			caught = caught && l < recoveryPoint.Seconds()
		}
		if caught {
			o.catchUp = time.Since(back)
			return o
		}
		if time.Since(back) > 2*time.Minute {
			t.Fatalf("the replicas did not catch up within 2 minutes of the store's return: lags %v\n%s", lags, p.log.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// TestStoreOutage: the S3 store goes away for 20 s while memories are
// written. Capture does not notice; /health shows the lag and turns
// degraded; the local staging holds what could not be shipped; when the
// store returns the replicas catch up within 30 s, and a dead card after
// that restores every memory acknowledged during the outage.
// BenchmarkStoreOutage measures the minute.
func TestStoreOutage(t *testing.T) {
	needBinaries(t)
	s := startS3(t)
	env := append(s.env("pi-hall"), "DORMOUSE_HEALTH_REPLICA_LAG_WARN=5s")
	data := t.TempDir()
	p := serve(t, data, env)
	agents := []string{"ada", "ben"}
	w := startWriter(p.addr, agents)
	time.Sleep(8 * time.Second)
	o := storeOutage(t, s, p, w, data, agents, 20*time.Second)
	t.Logf("store away 20s: %d writes acknowledged, %d failed; lag up to %.1fs; staging up to %d KiB; caught up %v after its return",
		o.acked, o.failed, o.maxLag, o.staging>>10, o.catchUp.Round(time.Millisecond))
	if o.failed > 0 || o.acked < 100 {
		t.Errorf("while the store was away %d writes failed and %d were acknowledged; want 0 failed of at least 100", o.failed, o.acked)
	}
	if o.maxLag < 10 || !o.degraded {
		t.Errorf("while the store was away /health showed a lag of at most %.1fs, degraded %v; want over 10s and degraded", o.maxLag, o.degraded)
	}
	if o.staging == 0 {
		t.Errorf("Litestream staged nothing locally while the store was away")
	}
	if o.catchUp > 30*time.Second {
		t.Errorf("the replicas caught up %v after the store returned; want within 30s", o.catchUp)
	}
	time.Sleep(recoveryPoint + 2*time.Second) // so every memory of the outage is past the recovery point
	loseTheCard(t, p, w, data, env, s.secret, agents)
}

// BenchmarkStoreOutage is the target: the S3 store away for a
// minute (DORMOUSE_OUTAGE overrides) under a steady writer; 0 capture
// errors and the replicas back within recoveryPoint in at most 30 s of its
// return. Run with -benchtime 1x: each iteration is a whole outage.
func BenchmarkStoreOutage(b *testing.B) {
	needBinaries(b)
	down := time.Minute
	if d, err := time.ParseDuration(os.Getenv("DORMOUSE_OUTAGE")); err == nil {
		down = d
	}
	s := startS3(b)
	data := b.TempDir()
	p := serve(b, data, s.env("pi-bench"))
	agents := []string{"ada", "ben"}
	w := startWriter(p.addr, agents)
	defer w.end()
	time.Sleep(8 * time.Second)
	for b.Loop() {
		o := storeOutage(b, s, p, w, data, agents, down)
		b.ReportMetric(float64(o.failed), "capture-errors")
		b.ReportMetric(float64(o.acked), "acked-while-down")
		b.ReportMetric(o.catchUp.Seconds(), "catch-up-s")
		b.ReportMetric(o.maxLag, "max-lag-s")
		b.ReportMetric(float64(o.staging)/(1<<20), "staging-MiB")
	}
}
