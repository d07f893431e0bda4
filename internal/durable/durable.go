// Package durable writes files so that a power cut leaves either the old
// content or the new, never a torn file or a lost name.
package durable

import (
	"errors"
	"os"
	"path/filepath"
)

// WriteFile replaces path with b, mode 0600: written to a new file beside
// it, synced, renamed over it, and the directory synced. Two writers at once
// each write their own file; the last rename wins.
func WriteFile(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// SyncDir makes the names made or removed in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
