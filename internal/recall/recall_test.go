package recall

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type seed struct {
	content    string
	daysAgo    float64
	importance float64
	session    string
}

// corpus is a small household's memories: the ordering tests below depend
// on each line, so change them together.
var corpus = []seed{
	{"I am allergic to penicillin, it gives me hives", 60, 0.95, "health"},                    // 1
	{"Had a nice chat about the weather", 1, 0.2, "chat"},                                     // 2
	{"Bob wants the standup moved to 10:30 on Fridays", 5, 0.6, "work"},                       // 3
	{"Bob asked again about moving the standup", 2, 0.5, "work"},                              // 4
	{"The garden sprinkler runs at 6am", 20, 0.4, "home"},                                     // 5
	{"The garden sprinkler runs at 6am", 3, 0.4, "home2"},                                     // 6: same text, newer
	{"We decided to use SQLite for the memory store", 10, 0.9, "work"},                        // 7
	{"Alice prefers green tea to coffee", 30, 0.7, "chat"},                                    // 8
	{"Coffee machine descaling is due next week", 4, 0.5, "home"},                             // 9
	{"Penicillin was mentioned in a podcast about the history of medicine", 0.5, 0.3, "chat"}, // 10
}

func setup(t *testing.T) *store.Agent {
	t.Helper()
	mems := make([]store.Memory, len(corpus))
	for i, s := range corpus {
		mems[i] = store.Memory{
			Content:     s.content,
			Timestamp:   now.Add(-time.Duration(s.daysAgo * float64(24*time.Hour))),
			Importance:  s.importance,
			SessionID:   s.session,
			ContentHash: fmt.Sprint(i),
		}
	}
	return memAgent(t, mems)
}

// testStore opens a store in a temporary directory, closed at cleanup.
func testStore(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(tb.Context(), store.Options{Dir: tb.TempDir(), Location: time.UTC, Kinds: kinds.Of})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// agentIn acquires agent name of st, creating it, and gives it mems.
func agentIn(tb testing.TB, st *store.Store, name string, mems []store.Memory) *store.Agent {
	tb.Helper()
	a, err := st.Acquire(tb.Context(), name, true)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Release(a) })
	if len(mems) > 0 {
		if _, err := a.Insert(tb.Context(), mems); err != nil {
			tb.Fatal(err)
		}
	}
	return a
}

// memAgent is agent "main" of a new store, holding mems.
func memAgent(tb testing.TB, mems []store.Memory) *store.Agent {
	tb.Helper()
	return agentIn(tb, testStore(tb), "main", mems)
}

func ids(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func TestRecallOrdering(t *testing.T) {
	a := setup(t)
	e := &Engine{Now: func() time.Time { return now }}
	cases := []struct {
		query string
		want  []string // the leading items, in order
	}{
		// An old, important statement beats a recent passing mention.
		{"penicillin", []string{"memory:1", "memory:10"}},
		// Both standup memories match every term; BM25's length
		// normalisation and recency put the shorter, newer one first.
		{"what did Bob say about the standup?", []string{"memory:4", "memory:3"}},
		// Identical texts are offered once: the newer copy.
		{"garden sprinkler", []string{"memory:6"}},
		// A stated preference (more important) edges out a recent chore.
		{"coffee", []string{"memory:8", "memory:9"}},
		{"SQLite decision", []string{"memory:7"}},
		// Nothing matches: no best bad match, only the pinned profile
		// (importance 0.95), which is always offered.
		{"quantum chromodynamics", []string{"memory:1"}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			res, err := e.Recall(t.Context(), a, Query{Text: tc.query})
			if err != nil {
				t.Fatal(err)
			}
			got := ids(res.Items)
			if len(got) > len(tc.want) {
				got = got[:len(tc.want)]
			}
			if len(tc.want) == 0 && len(res.Items) == 0 {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s\nall: %v", diff, ids(res.Items))
			}
		})
	}
}

