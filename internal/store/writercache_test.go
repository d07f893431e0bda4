package store

import (
	"context"
	"os"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/ncruces/go-sqlite3"
)

// TestWriterCacheGrowsWithFile: as a load grows the file, the writer's page
// cache grows to a 64th of it, and the readers' stays as configured.
func TestWriterCacheGrowsWithFile(t *testing.T) {
	a := acquire(t, openTest(t, Options{CacheSizeKiB: 64}), "main")
	mems := denseMemories(8000, benchdata.WithoutSession)
	for lo := 0; lo < len(mems); lo += 500 {
		if _, err := a.Insert(t.Context(), mems[lo:lo+500]); err != nil {
			t.Fatal(err)
		}
	}
	var writer, reader int
	if err := a.write(t.Context(), func(_ context.Context, c *conn) error {
		return c.query(t.Context(), "PRAGMA cache_size", nil, func(s *sqlite3.Stmt) error { writer = -s.ColumnInt(0); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if err := a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), "PRAGMA cache_size", nil, func(s *sqlite3.Stmt) error { reader = -s.ColumnInt(0); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(a.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("file %d KiB: writer's cache %d KiB, a reader's %d KiB", fi.Size()>>10, writer, reader)
	if writer <= 64 || writer > int(fi.Size()/64>>10) {
		t.Errorf("the writer's cache over a %d KiB file = %d KiB, want above 64 and at most a 64th of the file", fi.Size()>>10, writer)
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
