package main

// End-to-end tests of the real binary: the daemon under kill -9, systemd
// notification, graceful drain, configuration errors, and the CLI in both
// modes (through the daemon, and on the files with --data).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/proctest"
)

var (
	binary      string
	emptyConfig string // so no test reads the machine's /etc/dormouse
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dormouse-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "dormouse")
	emptyConfig = filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(emptyConfig, nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build dormouse: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// hermeticEnv keeps the host's DORMOUSE_* settings and systemd variables out.
func hermeticEnv(extra ...string) []string { return proctest.Env(emptyConfig, extra...) }

type daemonProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *proctest.Buffer
	exited chan error
}

// startDaemon runs `dormouse serve` on a free loopback port and waits until
// it logs that it listens.
func startDaemon(t testing.TB, dataDir string, env ...string) *daemonProc {
	t.Helper()
	return startDaemonArgs(t, []string{"--data", dataDir}, env...)
}

// startDaemonArgs is startDaemon with serve's arguments besides --addr.
func startDaemonArgs(t testing.TB, args []string, env ...string) *daemonProc {
	t.Helper()
	p := proctest.Serve(t, binary, args, hermeticEnv(env...), 30*time.Second)
	return &daemonProc{cmd: p.Cmd, addr: p.Addr, stderr: p.Log, exited: p.Exited}
}

func (d *daemonProc) stop(t testing.TB, sig syscall.Signal) error {
	t.Helper()
	if err := d.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-d.exited:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("daemon did not exit after %v:\n%s", sig, d.stderr.String())
		return nil
	}
}

// TestKill9LosesNoAcknowledgedMemory ingests from several clients, kills the
// daemon with SIGKILL mid-stream, restarts it and checks that every memory
// that got a 201 is there, twice over.
func TestKill9LosesNoAcknowledgedMemory(t *testing.T) {
	data := t.TempDir()
	var acked sync.Map // id -> content
	var total atomic.Int64
	for round := range 2 {
		d := startDaemon(t, data)
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		for c := range 4 {
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					content := fmt.Sprintf("round %d client %d memory %d about the garden", round, c, i)
					body := fmt.Sprintf(`{"memories":[{"content":%q},{"content":%q}]}`, content, content+" (second)")
					req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+d.addr+"/v1/agents/main/memories", strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return // the daemon is gone
					}
					var out struct{ IDs []int64 }
					err = json.NewDecoder(resp.Body).Decode(&out)
					resp.Body.Close()
					if resp.StatusCode == http.StatusCreated && err == nil {
						acked.Store(out.IDs[0], content)
						acked.Store(out.IDs[1], content+" (second)")
						total.Add(2)
					}
				}
			})
		}
		// Let writes flow, then kill while they are in flight.
		deadline := time.Now().Add(10 * time.Second)
		for total.Load() < int64(200*(round+1)) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-d.exited
		cancel()
		wg.Wait()
	}
	if total.Load() == 0 {
		t.Fatal("no memory was acknowledged")
	}

	d := startDaemon(t, data)
	missing := 0
	acked.Range(func(k, v any) bool {
		resp, err := http.Get(fmt.Sprintf("http://%s/v1/agents/main/memories/%d", d.addr, k.(int64)))
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Content string }
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != 200 || m.Content != v.(string) {
			missing++
			if missing < 5 {
				t.Errorf("acknowledged memory %d: status %d content %q, want %q", k, resp.StatusCode, m.Content, v)
			}
		}
		return true
	})
	if missing > 0 {
		t.Errorf("%d of %d acknowledged memories lost", missing, total.Load())
	}
	t.Logf("%d acknowledged memories across two kill -9s, %d missing", total.Load(), missing)
	checkRecoveryReported(t, d, data)
}

