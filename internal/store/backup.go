package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// IntegrityError is a file that PRAGMA integrity_check did not call "ok".
type IntegrityError struct {
	Path     string
	Problems []string // the first few lines integrity_check returned
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("%s fails PRAGMA integrity_check: %s", e.Path, strings.Join(e.Problems, "; "))
}

// BackupTo writes a consistent copy of the agent's file to path with VACUUM
// INTO on a read connection, so writers carry on meanwhile (the copy is the
// snapshot the read transaction saw). path must not exist; it is created
// 0600 before SQLite writes into it. The copy is a plain database without a
// WAL, compacted.
func (a *Agent) BackupTo(ctx context.Context, path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("back up agent %q: %w", a.name, err)
	}
	_ = f.Close()
	err = a.read(ctx, func(c *conn) error { return c.execArgs(ctx, "VACUUM INTO ?", path) })
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("back up agent %q to %s: %w", a.name, path, err)
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check on the agent's file.
func (a *Agent) IntegrityCheck(ctx context.Context) error {
	var problems []string
	err := a.read(ctx, func(c *conn) error {
		var err error
		problems, err = integrity(ctx, c.db)
		return err
	})
	if err != nil {
		return fmt.Errorf("integrity check of agent %q: %w", a.name, err)
	}
	if problems != nil {
		return &IntegrityError{Path: a.path, Problems: problems}
	}
	return nil
}

// CheckFile opens the database at path read-only, as a file nobody else
// writes (a backup, or a file about to be restored), and runs PRAGMA
// integrity_check. It also requires Dormouse's schema (a user_version
// between 1 and the one this build knows), so that an unrelated SQLite file
// is not taken for an agent. An *IntegrityError reports corruption.
func CheckFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: "mode=ro&immutable=1"}
	db, err := sqlite3.OpenContext(ctx, u.String())
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	defer db.Close()
	if err := fts5.Register(db); err != nil {
		if isCorrupt(err) {
			return &IntegrityError{Path: path, Problems: []string{err.Error()}}
		}
		return fmt.Errorf("check %s: register fts5: %w", path, err)
	}
	problems, err := integrity(ctx, db)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if problems != nil {
		return &IntegrityError{Path: path, Problems: problems}
	}
	s, _, err := db.Prepare("PRAGMA user_version")
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	defer s.Close()
	v := 0
	if s.Step() {
		v = s.ColumnInt(0)
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if v < 1 || v > len(migrations) {
		return fmt.Errorf("check %s: not a Dormouse agent file this version can open (schema version %d, want 1 to %d)", path, v, len(migrations))
	}
	return nil
}

// integrity returns nil when integrity_check says "ok", else its first
// lines (at most 10).
func integrity(ctx context.Context, db *sqlite3.Conn) ([]string, error) {
	old := db.SetInterrupt(ctx)
	defer db.SetInterrupt(old)
	s, _, err := db.Prepare("PRAGMA integrity_check(10)")
	if err != nil {
		if isCorrupt(err) {
			return []string{err.Error()}, nil
		}
		return nil, err
	}
	defer s.Close()
	var lines []string
	for s.Step() {
		lines = append(lines, s.ColumnText(0))
	}
	if err := s.Err(); err != nil {
		if isCorrupt(err) {
			return []string{err.Error()}, nil
		}
		return nil, err
	}
	if len(lines) == 1 && lines[0] == "ok" {
		return nil, nil
	}
	if len(lines) == 0 {
		lines = []string{"no answer"}
	}
	return lines, nil
}

// ErrInUse is returned by Quiesce when another connection has the file open.
var ErrInUse = errors.New("agent file is open elsewhere")

// Quiesce makes sure nobody has the agent file at path open (a daemon, a
// nightly job): it takes SQLite's exclusive lock without waiting, which
// fails with ErrInUse while any other connection, in any process, holds the
// file, and folds a WAL left by a killed process back into the main file.
// A file that does not exist is fine. Used before the file is replaced.
func Quiesce(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	db, err := sqlite3.OpenContext(ctx, "file:"+path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	if err := db.BusyTimeout(0); err != nil {
		return err
	}
	err = db.Exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;")
	if isBusy(err) {
		return fmt.Errorf("%s: %w", path, ErrInUse)
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	if err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}
