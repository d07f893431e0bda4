package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestAYear10000RowStillReads: a memory stored before capture checked timestamps in UTC can hold a
// time past year 9999, which encoding/json refuses; listing, getting, searching and counting the
// agent must still answer, with the time clamped to the last representable millisecond.
func TestAYear10000RowStillReads(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{Dir: t.TempDir()}), "main")
	res, err := a.Insert(ctx, []Memory{{Content: "dated far ahead", Timestamp: time.Now(), ContentHash: "h1"}})
	if err != nil {
		t.Fatal(err)
	}
	id := res[0].ID
	// 9999-12-31T23:59:59-23:59 as it was stored: in UTC, 10000-01-01T23:58:59Z.
	far := time.Date(10000, 1, 1, 23, 58, 59, 0, time.UTC).UnixMilli()
	if err := a.write(ctx, func(ctx context.Context, c *conn) error {
		return c.execArgs(ctx, `UPDATE daily_memories SET ts = ? WHERE id = ?`, far, id)
	}); err != nil {
		t.Fatal(err)
	}
	want := time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
	list, _, err := a.List(ctx, ListOptions{Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
	m, err := a.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := a.RecentMemories(ctx, SearchOptions{Limit: 10})
	if err != nil || len(hits) != 1 {
		t.Fatalf("RecentMemories = %v, %v", hits, err)
	}
	for what, got := range map[string]time.Time{"list": list[0].Timestamp, "get": m.Timestamp,
		"stats newest": *st.Newest, "recent": hits[0].Timestamp} {
		if !got.Equal(want) {
			t.Errorf("%s: timestamp %v, want %v", what, got, want)
		}
	}
	for what, v := range map[string]any{"list": list, "get": m, "stats": st, "recent": hits} {
		if _, err := json.Marshal(v); err != nil {
			t.Errorf("%s does not encode: %v", what, err)
		}
	}
}
