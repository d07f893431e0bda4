package store

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/kinds"
)

// BenchmarkFirstOpenMillion times the first open of a big agent written
// before migration 16: a million dense memories (DORMOUSE_FIRSTOPEN_N
// fewer) stored 500 a transaction, then the file set back to schema 15 as
// such a file is (the duplicate probe's index keyed by the hash alone),
// then Open and Acquire as the daemon's start-up does before READY
// (`open-s`, wall; `open-cpu-s`), and until the migrations deferred
// past the open are done too (`migrated-s`, `migrated-cpu-s`, nothing
// beside them). DORMOUSE_FIRSTOPEN_DIR keeps the agent
// there, so a second run skips the minutes of ingest.
func BenchmarkFirstOpenMillion(b *testing.B) {
	n := benchSize("DORMOUSE_FIRSTOPEN_N", 1_000_000)
	dir := os.Getenv("DORMOUSE_FIRSTOPEN_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	o := Options{Dir: dir, DedupWindow: 24 * time.Hour, Kinds: kinds.Of,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))} // the deferred steps' longest chunk
	path := filepath.Join(dir, "agents", "main.db")
	if _, err := os.Stat(path); err != nil {
		growDense(b, o, n)
	}
	for b.Loop() {
		b.StopTimer()
		setBackTo15(b, path)
		b.StartTimer()
		start, cpu := time.Now(), processCPU(b)
		s, err := Open(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		a, err := s.Acquire(b.Context(), "main", false)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "open-s")
		b.ReportMetric((processCPU(b) - cpu).Seconds(), "open-cpu-s")
		b.StopTimer()
		for pending := true; pending; time.Sleep(100 * time.Millisecond) {
			if err := a.read(b.Context(), func(c *conn) error {
				var err error
				pending, err = laterPending(c)
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(time.Since(start).Seconds(), "migrated-s")
		b.ReportMetric((processCPU(b) - cpu).Seconds(), "migrated-cpu-s")
		s.Release(a)
		s.Close()
		b.StartTimer()
	}
}

// growDense stores n dense memories into the agent "main" of o.Dir, with
// content hashes as capture makes them.
func growDense(b *testing.B, o Options, n int) {
	s, err := Open(b.Context(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	a, err := s.Acquire(b.Context(), "main", true)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Release(a)
	mems := hashedDense(n)
	for lo := 0; lo < n; lo += 500 {
		if _, err := a.Insert(b.Context(), mems[lo:min(lo+500, n)]); err != nil {
			b.Fatal(err)
		}
	}
}

// setBackTo15 makes the file at path what schema 15 left: the probe's
// index on the hash's first 8 digits alone, user_version 15. The kinds
// index migration 17 rebuilds is the same before and after.
func setBackTo15(b testing.TB, path string) {
	o := Options{Kinds: kinds.Of}
	o.fill()
	c, err := openConn(b.Context(), path, o)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	for _, q := range []string{
		"DROP INDEX IF EXISTS daily_memories_day_hash",
		"CREATE INDEX IF NOT EXISTS daily_memories_hash_prefix ON daily_memories(substr(content_hash, 1, 8))",
		"DROP TRIGGER IF EXISTS daily_memories_kinds_next_ai", // a deferred step stopped mid-way
		"DROP TRIGGER IF EXISTS daily_memories_kinds_next_ad",
		"DROP TRIGGER IF EXISTS daily_memories_kinds_next_au",
		"DROP TABLE IF EXISTS memory_kinds_next",
		"DROP TABLE IF EXISTS schema_later",
		"DROP TABLE IF EXISTS kinds_version",
		"PRAGMA user_version = 15",
		"PRAGMA wal_checkpoint(TRUNCATE)",
	} {
		if err := c.exec(q); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSize is the count env names, when a positive number, or def.
func benchSize(env string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(env)); err == nil && v > 0 {
		return v
	}
	return def
}

// hashedDense is n dense memories, each with its content's SHA-256 as
// capture gives it, for the duplicate probe.
func hashedDense(n int) []Memory {
	mems := denseMemories(n, benchdata.WithoutSession)
	for i := range mems {
		h := sha256.Sum256([]byte(mems[i].Content))
		mems[i].ContentHash = hex.EncodeToString(h[:])
	}
	return mems
}
