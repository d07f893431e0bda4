package consolidate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// TestMain runs, in a child, a consolidation that takes the lease and then
// waits to be killed (see startHolder).
func TestMain(m *testing.M) {
	if dir := os.Getenv("DORMOUSE_TEST_LEASE_DIR"); dir != "" {
		if err := holdLease(dir, os.Getenv("DORMOUSE_TEST_LEASE_DAY")); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func holdLease(dir, day string) error {
	st, err := store.Open(context.Background(), store.Options{Dir: dir, Location: time.UTC})
	if err != nil {
		return err
	}
	defer st.Close()
	e := engine(st, fake{mapFn: func(context.Context, string, []store.Memory) (Partial, Usage, error) {
		fmt.Println("holding")
		select {} // until killed
	}})
	_, err = e.Run(context.Background(), "main", day)
	return err
}

// startHolder starts a child process that holds agent main's consolidation
// lease, and returns once it does.
func startHolder(t *testing.T, dir, day string) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "DORMOUSE_TEST_LEASE_DIR="+dir, "DORMOUSE_TEST_LEASE_DAY="+day)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "holding\n" {
		t.Fatalf("child: %q, want holding\n%s", line, stderr.String())
	}
	return child
}

// TestKilledHolderIsTakenOver kills (SIGKILL) a process mid-consolidation:
// the next run takes its lease over at once, long before the lease's TTL.
// While the holder lives, the agent is busy.
func TestKilledHolderIsTakenOver(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(t.Context(), store.Options{Dir: dir, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ingest(t, st, "main", []capture.Input{say("Alice's role is engineer.", now.Add(-48*time.Hour))})
	day := now.Add(-48 * time.Hour).Format(time.DateOnly)

	child := startHolder(t, dir, day)
	e := engine(st, Offline{}) // the same clock as the child's: its lease has 10 minutes to go
	if _, err := e.Run(t.Context(), "main", day); !errors.Is(err, ErrBusy) {
		t.Fatalf("while the holder runs: err = %v, want ErrBusy", err)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	run, err := e.Run(t.Context(), "main", day)
	if err != nil || run.Status != store.RunOK || run.Memories != 1 {
		t.Fatalf("after the holder was killed: %+v, %v; want an ok run of the day", run, err)
	}
}

// TestDeadHolder reads holders' names: only one of this host whose process
// is gone, or whose pid runs a process started at another time, is dead.
func TestDeadHolder(t *testing.T) {
	host, _ := os.Hostname()
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	pid := child.Process.Pid
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	start, err := processStart(pid)
	if err != nil {
		t.Fatal(err)
	}
	name := func(host string, pid int, start uint64) string { return fmt.Sprintf("%s:%d:1:1:%d", host, pid, start) }
	for _, tc := range []struct {
		holder string
		dead   bool
	}{
		{name(host, pid, start), false},
		{name(host, pid, start+1), true}, // the pid was reused
		{name("elsewhere", pid, start+1), false},
		{"timer", false},
		{host + ":" + fmt.Sprint(pid) + ":1:1", false}, // the name before start times
		{holderName(1, 1), false},                      // this process
	} {
		if got := deadHolder(tc.holder); got != tc.dead {
			t.Errorf("deadHolder(%q) = %v, want %v", tc.holder, got, tc.dead)
		}
	}
	_ = child.Process.Kill()
	_ = child.Wait()
	if !deadHolder(name(host, pid, start)) {
		t.Errorf("deadHolder of a killed process = false, want true")
	}
}

// TestHolderOfAnotherBootIsDead: after a power cut during a consolidation
// its lease stays in the file, and the daemon of the next boot may run with
// the same pid (the power-cut VM test saw "catch-up skipped: agent busy"):
// a holder of this host from another boot is dead, one of this boot with
// this pid is alive.
func TestHolderOfAnotherBootIsDead(t *testing.T) {
	if when.BootID() == "" {
		t.Skip("no /proc/sys/kernel/random/boot_id")
	}
	host, _ := os.Hostname()
	start, _ := processStart(os.Getpid())
	ours := fmt.Sprintf("%s:%d:1:0:%d:%s", host, os.Getpid(), start, when.BootID())
	if deadHolder(ours) {
		t.Errorf("%s: this process's own holder called dead", ours)
	}
	if got := holderName(1, 0); deadHolder(got) || !strings.HasSuffix(got, ":"+when.BootID()) {
		t.Errorf("holderName = %s: want this boot's id last, and alive", got)
	}
	before := fmt.Sprintf("%s:%d:1:0:%d:%s", host, os.Getpid(), start, "00000000-0000-0000-0000-000000000000")
	if !deadHolder(before) {
		t.Errorf("%s: a holder of another boot with this pid called alive", before)
	}
}
