package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// TestBackupToWhileWriting backs up an agent while another goroutine keeps
// inserting: the copy is a consistent snapshot that passes integrity_check,
// holds at least what was committed before it started, and opens as an
// agent of its own.
func TestBackupToWhileWriting(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	for i := range 200 {
		if _, err := a.Insert(t.Context(), []Memory{mem(fmt.Sprintf("before backup %d", i), "s")}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := a.Insert(ctx, []Memory{mem(fmt.Sprintf("during backup %d", i), "s")}); err != nil && ctx.Err() == nil {
				t.Error(err)
				return
			}
		}
	}()
	dir := t.TempDir()
	path := filepath.Join(dir, "copy.db")
	err := a.BackupTo(t.Context(), path)
	stop()
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", fi.Mode().Perm())
	}
	if err := CheckFile(t.Context(), path); err != nil {
		t.Fatalf("CheckFile(backup): %v", err)
	}
	if err := a.IntegrityCheck(t.Context()); err != nil {
		t.Fatalf("IntegrityCheck(live): %v", err)
	}
	// The copy is an agent file: open it as one and count.
	if err := os.Rename(path, filepath.Join(dir, "agents", "restored.db")); err != nil {
		if err := os.MkdirAll(filepath.Join(dir, "agents"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path, filepath.Join(dir, "agents", "restored.db")); err != nil {
			t.Fatal(err)
		}
	}
	s2 := openTest(t, Options{Dir: dir})
	st, err := acquire(t, s2, "restored").Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories < 200 {
		t.Errorf("backup holds %d memories, want at least the 200 committed before it", st.Memories)
	}
}

func TestBackupToRefusesExistingFile(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.BackupTo(t.Context(), path); !errors.Is(err, os.ErrExist) {
		t.Fatalf("BackupTo over an existing file: err = %v, want ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Errorf("existing file changed to %q", b)
	}
}

func TestCheckFileRejects(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	for i := range 500 {
		if _, err := a.Insert(t.Context(), []Memory{mem(fmt.Sprintf("memory number %d with some words to fill pages", i), "s")}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	if err := a.BackupTo(t.Context(), good); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Overwrite the middle pages (table and index b-tree pages of the
	// memories) with a pattern: structure that integrity_check must notice.
	corrupt := append([]byte(nil), b...)
	for i := len(corrupt) / 3; i < 2*len(corrupt)/3; i++ {
		corrupt[i] = byte(i * 7)
	}
	other := filepath.Join(dir, "other.db")

	tests := []struct {
		name      string
		path      string
		integrity bool // want an *IntegrityError
	}{
		{"missing", filepath.Join(dir, "nope.db"), false},
		{"not sqlite", write("text.db", []byte("this is not a database, just text that is long enough to have a header maybe")), true},
		{"corrupt pages", write("corrupt.db", corrupt), true},
		{"truncated", write("truncated.db", b[:len(b)/2]), true},
		{"empty", write("empty.db", nil), false},
		{"other sqlite", other, false},
	}
	if err := writeOtherSQLite(other); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFile(t.Context(), tt.path)
			if err == nil {
				t.Fatal("CheckFile accepted it")
			}
			var ie *IntegrityError
			if got := errors.As(err, &ie); got != tt.integrity {
				t.Errorf("CheckFile = %v; IntegrityError %v, want %v", err, got, tt.integrity)
			}
		})
	}
	if err := CheckFile(t.Context(), good); err != nil {
		t.Errorf("CheckFile(good) = %v", err)
	}
}

// writeOtherSQLite writes a healthy SQLite file that is not an agent's.
func writeOtherSQLite(path string) error {
	db, err := sqlite3.Open("file:" + path)
	if err != nil {
		return err
	}
	if err := db.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)"); err != nil {
		_ = db.Close()
		return err
	}
	return db.Close()
}

func TestQuiesce(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, Options{Dir: dir})
	path := filepath.Join(dir, "agents", "main.db")
	a, err := s.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Insert(t.Context(), []Memory{mem("held open", "s")}); err != nil {
		t.Fatal(err)
	}
	if err := Quiesce(t.Context(), path); !errors.Is(err, ErrInUse) {
		t.Fatalf("Quiesce while the store has the agent open: %v, want ErrInUse", err)
	}
	s.Release(a)
	s.closeIdle(time.Now().Add(time.Hour)) // close it as the janitor would
	if got := s.OpenAgents(); len(got) != 0 {
		t.Fatalf("agents still open: %v", got)
	}
	if err := Quiesce(t.Context(), path); err != nil {
		t.Fatalf("Quiesce after close: %v", err)
	}
	if err := Quiesce(t.Context(), filepath.Join(dir, "agents", "none.db")); err != nil {
		t.Fatalf("Quiesce of a missing file: %v", err)
	}
	if err := CheckFile(t.Context(), path); err != nil {
		t.Fatal(err)
	}
}

func TestRunTotals(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	empty, err := a.RunTotals(t.Context(), []int64{100, 1000})
	if err != nil {
		t.Fatal(err)
	}
	if empty.Count != 0 || len(empty.ByStatus) != 0 || empty.Buckets[1] != 0 {
		t.Errorf("no runs: %+v", empty)
	}
	for _, r := range []Run{
		{Day: "2026-02-01", Status: RunOK, TokensIn: 100, TokensOut: 10, DurationMS: 50},
		{Day: "2026-02-02", Status: RunOK, TokensIn: 200, TokensOut: 20, DurationMS: 500},
		{Day: "2026-02-03", Status: RunFailed, TokensIn: 7, DurationMS: 5000},
	} {
		r.StartedAt, r.FinishedAt = testTime, testTime
		if _, err := a.RecordRun(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.RunTotals(t.Context(), []int64{100, 1000})
	if err != nil {
		t.Fatal(err)
	}
	if got.ByStatus[RunOK] != 2 || got.ByStatus[RunFailed] != 1 || got.TokensIn != 307 || got.TokensOut != 30 ||
		got.Count != 3 || got.SumMS != 5550 || fmt.Sprint(got.Buckets) != "[1 2]" {
		t.Errorf("totals %+v", got)
	}
}
