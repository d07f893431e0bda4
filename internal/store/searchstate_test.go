package store

import (
	"slices"
	"testing"
	"time"
)

// TestSearchStateFollowsWrites: what a search checks first (the newest
// memory, whether any is superseded), kept by the read connection, follows
// every commit: the agent's own, a consolidation's and another store's on
// the same file (as another process's). One read connection, so each
// search reads on the connection that kept the state.
func TestSearchStateFollowsWrites(t *testing.T) {
	dir := t.TempDir()
	a := acquire(t, openTest(t, Options{Dir: dir, ReadConns: 1}), "main")
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)
	ids := insertAt(t, a, map[string]time.Time{"my phone is 0612": jan}, "my phone is 0612")
	want := []int64{ids["my phone is 0612"]}
	if got := phoneHits(t, a, jan); !slices.Equal(got, want) {
		t.Fatalf("as of January: %v, want %v", got, want)
	}
	// A newer memory: a search as of January must still leave it out.
	maps := insertAt(t, a, map[string]time.Time{"new phone: 0687": may}, "new phone: 0687")
	if got := phoneHits(t, a, jan); !slices.Equal(got, want) {
		t.Errorf("as of January after May's memory: %v, want %v", got, want)
	}
	// No day record or fact yet: nothing to search (and none searched).
	phone := SearchOptions{Terms: []string{"phone"}, Limit: 10}
	if days, facts := searchLayers(t, a, phone); days != 0 || facts != 0 {
		t.Fatalf("before the night: %d day records, %d facts; want none", days, facts)
	}
	// The night supersedes January's number: now it is left out, and its
	// records and facts are found.
	onePhone := func(attr string) bool { return attr == "phone" }
	supersedeDay(t, a, jan, ids["my phone is 0612"], "0612", onePhone)
	supersedeDay(t, a, may, maps["new phone: 0687"], "0687", onePhone)
	if got, want := phoneHits(t, a, time.Time{}), []int64{maps["new phone: 0687"]}; !slices.Equal(got, want) {
		t.Errorf("now, after the night: %v, want %v", got, want)
	}
	if days, facts := searchLayers(t, a, phone); days != 2 || facts != 1 {
		t.Errorf("after the night: %d day records, %d current facts; want 2 and 1", days, facts)
	}
	// Another store on the same file writes a newer memory still.
	other := acquire(t, openTest(t, Options{Dir: dir}), "main")
	june := may.AddDate(0, 1, 0)
	late := insertAt(t, other, map[string]time.Time{"work phone 0700": june}, "work phone 0700")
	if got, want := phoneHits(t, a, may), []int64{maps["new phone: 0687"]}; !slices.Equal(got, want) {
		t.Errorf("as of May after June's memory from another store: %v, want %v", got, want)
	}
	if got, want := phoneHits(t, a, time.Time{}), []int64{maps["new phone: 0687"], late["work phone 0700"]}; !slices.Equal(got, want) {
		t.Errorf("now: %v, want %v", got, want)
	}
}

// searchLayers is how many day records and current facts a search finds.
func searchLayers(t *testing.T, a *Agent, o SearchOptions) (days, facts int) {
	t.Helper()
	d, err := a.SearchDayRecords(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	f, err := a.SearchCurrentFacts(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	return len(d), len(f)
}
