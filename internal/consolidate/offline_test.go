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
