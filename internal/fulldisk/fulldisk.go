// Package fulldisk gives tests a real file system that runs out of space: a
// small tmpfs mounted in a temporary directory, and a filler that uses it up.
package fulldisk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new temporary directory and
// unmounts it when the test ends. Mounting needs root (CI runs as root):
// where it is not permitted the test is skipped, saying why.
func Mount(tb testing.TB, size int64) string {
	tb.Helper()
	dir := tb.TempDir()
	opts := fmt.Sprintf("size=%d,mode=0700", size)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		tb.Skipf("skipped: a full disk needs a small tmpfs, and mounting one at %s is not permitted here (%v); run as root to include this test", dir, err)
	}
	tb.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			tb.Errorf("unmount the test tmpfs at %s: %v", dir, err)
		}
	})
	return dir
}

// Fill writes a filler file into dir until its file system has no space
// left, and returns the function that removes it again.
func Fill(tb testing.TB, dir string) (free func()) {
	tb.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		tb.Fatalf("fill %s: %v", dir, err)
	}
	defer f.Close()
	chunk := make([]byte, 4096) // a tmpfs page: the last partial page is used up too
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				tb.Fatalf("fill %s: %v", dir, err)
			}
			break
		}
	}
	return func() {
		if err := os.Remove(path); err != nil {
			tb.Fatalf("free %s: %v", dir, err)
		}
	}
}
