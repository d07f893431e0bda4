package store

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

func TestEmbeddings(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	var mems []Memory
	for i, txt := range []string{"first", "second", "third", "fourth", "fifth"} {
		m := mem(txt+" memory", "s")
		m.Timestamp = time.Date(2026, 3, 1, 12, i, 0, 0, time.UTC)
		mems = append(mems, m)
	}
	ins, err := a.Insert(ctx, mems)
	if err != nil {
		t.Fatal(err)
	}
	id := ids(ins)

	// Nothing embedded yet: every memory waits, oldest first, in batches.
	todo, err := a.Unembedded(ctx, "m1", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(todo) != 2 || todo[0].ID != id[0] || todo[1].ID != id[1] || todo[0].Text != "first memory" {
		t.Fatalf("Unembedded = %+v, want the two oldest", todo)
	}
	if n, err := a.UnembeddedCount(ctx, "m1"); err != nil || n != 5 {
		t.Fatalf("UnembeddedCount = %d, %v; want 5", n, err)
	}
	if has, err := a.HasEmbeddings(ctx, "m1"); err != nil || has {
		t.Fatalf("HasEmbeddings = %v, %v; want false", has, err)
	}

	put := []MemoryVector{{ID: id[0], Vec: []float32{3, 4}}, {ID: id[1], Vec: []float32{0, 2}}, {ID: id[2], Vec: []float32{1, 0}}}
	if err := a.PutEmbeddings(ctx, "m1", put); err != nil {
		t.Fatal(err)
	}
	if has, err := a.HasEmbeddings(ctx, "m1"); err != nil || !has {
		t.Fatalf("HasEmbeddings = %v, %v; want true", has, err)
	}
	if n, _ := a.UnembeddedCount(ctx, "m1"); n != 2 {
		t.Errorf("UnembeddedCount after three = %d, want 2", n)
	}
	// Another model's vectors do not count: changing the model embeds again.
	if n, _ := a.UnembeddedCount(ctx, "m2"); n != 5 {
		t.Errorf("UnembeddedCount of another model = %d, want 5", n)
	}

	got, err := a.Embeddings(ctx, "m1", []int64{id[0], id[1], id[3]})
	if err != nil {
		t.Fatal(err)
	}
	// Stored at unit length, little-endian float32.
	want := map[int64][]float32{id[0]: {0.6, 0.8}, id[1]: {0, 1}}
	if len(got) != len(want) {
		t.Fatalf("Embeddings = %v, want %v", got, want)
	}
	for k, w := range want {
		for i := range w {
			if math.Abs(float64(got[k][i]-w[i])) > 1e-6 {
				t.Errorf("Embeddings[%d] = %v, want %v", k, got[k], w)
			}
		}
	}
	if other, _ := a.Embeddings(ctx, "m2", id); len(other) != 0 {
		t.Errorf("Embeddings of another model = %v, want none", other)
	}

	recent, err := a.RecentEmbeddings(ctx, "m1", SearchOptions{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 2 || recent[0].ID != id[2] || recent[1].ID != id[1] {
		t.Errorf("RecentEmbeddings = %+v, want the two newest embedded (%d, %d)", recent, id[2], id[1])
	}
	// Filters apply: until before the third memory.
	recent, _ = a.RecentEmbeddings(ctx, "m1", SearchOptions{Until: mems[1].Timestamp}, 10)
	if len(recent) != 2 || recent[0].ID != id[1] {
		t.Errorf("RecentEmbeddings until the second = %+v, want the first two", recent)
	}
	hits, err := a.MemoryHits(ctx, []int64{id[0], id[2]}, SearchOptions{})
	if err != nil || len(hits) != 2 {
		t.Fatalf("MemoryHits = %+v, %v; want two", hits, err)
	}
	slices.SortFunc(hits, func(x, y MemoryHit) int { return int(x.ID - y.ID) })
	if hits[0].Text != "first memory" || !hits[0].Timestamp.Equal(mems[0].Timestamp) {
		t.Errorf("MemoryHits[0] = %+v", hits[0])
	}

	// Deleting (forgetting) a memory deletes its vector.
	if err := a.Delete(ctx, id[0]); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Embeddings(ctx, "m1", id); len(got) != 2 || got[id[0]] != nil {
		t.Errorf("after deleting memory %d, Embeddings = %v", id[0], got)
	}
	var n int
	if err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT count(*) FROM memory_embeddings WHERE memory_id = ?`, []any{id[0]},
			func(s *sqlite3.Stmt) error { n = s.ColumnInt(0); return nil })
	}); err != nil || n != 0 {
		t.Errorf("rows left for a deleted memory: %d, %v", n, err)
	}
	// A vector for a memory deleted meanwhile is skipped, not an error.
	if err := a.PutEmbeddings(ctx, "m1", []MemoryVector{{ID: id[0], Vec: []float32{1, 1}}, {ID: id[3], Vec: []float32{1, 1}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Embeddings(ctx, "m1", []int64{id[0], id[3]}); len(got) != 1 || got[id[3]] == nil {
		t.Errorf("after putting a deleted memory's vector, Embeddings = %v", got)
	}

	// Flagged memories are never recalled: never embedded either.
	if err := a.FlagMemories(ctx, []int64{id[4]}); err != nil {
		t.Fatal(err)
	}
	if todo, _ := a.Unembedded(ctx, "m1", 10); len(todo) != 0 {
		t.Errorf("Unembedded after flagging the last = %+v, want none", todo)
	}
}

func TestPutEmbeddingsRefusesBadVectors(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	ins, err := a.Insert(ctx, []Memory{mem("one", "s"), mem("two", "s")})
	if err != nil {
		t.Fatal(err)
	}
	id := ids(ins)
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name  string
		model string
		vecs  []MemoryVector
		want  string
	}{
		{"no model", "", []MemoryVector{{ID: id[0], Vec: []float32{1}}}, "no model named"},
		{"empty", "m", []MemoryVector{{ID: id[0], Vec: nil}}, "has 0 numbers"},
		{"mixed lengths", "m", []MemoryVector{{ID: id[0], Vec: []float32{1, 2}}, {ID: id[1], Vec: []float32{1}}}, "has 1 numbers, want 2"},
		{"zero", "m", []MemoryVector{{ID: id[0], Vec: []float32{0, 0}}}, "no direction"},
		{"NaN", "m", []MemoryVector{{ID: id[0], Vec: []float32{nan, 1}}}, "no direction"},
	} {
		err := a.PutEmbeddings(ctx, tc.model, tc.vecs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", tc.name, err, tc.want)
		}
	}
	if has, _ := a.HasEmbeddings(ctx, "m"); has {
		t.Error("a refused vector was stored")
	}
}
