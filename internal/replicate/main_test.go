package replicate

import (
	"encoding/json"
	"fmt"
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

	"github.com/dormouse-dev/dormouse/internal/proctest"
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

// testEnv is the environment of the programs the tests run
// (proctest.Env), plus extra.
func testEnv(extra ...string) []string { return proctest.Env(noConfig, extra...) }

type serveProc struct {
	cmd    *exec.Cmd
	addr   string
	log    *proctest.Buffer
	exited chan error
}

// serve starts dormouse serve on data and a free port, and waits until it
// listens.
func serve(t testing.TB, data string, env []string) *serveProc {
	t.Helper()
	p := proctest.Serve(t, dormouse, []string{"--data", data}, env, 60*time.Second)
	return &serveProc{cmd: p.Cmd, addr: p.Addr, log: p.Log, exited: p.Exited}
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
