package consolidate

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// readDay reads testdata/NAME.txt: "HH:MM role: content" a line, on day.
func readDay(t testing.TB, name string, day time.Time) []capture.Input {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []capture.Input
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		clock, rest, _ := strings.Cut(line, " ")
		role, content, _ := strings.Cut(rest, ": ")
		hm, err := time.Parse("15:04", clock)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		ts := day.Add(time.Duration(hm.Hour())*time.Hour + time.Duration(hm.Minute())*time.Minute)
		out = append(out, capture.Input{Content: content, Role: role, SessionID: "s1", Timestamp: ts.Format(time.RFC3339)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestOfflineGolden(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	ingest(t, st, "main", readDay(t, "day", day))
	var mems []store.Memory
	err := st.With(ctx, "main", false, func(a *store.Agent) error {
		var err error
		mems, err = a.DayMemories(ctx, "2026-03-02")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var o Offline
	whole, _, err := o.Map(ctx, "2026-03-02", mems)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(whole, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "day.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(got), string(want)); diff != "" {
		t.Errorf("offline consolidation of testdata/day.txt mismatch (-got +want):\n%s", diff)
	}

	// Mapped in small chunks and reduced, the day keeps the same key facts
	// and entities, and still gets a summary of the same length.
	var parts []Partial
	for _, c := range Chunks(mems, 120) {
		p, _, err := o.Map(ctx, "2026-03-02", c)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	if len(parts) < 3 {
		t.Fatalf("only %d chunks; want several to exercise reduce", len(parts))
	}
	reduced, _, err := o.Reduce(ctx, "2026-03-02", parts)
	if err != nil {
		t.Fatal(err)
	}
	facts := func(p Partial) []string {
		var out []string
		for _, f := range p.KeyFacts {
			out = append(out, f.Entity+"|"+f.Attribute+"|"+f.Content)
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff(facts(reduced), facts(whole)); diff != "" {
		t.Errorf("key facts after map-reduce mismatch (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(reduced.Entities, whole.Entities); diff != "" {
		t.Errorf("entities after map-reduce mismatch (-got +want):\n%s", diff)
	}
	if n := len(capture.Sentences(reduced.Summary)); n != summarySentences {
		t.Errorf("reduced summary has %d sentences, want %d: %q", n, summarySentences, reduced.Summary)
	}
}

func TestKeyFacts(t *testing.T) {
	said := time.Date(2023, 5, 8, 14, 0, 0, 0, time.UTC)
	alice := []store.Entity{{Text: "Alice", Type: "name"}}
	for _, tc := range []struct {
		sentence string
		role     string
		entities []store.Entity
		want     []string // entity|attribute|value|fact_type
	}{
		{"Alice's role is CTO.", "user", alice, []string{"Alice|job_title|CTO|attribute"}},
		{"Alice is the CTO now.", "user", alice, []string{"Alice|job_title|CTO|attribute"}},
		{"This is the best day.", "user", nil, nil},
		{"I prefer oat milk, never cow's milk.", "user", nil, []string{"user|preference: oat milk|prefers|preference"}},
		{"I love hiking in the Alps.", "caroline", nil, []string{"Caroline|preference: hiking in the alps|likes|preference"}},
		{"Alice hates tea", "user", alice, []string{"Alice|preference: tea|dislikes|preference"}},
		{"My favourite colour is green.", "user", nil, []string{"user|favourite colour|green|preference"}},
		{"We decided to ship on Friday.", "user", nil, []string{"we|||decision"}},
		{"Alice works at Mistral in Paris.", "user", alice, []string{"Alice|employer|Mistral in Paris|relation"}},
		{"I never drink coffee after 4pm.", "user", nil, []string{"user||never drink coffee after 4pm|preference"}},
		{"The budget is $4,000 for the quarter.", "user", []store.Entity{{Text: "$4,000", Type: "money"}}, []string{"budget|amount|$4,000|attribute"}},
		{"The launch is on 2 April.", "user", []store.Entity{{Text: "2 April", Type: "date"}}, []string{"launch|date|2 April|event"}},
		{"Is Alice the CTO?", "user", alice, nil},
		// A preference's object must name something on its own.
		{"I love it!", "melanie", nil, nil},
		{"I'd love to, but I'm busy.", "melanie", nil, nil},
		{"I love how you use it to tell your stories.", "melanie", nil, nil},
		{"I love that you chose pottery for your art.", "caroline", nil, nil},
		{"I love them so much.", "user", nil, nil},
		{"I like to paint on Sundays.", "user", nil, []string{"user|preference: to paint on sundays|likes|preference"}},
		{"I like that band.", "user", nil, nil}, // which band? said before
		// A relative date is resolved against when it was said (said is
		// Monday 8 May 2023); "on Friday" may be ahead, so it stays.
		{"The interview was yesterday.", "user", []store.Entity{{Text: "yesterday", Type: "date"}}, []string{"interview|date|7 May 2023|event"}},
		{"The interview is tomorrow.", "user", []store.Entity{{Text: "tomorrow", Type: "date"}}, []string{"interview|date|9 May 2023|event"}},
		{"The concert was last week.", "user", []store.Entity{{Text: "last week", Type: "date"}}, []string{"concert|date|1 May 2023 to 7 May 2023|event"}},
		{"The trip was last year.", "user", []store.Entity{{Text: "last year", Type: "date"}}, []string{"trip|date|2022|event"}},
		{"The meeting is on Friday.", "user", []store.Entity{{Text: "Friday", Type: "date"}}, []string{"meeting|date|Friday|event"}},
		{"It was last week.", "user", []store.Entity{{Text: "last week", Type: "date"}}, nil},
		{"ok thanks", "user", nil, nil},
	} {
		m := &store.Memory{ID: 7, Role: tc.role, Importance: 0.5, Entities: tc.entities, Timestamp: said}
		var got []string
		for _, f := range keyFacts(tc.sentence, m) {
			got = append(got, f.Entity+"|"+f.Attribute+"|"+f.Value+"|"+f.FactType)
		}
		if diff := cmp.Diff(got, tc.want); diff != "" {
			t.Errorf("keyFacts(%q) mismatch (-got +want):\n%s", tc.sentence, diff)
		}
	}
}
