package store

import (
	"context"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/ncruces/go-sqlite3"
)

// TestWriterCacheGrowsWithFile: as a load grows the file, the writer's page
// cache grows to a 64th of it (the pages in the WAL included), and the
// readers' stays as configured.
func TestWriterCacheGrowsWithFile(t *testing.T) {
	a := acquire(t, openTest(t, Options{CacheSizeKiB: 64}), "main")
	mems := denseMemories(8000, benchdata.WithoutSession)
	for lo := 0; lo < len(mems); lo += 500 {
		if _, err := a.Insert(t.Context(), mems[lo:lo+500]); err != nil {
			t.Fatal(err)
		}
	}
	var writer, reader int
	var size int64
	if err := a.write(t.Context(), func(_ context.Context, c *conn) error {
		var err error
		if size, err = dbBytes(c); err != nil {
			return err
		}
		return c.query(t.Context(), "PRAGMA cache_size", nil, func(s *sqlite3.Stmt) error { writer = -s.ColumnInt(0); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), "PRAGMA cache_size", nil, func(s *sqlite3.Stmt) error { reader = -s.ColumnInt(0); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("database %d KiB: writer's cache %d KiB, a reader's %d KiB", size>>10, writer, reader)
	if writer <= 64 || writer > int(size/64>>10) {
		t.Errorf("the writer's cache over a %d KiB database = %d KiB, want above 64 and at most a 64th of it", size>>10, writer)
	}
	if reader != 64 {
		t.Errorf("a reader's cache = %d KiB, want the configured 64", reader)
	}
}

func TestWriterCacheKiB(t *testing.T) {
	for _, c := range []struct {
		file        int64
		floor, want int
	}{
		{0, 256, 256},
		{16 << 20, 256, 256},
		{64 << 20, 256, 1024},
		{512 << 20, 256, 8192},
		{4 << 30, 256, 8192},
		{4 << 30, 16384, 8192},
	} {
		if got := writerCacheKiB(c.file, c.floor); got != c.want {
			t.Errorf("writerCacheKiB(%d, %d) = %d, want %d", c.file, c.floor, got, c.want)
		}
	}
}
