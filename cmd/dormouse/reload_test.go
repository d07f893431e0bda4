package main

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/auth"
)

// TestSIGHUPReloadsTokens sends SIGHUP to the running binary: it keeps
// serving and takes the token list of the edited file; a broken file on the
// next SIGHUP is refused with a logged error, and the daemon keeps serving
// with the configuration it had.
func TestSIGHUPReloadsTokens(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "dormouse.yaml")
	writeTokens := func(token string) {
		t.Helper()
		yaml := "auth:\n  tokens:\n    - name: t\n      sha256: " + auth.Hash(token) + "\n      agents: [\"*\"]\n      access: write\n"
		if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	oldTok, newTok := "dm_old-token-for-the-reload-test", "dm_new-token-for-the-reload-test"
	writeTokens(oldTok)
	notes := notifySocket(t)
	d := startDaemonArgs(t, []string{"--data", t.TempDir(), "--config", cfgPath}, "NOTIFY_SOCKET="+notes.path)
	status := func(token string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+d.addr+"/v1/agents", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET /v1/agents: %v\n%s", err, d.stderr.String())
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// hangUp sends SIGHUP and waits for systemd's reload handshake:
	// RELOADING=1 with MONOTONIC_USEC=, then READY=1; then for want in the log.
	hangUp := func(want string) {
		t.Helper()
		if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		notes.waitFor(t, d, "RELOADING=1\nMONOTONIC_USEC=")
		notes.waitFor(t, d, "READY=1")
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(d.stderr.String(), want) { // the log's pipe may lag the notification
			if time.Now().After(deadline) {
				t.Fatalf("no %q logged after SIGHUP:\n%s", want, d.stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	notes.waitFor(t, d, "READY=1")
	if code := status(oldTok); code != http.StatusOK {
		t.Fatalf("old token before the reload: %d", code)
	}

	writeTokens(newTok)
	hangUp("msg=reloaded")
	if code := status(newTok); code != http.StatusOK {
		t.Errorf("new token after the reload: %d, want 200", code)
	}
	if code := status(oldTok); code != http.StatusUnauthorized {
		t.Errorf("old token after the reload: %d, want 401", code)
	}

	if err := os.WriteFile(cfgPath, []byte("auth: [this is not\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hangUp("reload refused")
	if code := status(newTok); code != http.StatusOK {
		t.Errorf("after a broken file's SIGHUP: %d, want 200 with the configuration kept", code)
	}
}

// notes is a systemd notification socket.
type notes struct {
	path string
	msgs chan string
}

func notifySocket(t testing.TB) *notes {
	t.Helper()
	n := &notes{path: filepath.Join(t.TempDir(), "notify.sock"), msgs: make(chan string, 64)}
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: n.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sock.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			k, _, err := sock.ReadFromUnix(buf)
			if err != nil {
				return
			}
			n.msgs <- string(buf[:k])
		}
	}()
	return n
}

// waitFor waits for a notification containing want, failing if the daemon
// exits first.
func (n *notes) waitFor(t testing.TB, d *daemonProc, want string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m := <-n.msgs:
			if strings.Contains(m, want) {
				return
			}
		case err := <-d.exited:
			t.Fatalf("the daemon exited: %v\n%s", err, d.stderr.String())
		case <-timeout:
			t.Fatalf("no %q notification:\n%s", want, d.stderr.String())
		}
	}
}
