package store

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// idleReaders is how many read connections a holds open and unlent.
func idleReaders(a *Agent) int {
	a.readers.mu.Lock()
	defer a.readers.mu.Unlock()
	return len(a.readers.idle)
}

// readAtOnce runs n reads of a at once, in a synctest bubble, so that a
// opens n read connections.
func readAtOnce(t *testing.T, a *Agent, n int) {
	t.Helper()
	hold := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_ = a.read(t.Context(), func(c *conn) error { <-hold; return nil })
		})
	}
	synctest.Wait()
	close(hold)
	wg.Wait()
	if got := idleReaders(a); got != n {
		t.Fatalf("%d read connections after %d concurrent reads, want %d", got, n, n)
	}
}

// countMemories reads a's memory count on a read connection.
func countMemories(t *testing.T, a *Agent) int64 {
	t.Helper()
	st, err := a.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st.Memories
}

// TestIdleReadConnectionIsClosedAndReopened: a read connection unused for
// ConnIdleClose is closed while the agent stays open, and the next read
// opens one again and sees every memory.
func TestIdleReadConnectionIsClosedAndReopened(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{ConnIdleClose: 30 * time.Second})
		a := acquire(t, s, "idle")
		if _, err := a.Insert(t.Context(), []Memory{mem("the boiler was serviced", "")}); err != nil {
			t.Fatal(err)
		}
		if n := countMemories(t, a); n != 1 {
			t.Fatalf("%d memories, want 1", n)
		}
		time.Sleep(29 * time.Second)
		synctest.Wait()
		if n := idleReaders(a); n == 0 {
			t.Fatal("a read connection used 29s ago was closed; ConnIdleClose is 30s")
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if n := idleReaders(a); n != 0 {
			t.Fatalf("%d read connections still open after a minute unused, want 0", n)
		}
		if _, err := a.Insert(t.Context(), []Memory{mem("the gutters were cleared", "")}); err != nil {
			t.Fatal(err)
		}
		if n := countMemories(t, a); n != 2 {
			t.Errorf("read after the idle close: %d memories, want 2", n)
		}
	})
}

// TestLentReadConnectionIsNeverClosed: a read that holds its connection
// longer than ConnIdleClose finishes on it.
func TestLentReadConnectionIsNeverClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{ConnIdleClose: 30 * time.Second})
		a := acquire(t, s, "slow")
		if _, err := a.Insert(t.Context(), []Memory{mem("the boiler was serviced", "")}); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- a.read(context.Background(), func(c *conn) error {
				<-release
				return c.query(context.Background(), "SELECT count(*) FROM daily_memories", nil, nil)
			})
		}()
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		close(release)
		if err := <-done; err != nil {
			t.Errorf("a read that held its connection for 2 minutes: %v", err)
		}
	})
}

// TestReadPoolShrinksUnderLightLoad: connections opened by concurrent reads
// are closed once reads come one at a time, which reuse the most recently
// returned connection and leave the others idle.
func TestReadPoolShrinksUnderLightLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{ConnIdleClose: 30 * time.Second, ReadConns: 3})
		a := acquire(t, s, "light")
		readAtOnce(t, a, 3)
		for range 12 { // one read every 10s for two minutes
			countMemories(t, a)
			time.Sleep(10 * time.Second)
		}
		synctest.Wait()
		if n := idleReaders(a); n != 1 {
			t.Errorf("%d read connections open under one read every 10s, want 1", n)
		}
	})
}

// TestIdleWriteConnectionIsClosedAndReopened: the writer's connection,
// unused for ConnIdleClose, is closed while the agent stays open; the next
// write opens it again, and closing the agent later still leaves no WAL.
func TestIdleWriteConnectionIsClosedAndReopened(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{ConnIdleClose: 30 * time.Second})
		a, err := s.Acquire(t.Context(), "idle", true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Insert(t.Context(), []Memory{mem("the boiler was serviced", "")}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(29 * time.Second)
		synctest.Wait()
		if !a.writerOpen.Load() {
			t.Fatal("the write connection was closed 29s after a write; ConnIdleClose is 30s")
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if a.writerOpen.Load() {
			t.Fatal("the write connection is still open after a minute without writes")
		}
		if _, err := a.Insert(t.Context(), []Memory{mem("the gutters were cleared", "")}); err != nil {
			t.Fatalf("write after the idle close: %v", err)
		}
		if n := countMemories(t, a); n != 2 {
			t.Errorf("%d memories after the writer reopened, want 2", n)
		}
		time.Sleep(time.Minute) // the writer closes again, then the agent
		synctest.Wait()
		s.Release(a)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(s.agentPath("idle") + "-wal"); err == nil && fi.Size() > 0 {
			t.Errorf("the WAL holds %d bytes after the agent closed, want none", fi.Size())
		}
		if n := memoriesInFile(t, s.agentPath("idle")); n != 2 {
			t.Errorf("%d memories in the file after close, want 2", n)
		}
	})
}

