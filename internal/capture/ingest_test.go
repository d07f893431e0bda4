package capture

import (
	"fmt"

	"github.com/dormouse-dev/dormouse/internal/store"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestValidateNamesTheBadMemory checks a batch error names the first bad
// memory's index, in a small batch and a large one.
func TestValidateNamesTheBadMemory(t *testing.T) {
	for _, n := range []int{3, 500} {
		ins := make([]Input, n)
		for i := range ins {
			ins[i] = Input{Content: "a fine memory about the garden"}
		}
		bad := n / 2
		ins[bad].Timestamp = "not a time"
		ins[n-1].Content = ""
		_, err := Validate(ins, 1<<16, time.Now())
		want := "memories[" + strconv.Itoa(bad) + "].timestamp"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("batch of %d: err = %v, want it to start with %s", n, err, want)
		}
	}
	if _, err := Validate([]Input{{Content: ""}}, 1<<16, time.Now()); err == nil || !strings.HasPrefix(err.Error(), "content:") {
		t.Errorf("single: err = %v, want a content error without an index", err)
	}
}

// TestIngestLargeBatchStreams stores a batch large enough to be derived while
// it is inserted: every memory, in order, with its derived fields, and the
// client's importance where it gave one.
func TestIngestLargeBatchStreams(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := st.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	n := streamFrom*2 + 7
	ins := make([]Input, n)
	for i := range ins {
		ins[i] = Input{Content: fmt.Sprintf("Alice paid $%d for item %d", i+1, i)}
	}
	half := 0.42
	ins[n-1].Importance = &half
	res, err := Ingest(t.Context(), a, ins, 1<<16, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != n || res[n-1].ID != res[0].ID+int64(n-1) {
		t.Fatalf("got %d results, first %v last %v", len(res), res[0], res[len(res)-1])
	}
	last, err := a.Get(t.Context(), res[n-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if last.Importance != half || last.ContentHash == "" || len(last.Entities) == 0 {
		t.Errorf("last memory = %+v", last)
	}
	first, err := a.Get(t.Context(), res[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if first.Importance == 0 || first.Summary == "" {
		t.Errorf("first memory not derived: %+v", first)
	}
	// A bad memory anywhere rejects the batch before anything is stored.
	ins[n/2].Timestamp = "soon"
	if _, err := Ingest(t.Context(), a, ins, 1<<16, time.Now()); err == nil {
		t.Error("batch with a bad timestamp was accepted")
	}
	if s, _ := a.Stats(t.Context()); s.Memories != int64(n) {
		t.Errorf("%d memories after the rejected batch, want %d", s.Memories, n)
	}
}
