package store

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/kinds"
)

// The row sizes an agent keeps score as FTS5's bm25() does, before and
// after a watched file's memory is rewritten in place with a longer text:
// its size is read again, never the kept one.
func TestKeptSizesScoreAsBM25AfterARefresh(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	short := "A boat."
	long := "A red rowing boat named Molly, moored by the old mill with two oars, a bailer and a rope."
	word := strings.Fields(kinds.Of(short))[0] // a kind the boat is
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	var mems []Memory
	for i, txt := range []string{"the boat leaks", "we sold the boat and the trailer", "a boat trip on the lake with the kids"} {
		mems = append(mems, Memory{Content: txt, Timestamp: t0.Add(time.Duration(i) * time.Minute), ContentHash: txt})
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	commit(t, a, FileChange{Path: "boat.md", SHA256: "b", Memories: fileMems("boat.md", short)})
	sameAsBM25 := func(when string) {
		t.Helper()
		for table, terms := range map[string][]string{"memories_fts": {"boat"}, "memory_kinds": {word}} {
			for range 2 { // reading the sizes, then the kept ones
				if n := scoreBesideBM25(t, a, table, terms); n != 4 {
					t.Errorf("%s, %s %v: %d rows scored, want 4", when, table, terms, n)
				}
			}
		}
	}
	sameAsBM25("before the refresh")
	if kept := len(a.opts.sizes.memories.n); kept == 0 {
		t.Fatal("no memory sizes kept after two searches")
	}
	commit(t, a, FileChange{Path: "boat.md", SHA256: "b", Memories: fileMems("boat.md", long), Refresh: true})
	sameAsBM25("after the refresh")
}

// A size read before its memory was marked changed is not kept after: a
// reader of an older snapshot must not keep what the write replaces.
func TestAChangedRowsSizeIsNeverKept(t *testing.T) {
	var d docSizes
	d.memories.keep(7, 3)
	if n, ok := d.memories.kept(7); !ok || n != 3 {
		t.Fatalf("kept(7) = %d, %v; want 3, true", n, ok)
	}
	d.changed(7)
	d.changed(9)
	d.memories.keep(9, 5) // read before the mark, kept after it
	d.kinds.keep(7, 2)
	for _, r := range []*rowSizes{&d.memories, &d.kinds} {
		for _, row := range []int64{7, 9} {
			if n, ok := r.kept(row); ok {
				t.Errorf("kept(%d) = %d after the memory changed; want none", row, n)
			}
		}
	}
	d.memories.keep(sizedRows, 1)
	if len(d.memories.n) > sizedRows {
		t.Errorf("%d sizes kept, want at most %d", len(d.memories.n), sizedRows)
	}
}

// A memory forgotten or pruned is marked changed: an import may store its
// id again, with other text.
func TestGoneMemoriesAreMarkedChanged(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	ins, err := a.Insert(ctx, dayMems("2026-01-01", 3))
	if err != nil {
		t.Fatal(err)
	}
	old := ids(ins)
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-01-01", Summary: "the day", SourceIDs: old[1:]}); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, old[0]); err != nil {
		t.Fatal(err)
	}
	if res, err := a.Prune(ctx, "2026-02-01"); err != nil || res.Memories != 2 {
		t.Fatalf("Prune = %+v, %v; want the day's other 2 memories", res, err)
	}
	for _, id := range old {
		for name, r := range map[string]*rowSizes{"memories_fts": &a.opts.sizes.memories, "memory_kinds": &a.opts.sizes.kinds} {
			if id >= int64(len(r.n)) || r.n[id] != sizeChanged {
				t.Errorf("%s: memory %d gone but not marked changed", name, id)
			}
		}
	}
}