// memoriesInFile counts the memories in the agent file at path, opened
// afresh.
func memoriesInFile(t *testing.T, path string) int {
	t.Helper()
	db, err := sqlite3.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, _, err := db.Prepare("SELECT count(*) FROM daily_memories")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.Step() {
		t.Fatal(st.Err())
	}
	return st.ColumnInt(0)
}

// TestConnectionOpensWhileTheFileIsLocked: a connection opened while
// another holds the file's lock waits for it (Options.BusyTimeout) from the
// first statement on. The lock is what a closing last connection holds
// while it checkpoints, which made a reopening read fail at once with
// "register fts5: database is locked".
func TestConnectionOpensWhileTheFileIsLocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{ConnIdleClose: 30 * time.Second})
		a := acquire(t, s, "locked")
		if _, err := a.Insert(t.Context(), []Memory{mem("the boiler was serviced", "")}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute) // every connection of the agent closes
		synctest.Wait()
		if a.writerOpen.Load() || idleReaders(a) != 0 {
			t.Fatal("the agent's connections are still open after a minute unused")
		}
		lock, err := sqlite3.Open("file:" + s.agentPath("locked"))
		if err != nil {
			t.Fatal(err)
		}
		if err := lock.Exec("PRAGMA locking_mode = EXCLUSIVE; SELECT count(*) FROM daily_memories;"); err != nil {
			t.Fatal(err)
		}
		read, write := make(chan error, 1), make(chan error, 1)
		go func() { read <- a.read(context.Background(), func(c *conn) error { return nil }) }()
		go func() {
			_, err := a.Insert(context.Background(), []Memory{mem("the gutters were cleared", "")})
			write <- err
		}()
		time.Sleep(time.Second)
		if err := lock.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-read; err != nil {
			t.Errorf("read opened while the file was locked for 1s: %v", err)
		}
		if err := <-write; err != nil {
			t.Errorf("write opened while the file was locked for 1s: %v", err)
		}
	})
}

// TestLastUsedIsTheLatestRelease: LastUsed is zero before any work and
// moves to each release of an agent, what the daemon waits on before it
// returns free memory.
func TestLastUsedIsTheLatestRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{})
		if got := s.LastUsed(); !got.IsZero() {
			t.Fatalf("LastUsed before any work = %v, want zero", got)
		}
		for range 2 {
			time.Sleep(time.Minute)
			if err := s.With(t.Context(), "main", true, func(*Agent) error { return nil }); err != nil {
				t.Fatal(err)
			}
			if got := s.LastUsed(); !got.Equal(time.Now()) {
				t.Errorf("LastUsed = %v, want the release just now, %v", got, time.Now())
			}
		}
	})
}

// TestSpareReadConnectionsCloseSoon: the read connections a burst of
// concurrent reads opened beyond the one an agent used last close once
// unused for SpareConnIdleClose; that one stays until ConnIdleClose.
func TestSpareReadConnectionsCloseSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{ConnIdleClose: 30 * time.Second, SpareConnIdleClose: 2 * time.Second, ReadConns: 3})
		a := acquire(t, s, "burst")
		readAtOnce(t, a, 3)
		burst := time.Now()
		for _, at := range []struct {
			wait time.Duration
			want int
		}{
			{5 * time.Second, 1},  // the spares are closed after 2s
			{20 * time.Second, 1}, // 25s: the last used one stays until ConnIdleClose (30s)
			{10 * time.Second, 0}, // 35s
		} {
			time.Sleep(at.wait)
			synctest.Wait()
			if n := idleReaders(a); n != at.want {
				t.Fatalf("%d read connections %v after the burst, want %d", n, time.Since(burst), at.want)
			}
		}
	})
}

// TestHeavyWriterClosesSoon: a writer's connection that has written
// heavyWriterRows rows since it opened (a bulk load, which grows its
// memory) closes once unused for SpareConnIdleClose; one that wrote a few
// stays until ConnIdleClose. The next write reopens it.
func TestHeavyWriterClosesSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := openTest(t, Options{ConnIdleClose: 30 * time.Second, SpareConnIdleClose: 2 * time.Second})
		light, heavy := acquire(t, s, "light"), acquire(t, s, "heavy")
		if _, err := light.Insert(t.Context(), []Memory{mem("the boiler was serviced", "")}); err != nil {
			t.Fatal(err)
		}
		bulk := make([]Memory, heavyWriterRows)
		for i := range bulk {
			bulk[i] = mem(fmt.Sprintf("reading %d of the gas meter", i), "")
		}
		if _, err := heavy.Insert(t.Context(), bulk); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if heavy.writerOpen.Load() {
			t.Errorf("the writer that stored %d memories is still open 5s after, want closed after 2s", len(bulk))
		}
		if !light.writerOpen.Load() {
			t.Error("the writer that stored one memory was closed 5s after; ConnIdleClose is 30s")
		}
		if _, err := heavy.Insert(t.Context(), []Memory{mem("the gutters were cleared", "")}); err != nil {
			t.Fatalf("write after the close: %v", err)
		}
		if n := countMemories(t, heavy); n != int64(len(bulk))+1 {
			t.Errorf("%d memories after the writer reopened, want %d", n, len(bulk)+1)
		}
	})
}
