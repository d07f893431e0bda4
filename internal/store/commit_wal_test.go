package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/ncruces/go-sqlite3"
)

// commitPages runs insert and returns the WAL pages each of its commits
// wrote, counted by SQLite's WAL hook; the first also counts what was in
// the WAL before.
func commitPages(t testing.TB, a *Agent, insert func()) []int {
	t.Helper()
	var pages []int
	prev := 0
	hook := func(_ *sqlite3.Conn, _ string, inWAL int) error {
		if inWAL < prev { // the WAL restarted after a checkpoint: all its pages are this commit's
			prev = 0
		}
		pages = append(pages, inWAL-prev)
		prev = inWAL
		return nil
	}
	setHook := func(h func(*sqlite3.Conn, string, int) error) {
		if err := a.write(t.Context(), func(_ context.Context, c *conn) error { c.db.WALHook(h); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	setHook(hook)
	insert()
	setHook(nil)
	return pages
}

// walPagesPerCommit stores mems one a transaction, after warm (stored
// first, in one), and returns the mean WAL pages a commit wrote (the
// pages of occasional FTS5 merges spread over all).
func walPagesPerCommit(t testing.TB, a *Agent, warm, mems []Memory) float64 {
	t.Helper()
	if _, err := a.Insert(t.Context(), warm); err != nil {
		t.Fatal(err)
	}
	pages := commitPages(t, a, func() {
		for _, m := range mems {
			if _, err := a.Insert(t.Context(), []Memory{m}); err != nil {
				t.Fatal(err)
			}
		}
	})
	pages = pages[1:] // the first counts the warm-up's pages too
	total := 0
	for _, p := range pages {
		total += p
	}
	return float64(total) / float64(len(pages))
}

func denseMemories(n int, s benchdata.Session) []Memory {
	var out []Memory
	for i, m := range benchdata.Dense(n, testTime, s) {
		out = append(out, Memory{Content: m.Content, SessionID: m.Session, Timestamp: m.Timestamp,
			ContentHash: fmt.Sprintf("%064d", i), Importance: 0.5})
	}
	return out
}

// TestSingleCommitWALPages: one dense memory committed alone, after 2,000,
// writes at most 26 WAL pages of 4 KiB (23 on 2026-12-01: the row, its five
// indexes, sqlite_sequence, the words and kinds indexes' new segments and
// their share of FTS5 merges), with and without a session id. A new index
// or table on the insert path shows here first. Measured with it: dropping
// daily_memories_day, the session or the unconsolidated index saves one
// page each; the kinds index costs ~6; FTS5 automerge 8 or 16 instead of 4
// changes it by under half a page.
func TestSingleCommitWALPages(t *testing.T) {
	for _, sess := range []benchdata.Session{benchdata.WithSession, benchdata.WithoutSession} {
		s := openTest(t, Options{DedupWindow: 24 * time.Hour})
		a := acquire(t, s, "main")
		mems := denseMemories(2100, sess)
		got := walPagesPerCommit(t, a, mems[:2000], mems[2000:])
		t.Logf("with session %v: a single dense memory's commit writes %.1f WAL pages", sess, got)
		if got > 26 {
			t.Errorf("with session %v: a single memory's commit writes %.1f WAL pages, want at most 26", sess, got)
		}
	}
}

// walPagesPerBatch stores mems size a transaction and returns the mean WAL
// pages of the last four commits.
func walPagesPerBatch(t testing.TB, a *Agent, mems []Memory, size int) float64 {
	t.Helper()
	pages := commitPages(t, a, func() {
		for lo := 0; lo < len(mems); lo += size {
			if _, err := a.Insert(t.Context(), mems[lo:min(lo+size, len(mems))]); err != nil {
				t.Fatal(err)
			}
		}
	})
	last := pages[len(pages)-4:]
	return float64(last[0]+last[1]+last[2]+last[3]) / 4
}

// TestBatchCommitWALPages: a batch of 500 dense memories, with content
// hashes as capture makes them (random), committed after 4,000, writes at
// most 230 WAL pages (200 on 2026-12-01). The duplicate probe's index of
// the whole 64-digit hash made it 282 (at 10,000 memories, 322 against
// 143 without that index): random keys put a batch's entries on nearly
// every page of it, and it grows with the memories.
func TestBatchCommitWALPages(t *testing.T) {
	s := openTest(t, Options{DedupWindow: 24 * time.Hour})
	a := acquire(t, s, "main")
	mems := denseMemories(6000, benchdata.WithoutSession)
	for i := range mems {
		h := sha256.Sum256([]byte(mems[i].Content))
		mems[i].ContentHash = hex.EncodeToString(h[:])
	}
	got := walPagesPerBatch(t, a, mems, 500)
	t.Logf("a batch of 500 dense memories after 4,000 writes %.1f WAL pages", got)
	if got > 230 {
		t.Errorf("a batch of 500 memories writes %.1f WAL pages, want at most 230", got)
	}
}
