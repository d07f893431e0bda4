package store

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestMergeIndexesKeepsWhatSearchesFind: three batches leave three
// segments (automerge waits for four); the merge leaves fewer, and every
// search, newest-first window or not, by word or by kind, finds the same
// memories with the same scores.
func TestMergeIndexesKeepsWhatSearchesFind(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	pets := []string{"dog", "cat", "hamster", "rabbit", "parrot"}
	for b := range 3 {
		var ms []Memory
		for i := range 60 {
			m := mem(fmt.Sprintf("batch %d note %d: fed the %s and walked to the %s park", b, i, pets[(b+i)%5], pets[i%3]), "s")
			m.Timestamp = testTime.Add(time.Duration(b*60+i) * time.Minute)
			ms = append(ms, m)
		}
		if _, err := a.Insert(t.Context(), ms); err != nil {
			t.Fatal(err)
		}
	}
	searches := []SearchOptions{
		{Terms: []string{"dog", "parrot"}, Limit: 150},
		{Terms: []string{"cat", "rabbit", "hamster", "walked"}, Limit: 150, Window: 50},
		{Terms: []string{"animal", "pet"}, Limit: 20, Window: 40, Kinds: true},
		{Terms: []string{"note", "dog"}, Limit: 10, Window: 100, MaxShare: 0.5},
	}
	found := func() [][]string {
		var out [][]string
		for _, o := range searches {
			hits, err := a.SearchMemories(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, fmt.Sprintf("%d %.9g", h.ID, h.BM25))
			}
			out = append(out, got)
		}
		return out
	}
	want := found()
	before, after, err := a.MergeIndexes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if before < 3 || after >= before || after > 2 {
		t.Errorf("segments %d → %d; want 3 or more → at most 2", before, after)
	}
	for _, tbl := range memoryIndexes {
		if n, err := a.segments(t.Context(), tbl); err != nil || n > 2 {
			t.Errorf("%s: %d segments after the merge (%v)", tbl, n, err)
		}
	}
	if got := found(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("searches after the merge\n got %v\nwant %v", got, want)
	}
	for i, w := range want {
		if len(w) == 0 {
			t.Errorf("search %d found nothing: it checks nothing", i)
		}
	}
	if b2, a2, err := a.MergeIndexes(t.Context()); err != nil || b2 != after || a2 != after {
		t.Errorf("second merge: %d → %d, %v; want %d, nothing to do", b2, a2, err, after)
	}
}
