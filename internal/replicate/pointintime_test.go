package replicate

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestRestoreAtATime: restore --from-replica --at T gives back exactly
// the memories acknowledged before T, none of those after.
func TestRestoreAtATime(t *testing.T) {
	needBinaries(t)
	data := t.TempDir()
	env := testEnv("DORMOUSE_REPLICATION_URL=file://" + t.TempDir())
	p := serve(t, data, env)
	write := func(batch string, n int) map[int64]string {
		out := map[int64]string{}
		for i := range n {
			c := fmt.Sprintf("Dana's %s note %d about the violin lessons", batch, i)
			id := remember(p.addr, "dana", c)
			if id == 0 {
				t.Fatalf("%s note %d was not acknowledged", batch, i)
			}
			out[id] = c
		}
		return out
	}
	before := write("early", 20)
	time.Sleep(3 * time.Second) // more than a sync interval either side of T
	at := time.Now().UTC().Truncate(time.Second)
	time.Sleep(3 * time.Second)
	after := write("late", 20)
	time.Sleep(3 * time.Second)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}

	out, err := dormouseCmd(t, env, "restore", "--from-replica", "--agent", "dana", "--at", at.Format(time.RFC3339),
		"--data", data, "--addr", "127.0.0.1:1")
	if err != nil {
		t.Fatalf("restore --at: %v\n%s", err, out)
	}
	t.Logf("restore --at %s:\n%s", at.Format(time.RFC3339), out)
	got := contents(t, serve(t, data, testEnv()).addr, "dana")
	for id, c := range before {
		if got[id] != c {
			t.Errorf("memory %d (%q), acknowledged before T, is %q after the restore", id, c, got[id])
		}
	}
	for id := range after {
		if _, ok := got[id]; ok && after[id] == got[id] {
			t.Errorf("memory %d (%q), acknowledged after T, came back", id, after[id])
		}
	}
	if len(got) != len(before) {
		t.Errorf("restored %d memories, want the %d from before T", len(got), len(before))
	}

	// Without --force an agent that has a file is never replaced.
	out, err = dormouseCmd(t, env, "restore", "--from-replica", "--agent", "dana", "--data", data, "--addr", "127.0.0.1:1")
	if err == nil {
		t.Errorf("restore over an existing agent without --force succeeded:\n%s", out)
	}
}
