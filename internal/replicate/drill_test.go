package replicate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// drillWhileServing writes to two agents through a running daemon, runs
// restore --drill --all beside it, and checks that every drill passes,
// that the result is recorded 0600, and that the daemon's Litestream was
// left alone. It returns the data directory, with the daemon stopped.
func drillWhileServing(t *testing.T, env []string) string {
	data := t.TempDir()
	p := serve(t, data, env)
	ls := p.litestreamPID(t)
	for _, a := range []string{"ada", "ben"} {
		for i := range 20 {
			if remember(p.addr, a, fmt.Sprintf("%s's drill note %d about the beehives", a, i)) == 0 {
				t.Fatalf("%s's note %d was not acknowledged", a, i)
			}
		}
	}
	out, err := dormouseCmd(t, env, "restore", "--drill", "--all", "--data", data)
	t.Logf("restore --drill --all:\n%s", out)
	if err != nil {
		t.Fatalf("restore --drill --all while serving: %v", err)
	}
	for _, a := range []string{"ada", "ben"} {
		if !strings.Contains(out, "drill "+a+": ok: integrity ok; restored 20 memories") {
			t.Errorf("no passing drill line for %s", a)
		}
	}
	if got := p.litestreamPID(t); got != ls {
		t.Errorf("the daemon's litestream changed from %d to %d during the drill", ls, got)
	}
	fi, err := os.Stat(DrillFile(data))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("drill record: %v, %v; want a 0600 file", fi, err)
	}
	if m, _ := filepath.Glob(filepath.Join(NewLayout(data).Dir, "drill-*")); len(m) > 0 {
		t.Errorf("the drill left %v behind", m)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	return data
}

// snapshot is the bytes and mtime of each agent's file and WAL (not of
// its -shm: that is the WAL index every reader maps and updates, the
// daemon's own readers as well).
func snapshot(t *testing.T, data string) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(data, "agents", "*.db*"))
	for _, f := range files {
		if strings.HasSuffix(f, "-shm") {
			continue
		}
		b, err := os.ReadFile(f)
		fi, err2 := os.Stat(f)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		out[filepath.Base(f)] = fmt.Sprintf("%x %v", b, fi.ModTime())
	}
	return out
}

// failingDrill runs restore --drill --all and wants it to fail with want
// in its output, the live files untouched.
func failingDrill(t *testing.T, env []string, data, want string) {
	t.Helper()
	before := snapshot(t, data)
	out, err := dormouseCmd(t, env, "restore", "--drill", "--all", "--data", data)
	t.Logf("restore --drill --all:\n%s", out)
	if err == nil || !strings.Contains(out, "drill ada: FAILED") || !strings.Contains(out, want) {
		t.Errorf("drill: %v; want a failure saying %q", err, want)
	}
	after := snapshot(t, data)
	if len(before) == 0 || len(before) != len(after) {
		t.Errorf("the drill changed the live files (%d before, %d after)", len(before), len(after))
	}
	for f, b := range before {
		if after[f] != b {
			t.Errorf("the drill changed %s", f)
		}
	}
	d, err := ReadDrills(data)
	if err != nil || d.Agents["ada"].OK || d.Agents["ada"].Reason == "" {
		t.Errorf("recorded drill of ada: %+v, %v; want a failure with its reason", d.Agents["ada"], err)
	}
}

// TestDrillFileReplica: a drill against a file:// replica passes while
// the daemon runs; against a replica that is missing, or whose files are
// corrupted, it fails, says why, and leaves the live files alone.
func TestDrillFileReplica(t *testing.T) {
	needBinaries(t)
	replica := t.TempDir()
	data := drillWhileServing(t, testEnv("DORMOUSE_REPLICATION_URL=file://"+replica))

	empty := testEnv("DORMOUSE_REPLICATION_URL=file://" + t.TempDir())
	failingDrill(t, empty, data, "litestream")
	q := serve(t, data, empty)
	wantDegraded(t, q.addr, `agent "ada"'s last restore drill`)
	if err := q.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-q.exited

	n := 0
	err := filepath.WalkDir(replica, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		return os.WriteFile(path, bytes.Repeat([]byte{0x5a}, len(b)), 0o600)
	})
	if err != nil || n == 0 {
		t.Fatalf("corrupt the replica: %v (%d files)", err, n)
	}
	failingDrill(t, testEnv("DORMOUSE_REPLICATION_URL=file://"+replica), data, "FAILED")
}

// TestDrillS3Replica: a drill against the loopback S3 server passes.
func TestDrillS3Replica(t *testing.T) {
	needBinaries(t)
	s := startS3(t)
	start := time.Now()
	drillWhileServing(t, s.env("pi-drill"))
	t.Logf("took %v", time.Since(start).Round(time.Millisecond))
}

// wantDegraded wants /health degraded with a reason containing want.
func wantDegraded(t *testing.T, addr, want string) {
	t.Helper()
	var h struct {
		State   string
		Reasons []string
	}
	resp, err := client.Get("http://" + addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if err != nil || h.State != "degraded" || !strings.Contains(strings.Join(h.Reasons, "; "), want) {
		t.Errorf("/health: %v, %s %v; want degraded saying %q", err, h.State, h.Reasons, want)
	}
}
