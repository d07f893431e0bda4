package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestIntegrityNamesTheRestore: next to a good agent, a garbage-filled file
// and a truncated one (which has a backup) fail the integrity check, and the
// fix names the restore command and the backup it would restore, or says
// there is none.
func TestIntegrityNamesTheRestore(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	st, err := store.Open(t.Context(), store.Options{Dir: cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"good", "garbage", "truncated"} {
		err := st.With(t.Context(), name, true, func(a *store.Agent) error {
			for i := range 300 {
				if _, err := a.Insert(t.Context(), []store.Memory{{Timestamp: time.Now(), Role: "user",
					Content: fmt.Sprintf("memory %d with words to fill some pages", i), ContentHash: fmt.Sprint(i)}}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := backup.Agent(t.Context(), st, "truncated", backup.Options{Dir: cfg.BackupDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(cfg.DataDir, "agents")
	data, err := os.ReadFile(filepath.Join(agents, "truncated.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "truncated.db"), data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "garbage.db"), []byte(strings.Repeat("garbage ", 8192)), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := checkIntegrity(t.Context(), Options{Config: cfg, Store: store.Options{Dir: cfg.DataDir}}, true)
	for _, c := range cs {
		t.Logf("%-20s %-4s %s | %s", c.Name, c.Status, c.Detail, c.Fix)
	}
	if c := find(cs, "integrity good"); c.Status != OK {
		t.Errorf("good agent: %+v, want ok", c)
	}
	g := find(cs, "integrity garbage")
	if g.Status != Fail || !strings.Contains(g.Fix, "dormouse restore --agent garbage") || !strings.Contains(g.Fix, "no backup") {
		t.Errorf("garbage agent: %+v, want fail naming the restore command and that there is no backup", g)
	}
	tr := find(cs, "integrity truncated")
	if tr.Status != Fail || !strings.Contains(tr.Fix, "dormouse restore --agent truncated") || !strings.Contains(tr.Fix, b.Path) {
		t.Errorf("truncated agent: %+v, want fail naming the restore command and the backup %s", tr, b.Path)
	}
}
