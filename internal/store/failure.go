package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/ncruces/go-sqlite3"
)

// ErrUnavailable is wrapped by every *UnavailableError.
var ErrUnavailable = errors.New("agent is unavailable")

// UnavailableError is an agent whose file SQLite finds corrupt or not a
// database, at start-up or on a later query. The agent stays unavailable
// until the daemon restarts: a restore replaces the file, and needs the
// daemon stopped, so the message says how.
type UnavailableError struct {
	Agent string
	Path  string
	Err   error // SQLite's verdict
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("agent %q is unavailable: its file is corrupt (%v); restore it from a backup: "+
		"stop the daemon, run `dormouse restore --agent %s`, then start it again", e.Agent, e.Err, e.Agent)
}

func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// minFreeBytes is the free space below which an I/O error is taken for a
// full disk (see isFull).
const minFreeBytes = 1 << 20

// isFull reports whether err means the storage is full: SQLite's "database
// or disk is full", the system's ENOSPC or EDQUOT, or an I/O error while the
// file system holding dir has (almost) no space left. The last is needed
// because ncruces' VFS reports most ENOSPC failures (a write that returns an
// *os.PathError, an fallocate of the -shm file) as SQLITE_IOERR_WRITE or
// SQLITE_IOERR_SHMSIZE, and the system error is usually gone by the time
// the statement returns.
func isFull(err error, dir string) bool {
	switch {
	case err == nil, errors.Is(err, ErrFull):
		return false
	case errors.Is(err, sqlite3.FULL), errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return true
	}
	return errors.Is(err, sqlite3.IOERR) && noSpace(dir)
}

// noSpace reports whether dir's file system has less than minFreeBytes
// left for this process; false when it cannot be measured.
func noSpace(dir string) bool {
	avail, ok := freeBytes(dir) // retention.go
	return ok && avail < minFreeBytes
}

// isCorrupt reports whether err is SQLite saying the file is not a database
// or is malformed.
func isCorrupt(err error) bool {
	return errors.Is(err, sqlite3.NOTADB) || errors.Is(err, sqlite3.CORRUPT)
}

// classify turns a storage failure of the agent into the store's typed
// errors: ErrFull for a full disk, *UnavailableError for a corrupt file
// (reported to the Store, which refuses the agent from then on). Other
// errors pass unchanged.
func (a *Agent) classify(err error) error {
	switch {
	case isFull(err, filepath.Dir(a.path)):
		return fmt.Errorf("%w: %v", ErrFull, err)
	case isCorrupt(err) && !errors.Is(err, ErrUnavailable):
		ue := &UnavailableError{Agent: a.name, Path: a.path, Err: err}
		if a.onCorrupt != nil {
			a.onCorrupt(ue)
		}
		return ue
	}
	return err
}
