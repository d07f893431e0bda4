package replicate

import (
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/fulldisk"
)

// TestFullDiskWithReplication: the data directory's disk fills up while
// memories are written and replicated. Writes are refused while it is
// full, the daemon and Litestream keep running, and once space is freed
// writes are acknowledged again, the replicas catch up, and a dead card
// then restores every memory acknowledged before and after.
func TestFullDiskWithReplication(t *testing.T) {
	needBinaries(t)
	data := fulldisk.Mount(t, 48<<20)
	env := testEnv("DORMOUSE_REPLICATION_URL=file://" + t.TempDir())
	p := serve(t, data, env)
	agents := []string{"ada", "ben"}
	w := startWriter(p.addr, agents)
	time.Sleep(6 * time.Second)
	free := fulldisk.Fill(t, data)
	counts := func() (int, int) { w.mu.Lock(); defer w.mu.Unlock(); return len(w.acks), w.failed }
	acked0, failed0 := counts()
	time.Sleep(6 * time.Second)
	acked1, failed1 := counts()
	t.Logf("disk full for 6s: %d writes acknowledged, %d refused", acked1-acked0, failed1-failed0)
	if failed1 == failed0 {
		t.Errorf("no write was refused while the disk was full")
	}
	free()
	waitFor(t, "writes acknowledged again after space was freed", 30*time.Second, func() bool {
		a, _ := counts()
		return a > acked1+50
	})
	waitCaughtUp(t, p.addr, len(agents), 3)
	select {
	case err := <-p.exited:
		t.Fatalf("serve exited on the full disk: %v\n%s", err, p.log.String())
	default:
	}
	time.Sleep(recoveryPoint + time.Second)
	loseTheCard(t, p, w, data, env, "", agents)
}
