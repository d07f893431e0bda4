// Package proctest runs the real dormouse binary for tests: a hermetic
// environment, `dormouse serve` on a free loopback port, and its log.
package proctest

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env is the environment of a program a test runs: the host's without
// its DORMOUSE_* and AWS_* settings (this machine's AWS_CA_BUNDLE names a
// bundle the AWS SDK's loader fails on) and systemd's variables, with
// DORMOUSE_CONFIG=config (an empty file: no test reads /etc/dormouse),
// then extra.
func Env(config string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DORMOUSE_") || strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "NOTIFY_SOCKET=") ||
			strings.HasPrefix(kv, "STATE_DIRECTORY=") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "DORMOUSE_CONFIG="+config), extra...)
}

// Buffer is a bytes.Buffer safe for a process's output and a test's reads.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Proc is a running dormouse serve.
type Proc struct {
	Cmd    *exec.Cmd
	Addr   string     // host:port it listens on
	Log    *Buffer    // its standard error
	Exited chan error // receives Wait's result once
}

var listeningRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// Serve runs `bin serve --addr 127.0.0.1:0 args...` with env and waits
// (at most within) until it logs that it listens. The test's end kills it
// if it still runs.
func Serve(tb testing.TB, bin string, args, env []string, within time.Duration) *Proc {
	tb.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	pr, pw := io.Pipe()
	p := &Proc{Cmd: cmd, Log: &Buffer{}, Exited: make(chan error, 1)}
	cmd.Stderr = io.MultiWriter(pw, p.Log)
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { p.Exited <- cmd.Wait(); pw.Close() }()
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
	case p.Addr = <-found:
	case err := <-p.Exited:
		tb.Fatalf("dormouse serve exited before listening: %v\n%s", err, p.Log.String())
	case <-time.After(within):
		cmd.Process.Kill()
		tb.Fatalf("dormouse serve did not listen within %v:\n%s", within, p.Log.String())
	}
	tb.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-p.Exited
		}
	})
	return p
}
