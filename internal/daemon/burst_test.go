package daemon_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// The write burst of issue 26: 500 memories by batch, 4,000 single POSTs
// from 8 clients, then 100 two-word recalls of the same dense vocabulary.
// Before the fix one or two recalls a run got no answer: the daemon
// panicked inside SQLite (store.givenBM25 says why). Every recall must be
// a 200 and the log must hold no panic.
func TestRecallAnswersAfterAWriteBurst(t *testing.T) {
	d := daemontest.Start(t)
	mems := benchdata.Dense(4500, time.Now().UTC(), benchdata.WithSession)
	var batch []burstMemory
	for _, m := range mems[:500] {
		batch = append(batch, burstMemory{m.Content, m.Role, m.Session, m.Timestamp})
	}
	if code, body := burstPost(t, d, "/v1/agents/main/memories", map[string]any{"memories": batch}); code != http.StatusCreated {
		t.Fatalf("batch: %d %s", code, body)
	}
	rest := mems[500:]
	var wg sync.WaitGroup
	for client := range 8 {
		wg.Go(func() {
			for i := client; i < len(rest); i += 8 {
				m := rest[i]
				if code, body := burstPost(t, d, "/v1/agents/main/memories", burstMemory{m.Content, m.Role, m.Session, m.Timestamp}); code != http.StatusCreated {
					t.Errorf("single memory: %d %s", code, body)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, q := range benchdata.DenseQueries(100) {
		if code, body := burstPost(t, d, "/v1/agents/main/recall", map[string]any{"query": q}); code != http.StatusOK {
			t.Errorf("recall %q: %d %s", q, code, body)
		}
	}
	if log := d.Log(); strings.Contains(log, "panic") {
		t.Errorf("the daemon panicked:\n%.4000s", log[strings.Index(log, "panic"):])
	}
}

type burstMemory struct {
	Content   string    `json:"content"`
	Role      string    `json:"role"`
	SessionID string    `json:"session_id"`
	Timestamp time.Time `json:"timestamp"`
}

// burstPost posts body as JSON: the status, or 0 and the error when no
// answer came.
func burstPost(t *testing.T, d *daemontest.Daemon, path string, body any) (int, string) {
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, d.URL()+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	return resp.StatusCode, out.String()
}
