package replicate

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
)

// BenchmarkRestoreReplica is issue 28's target: restoring an agent of
// 100,000 memories (DORMOUSE_RESTORE_N overrides) from its file://
// replica takes at most 30 s. The daemon takes the dense tool-log corpus
// in batches of 500 with replication on; once the replica has caught up
// the daemon stops, the card is lost, and each iteration times
// `dormouse restore --from-replica --agent main --force`.
func BenchmarkRestoreReplica(b *testing.B) {
	needBinaries(b)
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("DORMOUSE_RESTORE_N")); err == nil && v > 0 {
		n = v
	}
	env := testEnv("DORMOUSE_REPLICATION_URL=file://" + b.TempDir())
	data := b.TempDir()
	p := serve(b, data, env)
	postDense(b, p.addr, benchdata.Dense(n, time.Now(), benchdata.WithSession))
	waitCaughtUp(b, p.addr, 1, 1)
	time.Sleep(2 * time.Second) // the last sync's position reaches the replica
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		b.Fatal(err)
	}
	<-p.exited
	emptyDir(b, data)
	for b.Loop() {
		out, err := dormouseCmd(b, env, "restore", "--from-replica", "--agent", "main", "--force", "--data", data, "--addr", "127.0.0.1:1")
		if err != nil {
			b.Fatalf("restore --from-replica: %v\n%s", err, out)
		}
		if !bytes.Contains([]byte(out), []byte(strconv.Itoa(n))) {
			b.Fatalf("restore printed no count of %d memories:\n%s", n, out)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/restore")
	b.ReportMetric(float64(n), "memories")
}

// postDense stores ms in agent main through the API, 500 a request.
func postDense(b *testing.B, addr string, ms []benchdata.Memory) {
	type in struct {
		Content   string    `json:"content"`
		SessionID string    `json:"session_id,omitempty"`
		Role      string    `json:"role"`
		Timestamp time.Time `json:"timestamp"`
	}
	for i := 0; i < len(ms); i += 500 {
		batch := make([]in, 0, 500)
		for _, m := range ms[i:min(i+500, len(ms))] {
			batch = append(batch, in{m.Content, m.Session, m.Role, m.Timestamp})
		}
		body, _ := json.Marshal(map[string]any{"memories": batch})
		resp, err := client.Post("http://"+addr+"/v1/agents/main/memories", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("POST a batch: %s", resp.Status)
		}
	}
}

// waitCaughtUp waits (at most 2 minutes) until /health shows agents
// replicas, each less than lag seconds behind.
func waitCaughtUp(t testing.TB, addr string, agents int, lag float64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		lags, _ := replicaLags(t, addr)
		caught := len(lags) == agents
		for _, l := range lags {
			caught = caught && l < lag
		}
		if caught {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replicas did not catch up within 2 minutes: lags %v", lags)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
