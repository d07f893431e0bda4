package store

import (
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// TestEntitiesColumnKeepsItsFormat: the entities column holds JSON written by every version of
// Dormouse; the store's Go structs carry no JSON names, so the column's keys must not follow the
// Go field names.
func TestEntitiesColumnKeepsItsFormat(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{Dir: t.TempDir()}), "main")
	ents := []Entity{{Text: "Alice", Type: "person"}}
	res, err := a.Insert(ctx, []Memory{{Content: "Alice came", Timestamp: time.Now(), ContentHash: "h1", Entities: ents}})
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT entities FROM daily_memories WHERE id = ?`, []any{res[0].ID},
			func(s *sqlite3.Stmt) error { raw = s.ColumnText(0); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	if want := `[{"text":"Alice","type":"person"}]`; raw != want {
		t.Errorf("entities column = %s, want %s", raw, want)
	}
	m, err := a.Get(ctx, res[0].ID)
	if err != nil || len(m.Entities) != 1 || m.Entities[0] != ents[0] {
		t.Errorf("Get = %+v, %v; want the entities back", m.Entities, err)
	}
}
