package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// dormouse_bm25, given the counts termCounts keeps, scores every row as
// FTS5's own bm25() does: one table of one column, one of two, phrases a
// row holds several times, phrases nothing holds, a phrase of no token.
func TestGivenBM25IsFTS5sBM25(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	words := strings.Fields("garden tomato rain seed water garden sun tomato frost greenhouse")
	var mems []Memory
	for i := range 60 {
		var b strings.Builder
		for j := range 3 + i%7 {
			b.WriteString(words[(i*j+i/3)%len(words)] + " ")
		}
		b.WriteString("note")
		mems = append(mems, Memory{Content: b.String(), Timestamp: t0.Add(time.Duration(i) * time.Minute), ContentHash: fmt.Sprint(i)})
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	facts, _ := json.Marshal([]string{"tomato seed sown", "frost on the greenhouse"})
	for i, s := range []string{"tomato tomato garden day", "rain all day", "greenhouse water sun"} {
		c := Consolidation{Date: fmt.Sprintf("2026-03-0%d", i+1), Summary: s, KeyFacts: facts}
		if _, err := a.PutConsolidation(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	for _, terms := range [][]string{
		{"tomato"}, {"garden", "frost"}, {"note", "tomato", "volcano", "rain"}, {"seed", "'", "sun"},
	} {
		for _, table := range []string{"memories_fts", "consolidations_fts"} {
			if scoreBesideBM25(t, a, table, terms) == 0 {
				t.Errorf("%s %v: no rows matched", table, terms)
			}
		}
	}
}

// scoreBesideBM25 scores table's rows matching terms with dormouse_bm25 and
// bm25(), says where they differ and returns how many rows it scored.
func scoreBesideBM25(t *testing.T, a *Agent, table string, terms []string) int {
	t.Helper()
	counts, err := a.termCounts(t.Context(), table, terms)
	if err != nil {
		t.Fatal(err)
	}
	sql := `SELECT rowid, bm25(` + table + `), ` + scoreFn(table) + ` FROM ` + table + ` WHERE ` + table + ` MATCH ?`
	rows := 0
	err = a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), sql, []any{counts, matchAny(terms)}, func(s *sqlite3.Stmt) error {
			rows++
			if want, got := s.ColumnFloat(1), s.ColumnFloat(2); want != got {
				t.Errorf("%s %v row %d: dormouse_bm25 %v, bm25 %v", table, terms, s.ColumnInt64(0), got, want)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A term's count is counted once and kept while the store grows by less
// than 1/countsStale, then counted again: the weight follows the store.
func TestTermCountsFollowTheStore(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	insert := func(n int, content string) {
		t.Helper()
		var mems []Memory
		for range n {
			t0 = t0.Add(time.Minute)
			mems = append(mems, Memory{Content: content, Timestamp: t0, ContentHash: t0.String()})
		}
		if _, err := a.Insert(t.Context(), mems); err != nil {
			t.Fatal(err)
		}
	}
	count := func() string {
		t.Helper()
		got, err := a.termCounts(t.Context(), "memories_fts", []string{"kiwi", "plum"})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	insert(1, "a kiwi and a plum")
	insert(99, "a plum")
	if got := count(); got != "1 100" {
		t.Fatalf("counts %q, want \"1 100\"", got)
	}
	insert(1, "one more kiwi") // 1% more: the kept counts still serve
	if got := count(); got != "1 100" {
		t.Errorf("after 1%% more: counts %q, want the kept \"1 100\"", got)
	}
	insert(3, "kiwi") // past 1/32: counted again
	if got := count(); got != "5 100" {
		t.Errorf("after 4%% more: counts %q, want \"5 100\"", got)
	}
}

// TestCommonTermCountsAreEstimated: a term in fewer than countCap rows is
// counted exactly; one in more is estimated from its newest countCap rows,
// within a few percent of the truth, reading no more of its postings.
func TestCommonTermCountsAreEstimated(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var mems []Memory
	for i := range 3 * countCap {
		content := "a pear"
		if i%3 != 0 {
			content = "a fig and a pear" // 2 rows in 3: fig in 2 countCap, pear in all 3
		}
		if i%10 == 0 {
			content += " and a lime" // 3 countCap / 10
		}
		t0 = t0.Add(time.Minute)
		mems = append(mems, Memory{Content: content, Timestamp: t0, ContentHash: t0.String()})
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	got, err := a.termCounts(t.Context(), "memories_fts", []string{"lime", "fig", "pear"})
	if err != nil {
		t.Fatal(err)
	}
	var lime, fig, pear int64
	if _, err := fmt.Sscan(got, &lime, &fig, &pear); err != nil {
		t.Fatalf("counts %q: %v", got, err)
	}
	if lime != 3*countCap/10 {
		t.Errorf("lime: %d, want exactly %d (under countCap)", lime, 3*countCap/10)
	}
	if fig < 19*countCap/10 || fig > 21*countCap/10 {
		t.Errorf("fig: %d, want about %d", fig, 2*countCap)
	}
	if pear != 3*countCap {
		t.Errorf("pear: %d, want %d (in every row)", pear, 3*countCap)
	}
}

func TestEstimateCount(t *testing.T) {
	for _, c := range []struct{ n, oldest, size, want int64 }{
		{42, 1, 1000, 42},                            // under the cap: exact
		{countCap, 1, countCap, countCap},            // every row, from the first
		{countCap, 500_001, 1_000_000, 2 * countCap}, // the newest half of the ids
		{countCap, 999_000, 1_000_000, 1_000_000},    // denser than every row: at most size
	} {
		if got := estimateCount(c.n, c.oldest, c.size); got != c.want {
			t.Errorf("estimateCount(%d, %d, %d) = %d, want %d", c.n, c.oldest, c.size, got, c.want)
		}
	}
}

// termCounts is the argument of scoreFn(table) for a MATCH of
// matchAny(terms), as a search reads it.
func (a *Agent) termCounts(ctx context.Context, table string, terms []string) (string, error) {
	var counts []int64
	err := a.read(ctx, func(c *conn) error {
		st, err := c.searchState(ctx)
		if err == nil {
			counts, _, err = a.countsOn(ctx, c, st, table, terms)
		}
		return err
	})
	return joinCounts(counts), err
}

// The facts' table (two columns) and the kinds index (contentless, whose
// docsize rows carry an origin too) score as bm25() does: dormouse_bm25
// reads their totals and row sizes from FTS5's shadow tables.
func TestGivenBM25IsFTS5sBM25OnFactsAndKinds(t *testing.T) {
	st := openTest(t, Options{Location: time.UTC, Kinds: func(s string) string { return s }})
	a, err := st.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Release(a) })
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	words := strings.Fields("kettle boiler radiator boiler valve kettle pump")
	var mems []Memory
	for i := range 40 {
		content := strings.Join(words[:1+i%len(words)], " ") + " " + words[i%3]
		mems = append(mems, Memory{Content: content, Timestamp: t0.Add(time.Duration(i) * time.Minute), ContentHash: fmt.Sprint(i)})
		if i%4 == 0 {
			f := Fact{Entity: words[i%len(words)], Attribute: "state", Value: fmt.Sprint(i), Content: content, Confidence: 0.8}
			if _, err := a.AddFact(t.Context(), f); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	for _, terms := range [][]string{{"boiler"}, {"kettle", "pump", "volcano"}} {
		for _, table := range []string{"facts_fts", "memory_kinds"} {
			if scoreBesideBM25(t, a, table, terms) == 0 {
				t.Errorf("%s %v: no rows matched", table, terms)
			}
		}
	}
}

// varints reads what FTS5 writes: SQLite's varints, 1 to 9 bytes.
func TestVarints(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1 << 32, 1<<56 - 1, 1 << 56, 1<<64 - 1} {
		got, err := varints(putVarint(nil, v))
		if err != nil || len(got) != 1 || uint64(got[0]) != v {
			t.Errorf("%d: got %v, %v", v, got, err)
		}
	}
	if _, err := varints([]byte{0x81}); err == nil {
		t.Error("a truncated varint was read")
	}
}

// FuzzVarints: a shadow table's blob from a damaged file is an error or
// numbers, never a panic, and what putVarint writes reads back.
func FuzzVarints(f *testing.F) {
	f.Add([]byte{0x30, 0xa6, 0x05}, uint64(300))
	f.Fuzz(func(t *testing.T, b []byte, v uint64) {
		_, _ = varints(b)
		got, err := varints(putVarint(nil, v))
		if err != nil || len(got) != 1 || uint64(got[0]) != v {
			t.Fatalf("%d: got %v, %v", v, got, err)
		}
	})
}

// putVarint appends v as SQLite writes a varint (sqlite3PutVarint).
func putVarint(b []byte, v uint64) []byte {
	if v > 1<<56-1 {
		var out [9]byte
		out[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			out[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return append(b, out[:]...)
	}
	var rev []byte
	for {
		rev = append(rev, byte(v&0x7f))
		v >>= 7
		if v == 0 {
			break
		}
	}
	for i := len(rev) - 1; i >= 0; i-- {
		c := rev[i]
		if i > 0 {
			c |= 0x80
		}
		b = append(b, c)
	}
	return b
}
