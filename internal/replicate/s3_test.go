package replicate

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/proctest"
)

// versitygw is a real S3 server (github.com/versity/versitygw, Apache-2.0,
// pinned in internal/replicate/tools/versitygw/go.mod) on loopback, over a posix directory.
type s3Server struct {
	endpoint, bucket, access, secret string
	bin, addr, root, side            string
	cmd                              *exec.Cmd
	log                              *proctest.Buffer
}

var buildVersitygw = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("DORMOUSE_VERSITYGW"); p != "" {
		return p, nil
	}
	out := filepath.Join(binDir, "versitygw")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/versity/versitygw/cmd/versitygw")
	cmd.Dir, cmd.Env = "tools/versitygw", append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build versitygw (internal/replicate/tools/versitygw): %v\n%s", err, b)
	}
	return out, nil
})

// startS3 runs versitygw for the test and creates a bucket. Without it the
// test skips loudly, and fails under CI=true, where .ci/run provides Go and
// the module proxy.
func startS3(t testing.TB) *s3Server {
	t.Helper()
	bin, err := buildVersitygw()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skipf("!!! S3 replication NOT tested: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &s3Server{endpoint: "http://" + addr, bucket: "dormouse-replicas", access: "test-access-key", secret: "test-secret-key-0123456789",
		bin: bin, addr: addr, root: t.TempDir(), side: t.TempDir(), log: &proctest.Buffer{}}
	s.start(t)
	t.Cleanup(func() { s.stop(t) })
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, s.endpoint+"/"+s.bucket, nil)
	signV4(req, s3Cred{id: s.access, secret: s.secret}, "us-east-1", time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create bucket: %s\n%s", resp.Status, s.log.String())
	}
	return s
}

// start runs versitygw on s's address and directories and waits until it
// listens: after a stop, the same store comes back with what it held.
func (s *s3Server) start(t testing.TB) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "--access", s.access, "--secret", s.secret, "--port", s.addr, "--quiet", "posix", "--sidecar", s.side, s.root)
	s.cmd.Env = testEnv()
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", s.addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw never listened on %s:\n%s", s.addr, s.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills versitygw: the store becomes unreachable.
func (s *s3Server) stop(t testing.TB) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// env is what the daemon and the CLI get to replicate into the bucket.
func (s *s3Server) env(prefix string) []string {
	return testEnv("DORMOUSE_REPLICATION_URL=s3://"+s.bucket+"/"+prefix,
		"DORMOUSE_REPLICATION_ENDPOINT="+s.endpoint, "DORMOUSE_REPLICATION_REGION=us-east-1",
		"DORMOUSE_REPLICATION_PATH_STYLE=true",
		"AWS_ACCESS_KEY_ID="+s.access, "AWS_SECRET_ACCESS_KEY="+s.secret)
}

// TestCardLossS3Replica: the dead card against a real S3 server.
func TestCardLossS3Replica(t *testing.T) {
	needBinaries(t)
	s := startS3(t)
	cardLoss(t, s.env("pi-kitchen"), s.secret)
}

// TestDoctorChecksTheReplica: dormouse doctor lists the bucket with the
// configured credentials, and says to fix them when they are wrong,
// without printing the secret.
func TestDoctorChecksTheReplica(t *testing.T) {
	needBinaries(t)
	s := startS3(t)
	check := func(env []string) map[string]string {
		cmd := exec.Command(dormouse, "doctor", "--data", t.TempDir(), "--json")
		cmd.Env = env
		b, _ := cmd.Output() // exits 1 when any check fails; stdout is the JSON
		out := string(b)
		var res struct {
			Checks []struct{ Name, Status, Detail, Fix string }
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("doctor --json: %v\n%s", err, out)
		}
		if strings.Contains(out, s.secret) || strings.Contains(out, "wrong-secret") {
			t.Errorf("doctor prints the secret key:\n%s", out)
		}
		for _, c := range res.Checks {
			if c.Name == "replication" {
				return map[string]string{"status": c.Status, "fix": c.Fix, "detail": c.Detail}
			}
		}
		t.Fatalf("doctor has no replication check:\n%s", out)
		return nil
	}
	if got := check(s.env("pi-den")); got["status"] != "ok" {
		t.Errorf("with the right keys: %v", got)
	}
	bad := append(s.env("pi-den"), "AWS_SECRET_ACCESS_KEY=wrong-secret")
	if got := check(bad); got["status"] != "fail" || !strings.Contains(got["fix"], "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("with a wrong secret: %v; want a failure whose fix names the credentials", got)
	}
}
