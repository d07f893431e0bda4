package daemon

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestServeReleasesWhatItOpenedWhenStartUpFails: a listen address in use
// fails start-up after the store and every agent are open; the error names
// the address and the agent files are closed (no WAL left behind).
func TestServeReleasesWhatItOpenedWhenStartUpFails(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	st, err := store.Open(t.Context(), StoreOptions(cfg, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.With(t.Context(), "main", true, func(*store.Agent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	cfg.Listen = busy.Addr().String()

	err = Run(t.Context(), cfg, nil, quietLog())
	if err == nil || !strings.Contains(err.Error(), "listen on "+cfg.Listen) {
		t.Fatalf("Run on a busy address = %v; want the listen error", err)
	}
	wal, _ := filepath.Glob(filepath.Join(cfg.DataDir, "agents", "*-wal"))
	if len(wal) != 0 {
		t.Errorf("agent files left open after the failed start-up: %v", wal)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "agents", "main.db")); err != nil {
		t.Errorf("the agent's file: %v", err)
	}
}