// checkRecoveryReported checks that d, started after a kill -9, said so in
// its log and checked the agents, and that a start after its clean stop
// reports nothing of the kind.
func checkRecoveryReported(t *testing.T, d *daemonProc, data string) {
	t.Helper()
	const checked = "recovered from an unclean stop: agents checked"
	waitFor(t, "the recovery's check", func() bool { return strings.Contains(d.stderr.String(), checked) })
	log := d.stderr.String()
	for _, want := range []string{"the last run did not stop cleanly", `cause="the process was killed or crashed"`, "failing=0"} {
		if !strings.Contains(log, want) {
			t.Errorf("log after a kill -9 lacks %q:\n%s", want, log)
		}
	}
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	clean := startDaemon(t, data)
	if err := clean.stop(t, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if log := clean.stderr.String(); strings.Contains(log, "did not stop cleanly") || strings.Contains(log, checked) {
		t.Errorf("a start after a clean stop reports a recovery:\n%s", log)
	}
}

// TestNotifyAndGracefulStop checks READY=1 arrives once the daemon serves,
// and SIGTERM sends STOPPING=1, drains, exits 0 and checkpoints the WAL.
func TestNotifyAndGracefulStop(t *testing.T) {
	sockPath := filepath.Join(t.TempDir(), "notify.sock")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sockPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	msgs := make(chan string, 16)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, _, err := sock.ReadFromUnix(buf)
			if err != nil {
				close(msgs)
				return
			}
			msgs <- string(buf[:n])
		}
	}()
	data := t.TempDir()
	d := startDaemon(t, data, "NOTIFY_SOCKET="+sockPath)
	waitFor := func(want string) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case m := <-msgs:
				if strings.Contains(m, want) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q notification", want)
			}
		}
	}
	waitFor("READY=1")
	// READY means serving: a request succeeds right away.
	resp, err := http.Post("http://"+d.addr+"/v1/agents/main/memories", "application/json", strings.NewReader(`{"content":"ready means ready"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("POST after READY: %d", resp.StatusCode)
	}
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("daemon exit after SIGTERM: %v\n%s", err, d.stderr.String())
	}
	waitFor("STOPPING=1")
	if fi, err := os.Stat(filepath.Join(data, "agents", "main.db-wal")); err == nil && fi.Size() != 0 {
		t.Errorf("WAL not checkpointed on shutdown: %d bytes", fi.Size())
	}
}

func run(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = hermeticEnv(env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestInvalidConfigExitsTwoNamingTheKey(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(cfg, []byte("storage:\n  synchronous: sometimes\n"), 0o600)
	cases := []struct {
		name string
		env  []string
		args []string
		key  string
	}{
		{"file", nil, []string{"serve", "--config", cfg, "--data", t.TempDir()}, "storage.synchronous"},
		{"env", []string{"DORMOUSE_LISTEN=nonsense"}, []string{"serve", "--data", t.TempDir()}, "listen"},
		{"flag", nil, []string{"serve", "--addr", "nonsense", "--data", t.TempDir()}, "listen"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, tc.env, "", tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.key) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %s", code, stderr, tc.key)
			}
		})
	}
	if _, _, code := run(t, nil, "", "recall", "--no-such-flag"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if _, _, code := run(t, nil, "", "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if out, _, code := run(t, nil, "", "recall", "--help"); code != 0 || !strings.Contains(out, "-budget") {
		t.Errorf("recall --help: exit %d, output %q", code, out)
	}
}

// TestCLIBothModes runs the same walk-through against a daemon and against
// the files directly.
func TestCLIBothModes(t *testing.T) {
	modes := []struct {
		name  string
		setup func(t *testing.T) []string // extra args
	}{
		{"daemon", func(t *testing.T) []string {
			d := startDaemon(t, t.TempDir())
			return []string{"--addr", d.addr}
		}},
		{"files", func(t *testing.T) []string { return []string{"--data", t.TempDir()} }},
	}
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			extra := mode.setup(t)
			cli := func(stdin string, args ...string) (string, string, int) {
				t.Helper()
				return run(t, nil, stdin, append(args, extra...)...)
			}
			out, stderr, code := cli("", "ingest", "--agent", "home", "--role", "user", "--at", "2026-02-01T10:00:00Z", "I", "am", "allergic", "to", "penicillin")
			if code != 0 || strings.TrimSpace(out) != "stored memory:1" {
				t.Fatalf("ingest args: exit %d out %q err %q", code, out, stderr)
			}
			out, stderr, code = cli("Bob moved the standup to 10:30\n", "ingest", "--agent", "home", "--session", "work", "--importance", "0.7")
			if code != 0 || strings.TrimSpace(out) != "stored memory:2" {
				t.Fatalf("ingest stdin: exit %d out %q err %q", code, out, stderr)
			}
			out, _, code = cli("", "ingest", "--agent", "home", "--role", "user", "--at", "2026-02-01T10:00:00Z", "I am allergic to penicillin")
			if code != 0 || strings.TrimSpace(out) != "already stored as memory:1" {
				t.Errorf("duplicate ingest: exit %d out %q", code, out)
			}
			out, _, code = cli("", "recall", "--agent", "home", "what am I allergic to?")
			if code != 0 || !strings.HasPrefix(out, "[memory:1] 2026-02-01 10:00 user: I am allergic to penicillin") {
				t.Errorf("recall: exit %d out %q", code, out)
			}
			out, _, code = cli("", "recall", "--agent", "home", "--json", "standup")
			var res struct {
				Items  []struct{ ID string } `json:"items"`
				Tokens int                   `json:"tokens"`
			}
			if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Items) != 1 || res.Items[0].ID != "memory:2" {
				t.Errorf("recall --json: exit %d out %q", code, out)
			}
			out, _, code = cli("", "list", "--agent", "home", "--json")
			var list struct {
				Memories []struct{ ID int64 } `json:"memories"`
			}
			if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list.Memories) != 2 {
				t.Errorf("list --json: exit %d out %q", code, out)
			}
			out, _, code = cli("", "show", "--agent", "home", "memory:2")
			if code != 0 || !strings.Contains(out, "session:") || !strings.Contains(out, "Bob moved the standup") {
				t.Errorf("show: exit %d out %q", code, out)
			}
			out, _, code = cli("", "forget", "--agent", "home", "1")
			if code != 0 || strings.TrimSpace(out) != "forgot memory:1" {
				t.Errorf("forget: exit %d out %q", code, out)
			}
			_, stderr, code = cli("", "show", "--agent", "home", "1")
			if code != 1 || !strings.Contains(stderr, "not found") {
				t.Errorf("show forgotten: exit %d stderr %q", code, stderr)
			}
			out, _, code = cli("", "recall", "--agent", "home", "penicillin")
			if code != 0 || strings.Contains(out, "penicillin") {
				t.Errorf("recall after forget: exit %d out %q", code, out)
			}
			out, _, code = cli("", "agents")
			if code != 0 || strings.TrimSpace(out) != "home" {
				t.Errorf("agents: exit %d out %q", code, out)
			}
			out, _, code = cli("", "status", "--json")
			var st struct {
				Agents []struct {
					Name  string
					Stats struct{ Memories int64 }
				}
			}
			if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || len(st.Agents) != 1 || st.Agents[0].Stats.Memories != 1 {
				t.Errorf("status --json: exit %d out %q", code, out)
			}
			_, stderr, code = cli("", "ingest", "--agent", "../etc", "hello")
			if code != 2 || !strings.Contains(stderr, "invalid agent name") {
				t.Errorf("hostile agent: exit %d stderr %q", code, stderr)
			}
			_, _, code = cli("", "ingest", "--agent", "home", "--importance", "7", "x")
			if code != 2 {
				t.Errorf("bad --importance: exit %d, want 2", code)
			}
		})
	}
}
