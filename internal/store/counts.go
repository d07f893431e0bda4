package store

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// FileCounts are an agent file's records, as a restore drill compares them.
type FileCounts struct {
	Memories       int64 `json:"memories"`
	LastMemoryID   int64 `json:"last_memory_id"` // the highest id ever given (AUTOINCREMENT): deletions do not lower it
	Consolidations int64 `json:"consolidations"`
	Facts          int64 `json:"facts"`
}

// CountFile counts the records of the agent file at path through one
// read-only connection: it neither writes nor checkpoints, so it may read
// a file the daemon has open (and Litestream replicates) without
// disturbing either.
func CountFile(ctx context.Context, path string) (FileCounts, error) {
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: "mode=ro"}
	db, err := sqlite3.OpenContext(ctx, u.String())
	if err != nil {
		return FileCounts{}, fmt.Errorf("count %s: %w", path, err)
	}
	defer db.Close()
	if err := db.BusyTimeout(5 * time.Second); err != nil {
		return FileCounts{}, err
	}
	var n FileCounts
	for _, q := range []struct {
		sql string
		to  *int64
	}{
		{`SELECT count(*) FROM daily_memories`, &n.Memories},
		{`SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'daily_memories'), 0)`, &n.LastMemoryID},
		{`SELECT count(*) FROM consolidated_memories`, &n.Consolidations},
		{`SELECT count(*) FROM facts`, &n.Facts},
	} {
		if *q.to, err = scalar(db, q.sql); err != nil {
			return FileCounts{}, fmt.Errorf("count %s: %w", path, err)
		}
	}
	return n, nil
}

func scalar(db *sqlite3.Conn, sql string) (int64, error) {
	s, _, err := db.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	var v int64
	if s.Step() {
		v = s.ColumnInt64(0)
	}
	return v, s.Err()
}
