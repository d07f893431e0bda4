package store

import (
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// A search asked again with other limits runs the statement it prepared
// the first time: SQLite must not expire it on every new binding (a bound
// LIMIT the planner reads expires the statement at each ClearBindings, and
// recall then parses each of its searches anew).
func TestSearchStatementsStayPrepared(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if _, err := a.Insert(t.Context(), []Memory{
		{Content: "the greenhouse roof leaks", Timestamp: t0, ContentHash: "a"},
		{Content: "fixed the greenhouse door", Timestamp: t0.Add(time.Minute), ContentHash: "b", Importance: 0.9},
	}); err != nil {
		t.Fatal(err)
	}
	until := t0.Add(time.Hour)
	for i, limit := range []int{1, 2, 3, 1} {
		o := SearchOptions{Terms: []string{"greenhouse"}, Until: until, Limit: limit, Window: 10 + i}
		if _, err := a.SearchMemories(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		o.Kinds = true
		if _, err := a.SearchMemories(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		if _, err := a.ImportantMemories(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		if _, err := a.SearchCurrentFacts(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	err := a.read(t.Context(), func(c *conn) error {
		for sql, s := range c.stmts {
			if n := s.Status(sqlite3.STMTSTATUS_REPREPARE, false); n > 0 {
				t.Errorf("prepared %d more times: %s", n, firstLine(sql))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
