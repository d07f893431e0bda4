package store

import (
	"testing"
	"time"
)

// TestLastCaptureIsWhenMemoriesWereStored: LastCapture is zero before the
// first capture, moves when memories are stored in any agent (Insert,
// InsertChunks), and stays put when background work writes (a lease, a
// day's commit): the catch-up that waits for capture to be quiet must not
// wait for its own writes.
func TestLastCaptureIsWhenMemoriesWereStored(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	if got := s.LastCapture(); !got.IsZero() {
		t.Fatalf("LastCapture before any capture: %v", got)
	}
	a := acquire(t, s, "main")
	before := time.Now()
	ins, err := a.Insert(ctx, []Memory{mem("Alice's role is engineer", "")})
	if err != nil {
		t.Fatal(err)
	}
	stored := s.LastCapture()
	if stored.Before(before) || stored.After(time.Now()) {
		t.Fatalf("LastCapture after an Insert begun at %v: %v", before, stored)
	}

	if _, err := a.AcquireLease(ctx, "consolidate", "me", time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CommitConsolidation(ctx, Commit{
		Record: Consolidation{Date: "2026-02-01", Summary: "Alice's role is engineer", SourceIDs: []int64{ins[0].ID}, Model: "offline"},
		Run:    Run{Day: "2026-02-01", Provider: "offline", Status: RunOK}, Lease: "consolidate", Holder: "me",
		Memories: []int64{ins[0].ID}, Now: time.Now(),
	}); err != nil {
		t.Fatal(err)
	}
	if got := s.LastCapture(); !got.Equal(stored) {
		t.Errorf("LastCapture moved from %v to %v with a lease and a day's commit", stored, got)
	}

	other := acquire(t, s, "other")
	chunks := make(chan []Memory, 1)
	chunks <- []Memory{mem("Bob's role is designer", "")}
	close(chunks)
	before = time.Now()
	if _, err := other.InsertChunks(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	if got := s.LastCapture(); got.Before(before) {
		t.Errorf("LastCapture after another agent's InsertChunks begun at %v: %v", before, got)
	}
}