func TestRecallEmptyQueryOffersImportantRecent(t *testing.T) {
	a := setup(t)
	e := &Engine{Now: func() time.Time { return now }}
	for _, q := range []string{"", "   ", "what is the"} {
		res, err := e.Recall(t.Context(), a, Query{Text: q, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		// 0.5 × importance + 0.5 × recency: 7 (0.9, 10 days) 0.85, 3 (0.6,
		// 5 days) 0.74, 4 (0.5, 2 days) 0.73, ahead of the newest, 10 (0.3).
		if diff := cmp.Diff([]string{"memory:7", "memory:3", "memory:4"}, ids(res.Items)); diff != "" {
			t.Errorf("query %q (-want +got):\n%s", q, diff)
		}
	}
}

func TestRecallBudgetAndK(t *testing.T) {
	a := setup(t)
	e := &Engine{Now: func() time.Time { return now }}
	for _, budget := range []int{5, 20, 40, 80, 1000} {
		res, err := e.Recall(t.Context(), a, Query{Text: "penicillin standup coffee garden", BudgetTokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		if res.Tokens > budget {
			t.Errorf("budget %d: context has %d tokens", budget, res.Tokens)
		}
		if got := text.EstimateTokens(res.Context); got != res.Tokens {
			t.Errorf("budget %d: reported %d tokens, context estimates %d", budget, res.Tokens, got)
		}
		sum := 0
		for _, it := range res.Items {
			sum += it.Tokens
			if !strings.Contains(res.Context, "["+it.ID+"]") {
				t.Errorf("item %s not cited in the context", it.ID)
			}
		}
		if sum > budget {
			t.Errorf("budget %d: items add up to %d tokens", budget, sum)
		}
		if budget >= 20 && len(res.Items) == 0 {
			t.Errorf("budget %d: nothing fit", budget)
		}
	}
	res, err := e.Recall(t.Context(), a, Query{Text: "penicillin standup coffee garden", K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 {
		t.Errorf("k=2 returned %d items", len(res.Items))
	}
	// A best item longer than the whole budget is cut, not dropped.
	res, err = e.Recall(t.Context(), a, Query{Text: "podcast history medicine", BudgetTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || !strings.HasSuffix(res.Context, "…") || res.Tokens > 8 {
		t.Errorf("tiny budget: %+v", res)
	}
}

func TestRecallFiltersAndFacts(t *testing.T) {
	a := setup(t)
	ctx := context.Background()
	e := &Engine{Now: func() time.Time { return now }}
	res, err := e.Recall(ctx, a, Query{Text: "standup", Session: "work", Since: now.Add(-3 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"memory:4"}, ids(res.Items)); diff != "" {
		t.Errorf("since+session (-want +got):\n%s", diff)
	}

	old, err := a.AddFact(ctx, store.Fact{Entity: "Alice", Attribute: "drink", Content: "prefers green tea", Confidence: 0.8, ValidFrom: now.Add(-40 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := a.AddFact(ctx, store.Fact{Entity: "Alice", Attribute: "drink", Content: "switched to coffee", Confidence: 0.8, ValidFrom: now.Add(-2 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	rej, err := a.AddFact(ctx, store.Fact{Entity: "Alice", Attribute: "pet", Content: "owns a llama", Confidence: 0.9, ValidFrom: now.Add(-5 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RejectFact(ctx, rej); err != nil {
		t.Fatal(err)
	}
	res, err = e.Recall(ctx, a, Query{Text: "Alice", K: 20})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(ids(res.Items), " ")
	if !strings.Contains(got, fmt.Sprintf("fact:%d", cur)) {
		t.Errorf("current fact missing: %s", got)
	}
	for _, bad := range []int64{old, rej} {
		if strings.Contains(got, fmt.Sprintf("fact:%d", bad)) {
			t.Errorf("superseded or rejected fact:%d offered: %s", bad, got)
		}
	}
	// As of a month ago the old value was the current one.
	res, err = e.Recall(ctx, a, Query{Text: "Alice", K: 20, AsOf: now.Add(-20 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(ids(res.Items), " ")
	if !strings.Contains(got, fmt.Sprintf("fact:%d", old)) || strings.Contains(got, fmt.Sprintf("fact:%d", cur)) {
		t.Errorf("as of 20 days ago: %s", got)
	}
}

func TestRequestParse(t *testing.T) {
	cases := []struct {
		req   Request
		valid bool
	}{
		{Request{Query: "x"}, true},
		{Request{Query: "x", AsOf: "2026-02-01T00:00:00Z", Since: "2026-01-01T00:00:00+01:00"}, true},
		{Request{Query: "x", AsOf: "yesterday"}, false},
		{Request{Query: "x", Until: "2026-02-01"}, false},
		{Request{Query: "x", BudgetTokens: -1}, false},
		{Request{Query: "x", BudgetTokens: MaxBudgetTokens + 1}, false},
		{Request{Query: "x", K: MaxK + 1}, false},
		{Request{Query: strings.Repeat("x", MaxQueryBytes+1)}, false},
	}
	for _, tc := range cases {
		_, err := tc.req.Parse()
		if (err == nil) != tc.valid {
			t.Errorf("Parse(%+v) = %v, want valid=%v", tc.req, err, tc.valid)
		}
	}
}

// A live question counts the use of the facts it is offered; a question
// asked as of a past time does not. A fact used before weighs a little more.
func TestCountUse(t *testing.T) {
	a := agentWith(t, conversation)
	ctx := t.Context()
	now := day0.Add(72 * time.Hour)
	id, err := a.AddFact(ctx, store.Fact{Entity: "Bob", Attribute: "hobby", Content: "Bob makes pottery bowls", Confidence: 0.8, ValidFrom: day0})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Now: func() time.Time { return now }, CountUse: true}
	use := func() (int64, *time.Time) {
		t.Helper()
		fs, err := a.Facts(ctx, store.FactFilter{Entity: "Bob"})
		if err != nil || len(fs) != 1 {
			t.Fatalf("facts: %v %v", fs, err)
		}
		return fs[0].AccessCount, fs[0].LastAccessed
	}
	for range 2 {
		res, err := e.Recall(ctx, a, Query{Text: "what does Bob make in pottery?", Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(ids(res.Items), " "), fmt.Sprintf("fact:%d", id)) {
			t.Fatalf("fact not offered: %v", ids(res.Items))
		}
	}
	if n, at := use(); n != 2 || at == nil || !at.Equal(now) {
		t.Errorf("after two live questions: access_count %d, last_accessed %v; want 2, %v", n, at, now)
	}
	res, err := e.Recall(ctx, a, Query{Text: "what does Bob make in pottery?", AsOf: now, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := use(); n != 2 {
		t.Errorf("a question as of a time counted the use: access_count %d, want 2", n)
	}
	for _, it := range res.Items {
		if it.ID == fmt.Sprintf("fact:%d", id) && (it.Explain == nil || it.Explain.Use <= 0) {
			t.Errorf("a used fact's explanation shows no use: %+v", it.Explain)
		}
	}
	// Without CountUse nothing is written.
	if _, err := (&Engine{}).Recall(ctx, a, Query{Text: "what does Bob make in pottery?"}); err != nil {
		t.Fatal(err)
	}
	if n, _ := use(); n != 2 {
		t.Errorf("CountUse off counted the use: access_count %d, want 2", n)
	}
}
