package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/fulldisk"
)

// fillerBatch is ten memories of a few hundred bytes each, unique to i.
func fillerBatch(i int) []Memory {
	batch := make([]Memory, 10)
	for j := range batch {
		batch[j] = mem(fmt.Sprintf("memory %d-%d %s", i, j, strings.Repeat("filler words ", 20)), "")
	}
	return batch
}

// insertUntilFull inserts batches from many goroutines at once (so the
// writer groups them) until writes fail, and returns the contents of every
// acknowledged memory and the errors of the writes that failed.
func insertUntilFull(t *testing.T, a *Agent) (acked map[string]bool, failed []error) {
	t.Helper()
	acked = map[string]bool{}
	var mu sync.Mutex
	for round := 0; round < 200 && len(failed) == 0; round++ {
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				batch := fillerBatch(round*8 + g)
				_, err := a.Insert(t.Context(), batch)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failed = append(failed, err)
					return
				}
				for _, m := range batch {
					acked[m.Content] = true
				}
			})
		}
		wg.Wait()
	}
	return acked, failed
}

// storedContents is every memory's content in the agent.
func storedContents(t *testing.T, a *Agent) map[string]bool {
	t.Helper()
	hits, err := a.SearchMemories(t.Context(), SearchOptions{Terms: []string{"filler"}, Limit: 100000})
	if err != nil {
		t.Fatalf("read back after a full disk: %v", err)
	}
	got := map[string]bool{}
	for _, h := range hits {
		got[h.Text] = true
	}
	return got
}

// TestFullDiskIsErrFullAndLosesNothing fills a real file system (a tmpfs)
// under concurrent group commits: every failing write is ErrFull (the HTTP
// API's 507), none hangs, every acknowledged memory stays readable, and once
// space is free again writes succeed without reopening anything.
func TestFullDiskIsErrFullAndLosesNothing(t *testing.T) {
	dir := fulldisk.Mount(t, 4<<20)
	s := openTest(t, Options{Dir: dir})
	a := acquire(t, s, "main")
	if _, err := a.Insert(t.Context(), fillerBatch(-1)); err != nil {
		t.Fatal(err)
	}
	free := fulldisk.Fill(t, dir)
	acked, failed := insertUntilFull(t, a)
	if len(failed) == 0 {
		t.Fatal("the disk never filled up")
	}
	for _, err := range failed {
		if !errors.Is(err, ErrFull) {
			t.Errorf("a write on a full disk failed with %v, want ErrFull", err)
		}
	}
	got := storedContents(t, a)
	for c := range acked {
		if !got[c] {
			t.Errorf("acknowledged memory %.20q is gone after the disk filled", c)
		}
	}
	free()
	if _, err := a.Insert(t.Context(), fillerBatch(-2)); err != nil {
		t.Errorf("with space free again a write fails: %v", err)
	}
}

// TestOpenOnFullDisk opens an agent on a disk with no space left: it opens
// read-only, reads work and writes are ErrFull; once space is free the next
// write reopens it in place and succeeds, although the agent is held.
func TestOpenOnFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, 4<<20)
	s := openTest(t, Options{Dir: dir})
	err := s.With(t.Context(), "main", true, func(a *Agent) error {
		_, err := a.Insert(t.Context(), fillerBatch(0))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	free := fulldisk.Fill(t, dir)
	s = openTest(t, Options{Dir: dir})
	a, err := s.Acquire(t.Context(), "main", false)
	if err != nil {
		t.Fatalf("open an agent on a full disk: %v", err)
	}
	if got := storedContents(t, a); len(got) != 10 {
		t.Errorf("on a full disk %d memories are read, want 10", len(got))
	}
	if _, err := a.Insert(t.Context(), fillerBatch(1)); !errors.Is(err, ErrFull) {
		t.Errorf("a write on a full disk: err = %v, want ErrFull", err)
	}
	free()
	// Still held (as by a busy agent's requests): it is reopened in place.
	if _, err := a.Insert(t.Context(), fillerBatch(2)); err != nil {
		t.Errorf("with space free again a write fails: %v", err)
	}
	if got := storedContents(t, a); len(got) != 20 {
		t.Errorf("after reopening for writes %d memories are read, want 20", len(got))
	}
	if a.StorageFull() {
		t.Error("StorageFull after a write succeeded")
	}
	s.Release(a)
}

// TestCreateOnFullDisk: a new agent on a full disk is ErrFull and leaves no
// file behind, so it is not listed as an agent.
func TestCreateOnFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, 4<<20)
	s := openTest(t, Options{Dir: dir})
	fulldisk.Fill(t, dir)
	if _, err := s.Acquire(t.Context(), "new", true); !errors.Is(err, ErrFull) {
		t.Errorf("create an agent on a full disk: err = %v, want ErrFull", err)
	}
	if names, err := s.Agents(); err != nil || len(names) != 0 {
		t.Errorf("after a failed create Agents() = %v, %v; want none", names, err)
	}
}
