package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func insertOneMemory(t *testing.T, s *Store, agent, content string) {
	t.Helper()
	err := s.With(t.Context(), agent, true, func(a *Agent) error {
		_, err := a.Insert(t.Context(), []Memory{mem(content, "s")})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// backupTo is a Delete before-hook that copies the agent to dir/name.db.
func backupTo(ctx context.Context, dir string) func(*Agent) error {
	return func(a *Agent) error { return a.BackupTo(ctx, filepath.Join(dir, a.Name()+".db")) }
}

// TestDeleteRemovesEveryFileAndStaysDeleted: the typo'd agent goes, with
// its WAL and shared memory, after the hook has copied it; a later write
// does not bring it back, an explicit Create does (empty).
func TestDeleteRemovesEveryFileAndStaysDeleted(t *testing.T) {
	s := openTest(t, Options{})
	insertOneMemory(t, s, "mian", "typo agent memory")
	insertOneMemory(t, s, "main", "the real one")
	bdir := t.TempDir()
	removed, err := s.Delete(t.Context(), "mian", backupTo(t.Context(), bdir))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(s.Dir(), "mian.db")
	if len(removed) == 0 || removed[len(removed)-1] != db {
		t.Errorf("removed %q, want it to end with %s", removed, db)
	}
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there after delete (stat: %v)", p, err)
		}
	}
	if err := CheckFile(t.Context(), filepath.Join(bdir, "mian.db")); err != nil {
		t.Errorf("the hook's backup: %v", err)
	}
	if names, _ := s.Agents(); len(names) != 1 || names[0] != "main" {
		t.Errorf("agents after delete = %q, want [main]", names)
	}
	_, err = s.Acquire(t.Context(), "mian", true)
	var de *DeletedError
	if !errors.As(err, &de) || !errors.Is(err, ErrNoAgent) {
		t.Fatalf("a write to the deleted agent: err = %v, want a DeletedError (ErrNoAgent)", err)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused write created %s", db)
	}
	created, err := s.Create(t.Context(), "mian")
	if err != nil || !created {
		t.Fatalf("Create after delete = %v, %v; want true, nil", created, err)
	}
	a := acquire(t, s, "mian")
	if st, err := a.Stats(t.Context()); err != nil || st.Memories != 0 {
		t.Errorf("recreated agent: stats %+v, %v; want no memories", st, err)
	}
}

// TestDeleteWaitsForRequestsAndRefusesNewOnes: a request in flight is let
// finish before anything is closed; one arriving meanwhile is refused with
// ErrDeleting, not served by a closing agent.
func TestDeleteWaitsForRequestsAndRefusesNewOnes(t *testing.T) {
	s := openTest(t, Options{})
	insertOneMemory(t, s, "busy", "in use")
	held, err := s.Acquire(t.Context(), "busy", false)
	if err != nil {
		t.Fatal(err)
	}
	hookRan := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := s.Delete(t.Context(), "busy", func(*Agent) error { close(hookRan); return nil })
		done <- err
	}()
	for { // until Delete has begun: then every new request is refused
		a, err := s.Acquire(t.Context(), "busy", false)
		if errors.Is(err, ErrDeleting) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		s.Release(a)
	}
	select {
	case <-hookRan:
		t.Fatal("Delete went on while a request still held the agent")
	default:
	}
	if _, err := held.Stats(t.Context()); err != nil {
		t.Errorf("the request in flight failed: %v", err)
	}
	s.Release(held)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := s.Acquire(t.Context(), "busy", false); !errors.Is(err, ErrNoAgent) {
		t.Errorf("after delete: err = %v, want ErrNoAgent", err)
	}
}

// TestDeleteKeepsTheAgentWhenTheHookFails: no backup, no delete.
func TestDeleteKeepsTheAgentWhenTheHookFails(t *testing.T) {
	s := openTest(t, Options{})
	insertOneMemory(t, s, "kept", "still here")
	boom := errors.New("backup failed")
	if _, err := s.Delete(t.Context(), "kept", func(*Agent) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the hook's", err)
	}
	a := acquire(t, s, "kept")
	if st, err := a.Stats(t.Context()); err != nil || st.Memories != 1 {
		t.Errorf("after a failed delete: stats %+v, %v; want the one memory", st, err)
	}
}

// TestDeleteUnderConcurrentWrites: writers racing a delete each get a
// clear answer (stored, or the agent is being/was deleted), never another
// error, and no file is left behind.
func TestDeleteUnderConcurrentWrites(t *testing.T) {
	s := openTest(t, Options{})
	insertOneMemory(t, s, "racy", "first")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Go(func() {
			for j := range 8 {
				err := s.With(t.Context(), "racy", true, func(a *Agent) error {
					_, err := a.Insert(t.Context(), []Memory{mem("w"+string(rune('a'+i))+string(rune('a'+j)), "s")})
					return err
				})
				if err != nil && !errors.Is(err, ErrDeleting) && !errors.Is(err, ErrNoAgent) {
					errs <- err
				}
			}
		})
	}
	if _, err := s.Delete(t.Context(), "racy", func(*Agent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a concurrent write: %v", err)
	}
	matches, _ := filepath.Glob(filepath.Join(s.Dir(), "racy.db*"))
	for _, m := range matches {
		if filepath.Ext(m) != ".deleted" {
			t.Errorf("left behind: %s", m)
		}
	}
}

// TestExplicitCreate: with agents.create explicit a write names no new
// agent into being; Create does, once.
func TestExplicitCreate(t *testing.T) {
	s := openTest(t, Options{ExplicitCreate: true})
	_, err := s.Acquire(t.Context(), "new", true)
	var ne *NotCreatedError
	if !errors.As(err, &ne) || !errors.Is(err, ErrNoAgent) {
		t.Fatalf("write to a new agent: err = %v, want a NotCreatedError", err)
	}
	if names, _ := s.Agents(); len(names) != 0 {
		t.Errorf("agents = %q after a refused write, want none", names)
	}
	for i, want := range []bool{true, false} {
		created, err := s.Create(t.Context(), "new")
		if err != nil || created != want {
			t.Errorf("Create #%d = %v, %v; want %v", i+1, created, err, want)
		}
	}
	insertOneMemory(t, s, "new", "now it exists")
}
