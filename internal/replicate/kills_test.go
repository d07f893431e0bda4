package replicate

import (
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestRandomKills: while memories are written, Litestream, the daemon or
// both are killed with SIGKILL at random moments, and the daemon is
// started again whenever it died. After the last kill the replicas catch
// up, and a dead card then restores every memory acknowledged
// recoveryPoint before it. The seed is logged: DORMOUSE_KILL_SEED
// replays a run.
func TestRandomKills(t *testing.T) {
	needBinaries(t)
	seed := rand.Uint64()
	if s, err := strconv.ParseUint(os.Getenv("DORMOUSE_KILL_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("DORMOUSE_KILL_SEED=%d", seed)
	rnd := rand.New(rand.NewPCG(seed, 0))
	env := testEnv("DORMOUSE_REPLICATION_URL=file://" + t.TempDir())
	data := t.TempDir()
	p := serve(t, data, env)
	agents := []string{"ada", "ben"}
	w := startWriter(p.addr, agents)
	time.Sleep(5 * time.Second)
	for round := range 6 {
		time.Sleep(time.Duration(500+rnd.IntN(3500)) * time.Millisecond)
		switch victim := rnd.IntN(3); victim {
		case 0:
			t.Logf("round %d: kill -9 Litestream", round)
			ls := p.litestreamPID(t)
			if err := syscall.Kill(ls, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the daemon started Litestream again", 30*time.Second, func() bool { return p.litestreamPID(t) != ls })
		default:
			ls := p.litestreamPID(t)
			if victim == 2 {
				t.Logf("round %d: kill -9 Litestream and the daemon", round)
				syscall.Kill(ls, syscall.SIGKILL)
			} else {
				t.Logf("round %d: kill -9 the daemon", round)
			}
			p.kill9(t)
			gone(t, ls, 5*time.Second)
			p = serve(t, data, env)
			w.moveTo(p.addr)
		}
	}
	waitCaughtUp(t, p.addr, len(agents), 3) // a second or two behind a steady writer
	time.Sleep(recoveryPoint + time.Second)
	loseTheCard(t, p, w, data, env, "", agents)
}
