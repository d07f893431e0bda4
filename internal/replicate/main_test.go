package replicate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests run the real programs: dormouse serve, built from this tree,
// with the pinned Litestream built beside it (where serve looks first).
var (
	binDir     string
	dormouse   string
	litestream string
	noConfig   string // so that no test reads the host's /etc/dormouse
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dormouse-replicate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir, dormouse, litestream = dir, filepath.Join(dir, "dormouse"), filepath.Join(dir, "litestream")
	noConfig = filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(noConfig, nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildBinaries builds dormouse and Litestream (the version
// internal/replicate/tools/litestream/go.mod pins) once, for the tests that run them.
var buildBinaries = sync.OnceValue(func() error {
	for _, b := range []struct{ dir, out, pkg string }{
		{"../..", dormouse, "./cmd/dormouse"},
		{"tools/litestream", litestream, "github.com/benbjohnson/litestream/cmd/litestream"},
	} {
		cmd := exec.Command("go", "build", "-trimpath", "-o", b.out, b.pkg)
		cmd.Dir, cmd.Env = b.dir, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
})

func needBinaries(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs dormouse and litestream for tens of seconds (not with -short)")
	}
	if err := buildBinaries(); err != nil {
		t.Fatal(err)
	}
}

// testEnv is the environment of the programs the tests run: no DORMOUSE_*
// of the host's, and no AWS_CA_BUNDLE (this machine's names a bundle the
// AWS SDK's configuration loader fails on), plus extra.
func testEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DORMOUSE_") || strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "NOTIFY_SOCKET=") ||
			strings.HasPrefix(kv, "STATE_DIRECTORY=") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "DORMOUSE_CONFIG="+noConfig), extra...)
}

type serveProc struct {
	cmd    *exec.Cmd
	addr   string
	log    *lockedBuffer
	exited chan error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var listeningRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// serve starts dormouse serve on data and a free port, and waits until it
// listens.
func serve(t testing.TB, data string, env []string) *serveProc {
	t.Helper()
	cmd := exec.Command(dormouse, "serve", "--addr", "127.0.0.1:0", "--data", data)
	cmd.Env = env
	pr, pw := io.Pipe()
	p := &serveProc{cmd: cmd, log: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = io.MultiWriter(pw, p.log)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- cmd.Wait(); pw.Close() }()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case p.addr = <-found:
	case err := <-p.exited:
		t.Fatalf("dormouse serve exited before listening: %v\n%s", err, p.log.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("dormouse serve did not start:\n%s", p.log.String())
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

var litestreamPIDRE = regexp.MustCompile(`msg="litestream started" pid=(\d+)`)

// litestreamPID is the pid of the newest Litestream serve started.
func (p *serveProc) litestreamPID(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := litestreamPIDRE.FindAllStringSubmatch(p.log.String(), -1); m != nil {
			pid, _ := strconv.Atoi(m[len(m)-1][1])
			return pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("serve never said it started litestream:\n%s", p.log.String())
	return 0
}

func (p *serveProc) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.exited
}

// gone waits until the process pid has exited (a zombie counts).
func gone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if f := strings.Fields(string(b)); len(f) > 2 && (f[2] == "Z" || f[2] == "X") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("process %d still runs after %v", pid, within)
}

var client = &http.Client{Timeout: 30 * time.Second}

// remember stores one memory and returns its id, or 0 if the daemon did
// not acknowledge it.
func remember(addr, agent, content string) int64 {
	body := fmt.Sprintf(`{"content":%q}`, content)
	resp, err := client.Post("http://"+addr+"/v1/agents/"+agent+"/memories", "application/json", strings.NewReader(body))
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var out struct{ IDs []int64 }
	if resp.StatusCode != http.StatusCreated || json.NewDecoder(resp.Body).Decode(&out) != nil || len(out.IDs) != 1 {
		return 0
	}
	return out.IDs[0]
}

// contents lists every memory of agent, id -> content.
func contents(t *testing.T, addr, agent string) map[int64]string {
	t.Helper()
	got := map[int64]string{}
	cursor := ""
	for {
		resp, err := client.Get("http://" + addr + "/v1/agents/" + agent + "/memories?limit=1000&cursor=" + cursor)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Memories []struct {
				ID      int64
				Content string
			}
			NextCursor string `json:"next_cursor"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("list %s's memories: %d, %v", agent, resp.StatusCode, err)
		}
		for _, m := range page.Memories {
			got[m.ID] = m.Content
		}
		if page.NextCursor == "" {
			return got
		}
		cursor = page.NextCursor
	}
}

// dormouseCmd runs the dormouse CLI and returns its output.
func dormouseCmd(t testing.TB, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(dormouse, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
