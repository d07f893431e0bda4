package backup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: dir, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func insert(t *testing.T, st *store.Store, agent string, n int, prefix string) {
	t.Helper()
	err := st.With(t.Context(), agent, true, func(a *store.Agent) error {
		for i := range n {
			c := fmt.Sprintf("%s memory %d", prefix, i)
			_, err := a.Insert(t.Context(), []store.Memory{{SessionID: "s", Timestamp: time.Now(), Role: "user",
				Content: c, ContentHash: c, Importance: 0.5}})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, st *store.Store, agent string) int64 {
	t.Helper()
	var n int64
	err := st.With(t.Context(), agent, false, func(a *store.Agent) error {
		s, err := a.Stats(t.Context())
		n = s.Memories
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// clock returns a Now that advances a minute per call.
func clock() func() time.Time {
	t := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Minute); return t }
}

func TestAgentKeepsNewestVerifiedBackups(t *testing.T) {
	st := openStore(t, t.TempDir())
	insert(t, st, "main", 20, "first")
	dir := filepath.Join(t.TempDir(), "backups")
	// A half-written copy of a run killed a moment ago: no run holds the directory, so it goes
	// before the next copy is written, however young.
	if err := os.MkdirAll(filepath.Join(dir, "main"), 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "main", ".main-20260101T000000.000Z.db.tmp")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}

	o := Options{Dir: dir, Keep: 3, Now: clock()}
	var made []string
	for range 5 {
		r, err := Agent(t.Context(), st, "main", o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Bytes == 0 {
			t.Errorf("backup %s: 0 bytes", r.Path)
		}
		made = append(made, r.Path)
	}
	list, err := List(dir, "main")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range list {
		got = append(got, b.Path)
		fi, err := os.Stat(b.Path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", b.Path, fi.Mode().Perm())
		}
		if err := store.CheckFile(t.Context(), b.Path); err != nil {
			t.Error(err)
		}
	}
	if want := made[2:]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kept %v\nwant the newest 3 %v", got, want)
	}
	for _, d := range []string{dir, filepath.Join(dir, "main")} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale half-written copy still there: %v", err)
	}
}

// TestSweepRemovesKilledCopies: at start-up the daemon deletes every killed backup's copy, of
// agents never backed up again too, and leaves a running backup's copy and the backups.
func TestSweepRemovesKilledCopies(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string) string {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 64<<10), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	killed := write("gone/.gone-20260101T000000.000Z.db.tmp")
	kept := write("main/main-20260101T000000.000Z.db")
	running := write("busy/.busy-20260101T000000.000Z.db.tmp")
	unlock, err := lockDir(filepath.Join(dir, "busy"), syscall.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	removed, err := Sweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(removed) != fmt.Sprint([]string{killed}) {
		t.Errorf("Sweep removed %v, want only %s", removed, killed)
	}
	for _, p := range []string{kept, running} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v, want it kept", p, err)
		}
	}
	if removed, err := Sweep(filepath.Join(dir, "none")); removed != nil || err != nil {
		t.Errorf("Sweep of no folder = %v, %v; want nothing", removed, err)
	}
}

func TestAllBacksUpEveryAgent(t *testing.T) {
	st := openStore(t, t.TempDir())
	for _, a := range []string{"alpha", "beta", "gamma"} {
		insert(t, st, a, 3, a)
	}
	dir := t.TempDir()
	res, err := All(t.Context(), st, Options{Dir: dir, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results, want 3: %+v", len(res), res)
	}
	for _, r := range res {
		if filepath.Dir(r.Path) != filepath.Join(dir, r.Agent) {
			t.Errorf("%s backed up to %s", r.Agent, r.Path)
		}
	}
}

func TestAgentRefusesBadNamesAndMissingAgents(t *testing.T) {
	st := openStore(t, t.TempDir())
	dir := t.TempDir()
	for _, name := range []string{"../etc", "", "Main", "a/b"} {
		if _, err := Agent(t.Context(), st, name, Options{Dir: dir}); err == nil {
			t.Errorf("Agent(%q) succeeded", name)
		}
	}
	if _, err := Agent(t.Context(), st, "ghost", Options{Dir: dir}); !errors.Is(err, store.ErrNoAgent) {
		t.Errorf("Agent(ghost) = %v, want ErrNoAgent", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "ghost")); len(entries) != 0 {
		t.Errorf("files left for a missing agent: %v", entries)
	}
}

func TestRestore(t *testing.T) {
	data := t.TempDir()
	bdir := filepath.Join(t.TempDir(), "backups")
	st := openStore(t, data)
	insert(t, st, "main", 10, "kept")
	r, err := Agent(t.Context(), st, "main", Options{Dir: bdir, Keep: 5})
	if err != nil {
		t.Fatal(err)
	}
	insert(t, st, "main", 5, "after the backup")
	agentFile := filepath.Join(data, "agents", "main.db")

	// Refused while the agent is open (as in a running daemon); nothing changes.
	_, err = Restore(t.Context(), RestoreOptions{DataDir: data, Agent: "main", BackupDir: bdir})
	if !errors.Is(err, store.ErrInUse) {
		t.Fatalf("Restore while open: %v, want ErrInUse", err)
	}
	if n := count(t, st, "main"); n != 15 {
		t.Fatalf("after a refused restore the agent has %d memories, want 15", n)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// A corrupt backup is refused before anything is touched.
	bad := filepath.Join(t.TempDir(), "bad.db")
	if err := os.WriteFile(bad, []byte("not a database at all, but long enough to look like a header......"), 0o600); err != nil {
		t.Fatal(err)
	}
	var ie *store.IntegrityError
	if _, err := Restore(t.Context(), RestoreOptions{DataDir: data, Agent: "main", From: bad}); !errors.As(err, &ie) {
		t.Fatalf("Restore of a corrupt file: %v, want an IntegrityError", err)
	}

	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	res, err := Restore(t.Context(), RestoreOptions{DataDir: data, Agent: "main", BackupDir: bdir, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if res.From != r.Path || res.To != agentFile {
		t.Errorf("restored %s to %s, want the newest backup %s to %s", res.From, res.To, r.Path, agentFile)
	}
	aside := agentFile + ".replaced-20260302T090000.000Z"
	if len(res.Aside) == 0 || res.Aside[0] != aside {
		t.Fatalf("aside = %v, want %s first", res.Aside, aside)
	}
	fi, err := os.Stat(agentFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("restored file mode %v, want 0600", fi.Mode().Perm())
	}

	st2 := openStore(t, data)
	if n := count(t, st2, "main"); n != 10 {
		t.Errorf("restored agent has %d memories, want the backup's 10", n)
	}
	if agents, _ := st2.Agents(); fmt.Sprint(agents) != "[main]" {
		t.Errorf("agents after restore = %v, want [main] (the aside file is no agent)", agents)
	}
	// The replaced file is intact beside it: 15 memories.
	if err := store.CheckFile(t.Context(), aside); err != nil {
		t.Fatal(err)
	}
	side := t.TempDir()
	if err := os.MkdirAll(filepath.Join(side, "agents"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(aside, filepath.Join(side, "agents", "old.db")); err != nil {
		t.Fatal(err)
	}
	if n := count(t, openStore(t, side), "old"); n != 15 {
		t.Errorf("replaced file has %d memories, want 15", n)
	}
}

func TestRestoreWithoutBackups(t *testing.T) {
	_, err := Restore(context.Background(), RestoreOptions{DataDir: t.TempDir(), Agent: "main", BackupDir: t.TempDir()})
	if err == nil {
		t.Fatal("Restore with no backups succeeded")
	}
}
