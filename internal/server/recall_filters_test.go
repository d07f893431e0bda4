package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// Every filter a recall request accepts holds whatever the query: one with
// no words to search ("", "the of and") once fell back to a second ranker
// that ignored role, source and entity, so {"query":"","role":"bob"}
// returned Alice's memories. Day records and facts have no role, source,
// session or speaker, so a filter on those leaves them out.
func TestRecallFiltersHoldWithoutWords(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	var ins struct{ IDs []int64 }
	status := f.post("/v1/agents/main/memories", `{"memories":[
		{"content":"Alice planted tulips in the garden with Carol","role":"alice","session_id":"s-alice","source":"chat","timestamp":"2026-02-01T10:00:00Z","importance":0.6},
		{"content":"Bob repaired the bicycle chain","role":"bob","session_id":"s-bob","source":"email","timestamp":"2026-02-05T10:00:00Z","importance":0.5},
		{"content":"Dinner reservation at the harbour restaurant","role":"alice","session_id":"s-alice","source":"notes","timestamp":"2026-02-09T10:00:00Z","importance":0.4}
	]}`, &ins)
	if status != http.StatusCreated || len(ins.IDs) != 3 {
		t.Fatalf("store memories: status %d, ids %v", status, ins.IDs)
	}
	mem := func(i int) string { return fmt.Sprintf("memory:%d", ins.IDs[i]) }
	a, err := f.store.Acquire(t.Context(), "main", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.AddFact(t.Context(), store.Fact{Entity: "Alice", Attribute: "flower", Content: "Alice likes tulips",
		Confidence: 0.9, ValidFrom: time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)})
	f.store.Release(a)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name     string
		filter   string   // the request's other fields
		memories []string // exactly these memories, sorted
		layers   bool     // facts may be offered beside them
	}{
		{"role", `"role":"bob"`, []string{mem(1)}, false},
		{"role nobody has", `"role":"nobody"`, nil, false},
		{"source", `"source":"email"`, []string{mem(1)}, false},
		{"source nothing came from", `"source":"nowhere"`, nil, false},
		{"entity", `"entity":"carol"`, []string{mem(0)}, false},
		{"entity nothing names", `"entity":"nobody"`, nil, false},
		{"session", `"session":"s-bob"`, []string{mem(1)}, false},
		{"since and until", `"since":"2026-02-04T00:00:00Z","until":"2026-02-06T00:00:00Z"`, []string{mem(1)}, true},
		{"as_of", `"as_of":"2026-02-03T00:00:00Z"`, []string{mem(0)}, true},
		{"role and source together", `"role":"alice","source":"notes"`, []string{mem(2)}, false},
	}
	for _, query := range []string{"", "the of and"} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%q/%s", query, tc.name), func(t *testing.T) {
				var res struct {
					Items []struct{ ID, Kind string }
				}
				body := fmt.Sprintf(`{"query":%q,"k":20,%s}`, query, tc.filter)
				if status := f.post("/v1/agents/main/recall", body, &res); status != http.StatusOK {
					t.Fatalf("recall %s: status %d", body, status)
				}
				var memories, others []string
				for _, it := range res.Items {
					if it.Kind == "memory" {
						memories = append(memories, it.ID)
					} else {
						others = append(others, it.ID)
					}
				}
				slices.Sort(memories)
				if diff := cmp.Diff(tc.memories, memories); diff != "" {
					t.Errorf("recall %s: memories (-want +got):\n%s", body, diff)
				}
				if !tc.layers && len(others) > 0 {
					t.Errorf("recall %s: offered %s, which the filter cannot hold", body, strings.Join(others, " "))
				}
			})
		}
	}
}
