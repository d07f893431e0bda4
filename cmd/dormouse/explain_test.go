package main

// The CLI's messages for the mistakes a new user makes first: a listen
// address that is taken, and a data directory that belongs to someone else.

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestServeRefusedListenAddressExitsTwo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	_, stderr, code := run(t, nil, "", "serve", "--addr", addr, "--data", t.TempDir())
	want := "dormouse serve: cannot listen on " + addr + ": the address is already in use"
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--addr") {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q with what to change", code, stderr, want)
	}
}

// TestPermissionErrorNamesTheOwner runs the CLI as a user who may not enter
// the data directory: the error names the directory, its owner and what to do.
func TestPermissionErrorNamesTheOwner(t *testing.T) {
	data := filepath.Join(openDir(t), "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	owner, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "list", "--data", data)
	cmd.Env = hermeticEnv()
	if os.Geteuid() == 0 { // root passes any mode: be nobody
		dir := openDir(t) // t.TempDir's parent is root's alone
		bin, cfg := filepath.Join(dir, "dormouse"), filepath.Join(dir, "empty.yaml")
		copyExecutable(t, binary, bin)
		if err := os.WriteFile(cfg, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(bin, "list", "--data", data)
		cmd.Env = append(hermeticEnv(), "DORMOUSE_CONFIG="+cfg, "HOME=/")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	} else if err := os.Chmod(data, 0); err != nil {
		t.Fatal(err)
	} else {
		defer os.Chmod(data, 0o700)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, output %q; want exit 1", err, out)
	}
	for _, want := range []string{data, "owned by " + owner.Username + " (uid " + strconv.Itoa(os.Getuid()) + ")",
		"sudo -u " + owner.Username + " dormouse list", "or pass --data DIR"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	if n := strings.Count(string(out), "\n"); n != 1 {
		t.Errorf("%d lines, want one: %q", n, out)
	}
}

// openDir is a temporary directory anyone may enter.
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dormouse-open-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(to, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
}
