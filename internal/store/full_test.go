package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFullStorageLosesNothing fills an agent file to its size cap: the write
// that does not fit fails whole with ErrFull, everything stored before it
// stays, and the file keeps serving reads and smaller writes.
func TestFullStorageLosesNothing(t *testing.T) {
	s := openTest(t, Options{MaxPageCount: 64}) // 256 KiB
	a := acquire(t, s, "main")
	ctx := t.Context()
	stored := 0
	var full error
	for i := 0; i < 1000 && full == nil; i++ {
		batch := make([]Memory, 10)
		for j := range batch {
			batch[j] = mem(fmt.Sprintf("memory %d-%d %s", i, j, strings.Repeat("filler words ", 20)), "")
		}
		if _, err := a.Insert(ctx, batch); err != nil {
			full = err
			break
		}
		stored += len(batch)
	}
	if !errors.Is(full, ErrFull) {
		t.Fatalf("filling the file: err = %v, want ErrFull", full)
	}
	st, err := a.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != int64(stored) {
		t.Errorf("after the full write: %d memories stored, want the %d acknowledged", st.Memories, stored)
	}
	hits, err := a.SearchMemories(ctx, SearchOptions{Terms: []string{"filler"}, Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != stored {
		t.Errorf("full-text index has %d memories, want %d", len(hits), stored)
	}
}
