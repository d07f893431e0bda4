package daemon_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// TestStartSweepsKilledBackups: a backup killed mid-way left a copy of its agent's size in the
// backups folder; the daemon's start deletes it, even for an agent never backed up again.
func TestStartSweepsKilledBackups(t *testing.T) {
	cfg := daemontest.Config(t.TempDir())
	killed := filepath.Join(cfg.BackupDir(), "gone", ".gone-20260101T000000.000Z.db.tmp")
	if err := os.MkdirAll(filepath.Dir(killed), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(killed, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := daemontest.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := os.Stat(killed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed backup's copy after start: %v, want it removed\n%s", err, d.Log())
	}
}
