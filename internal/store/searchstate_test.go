package store

import (
	"fmt"
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

// A term no memory holds is left out of a search's match, known so for
// the data version it was counted at: a memory holding it written later,
// through this store or another on the same file, is found at once though
// its kept count of 0 still weighs it (the table grew less than
// countsStale), and once deleted its term is absent again.
func TestAbsentTermsFollowWrites(t *testing.T) {
	dir := t.TempDir()
	a := acquire(t, openTest(t, Options{Dir: dir, ReadConns: 1}), "main")
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	said, order := map[string]time.Time{}, []string{}
	for i := range 40 { // enough that one more memory keeps the counts
		m := fmt.Sprintf("filler note %d", i)
		said[m], order = jan, append(order, m)
	}
	insertAt(t, a, said, order...)
	find := func(terms ...string) []int64 {
		t.Helper()
		return hitIDs(t, a, SearchOptions{Terms: terms, Limit: 50})
	}
	if got := find("zebra", "okapi"); got != nil {
		t.Fatalf("before: %v, want none", got)
	}
	z := insertAt(t, a, map[string]time.Time{"a zebra at the zoo": jan.Add(time.Hour)}, "a zebra at the zoo")["a zebra at the zoo"]
	if got := find("zebra", "note"); len(got) != 41 || got[0] != z {
		t.Errorf("zebra or note after the zebra's memory: %v, want %d first of 41", got, z)
	}
	other := acquire(t, openTest(t, Options{Dir: dir}), "main")
	o := insertAt(t, other, map[string]time.Time{"an okapi too": jan.Add(2 * time.Hour)}, "an okapi too")["an okapi too"]
	if got := find("okapi"); !slices.Equal(got, []int64{o}) {
		t.Errorf("okapi after another store wrote it: %v, want [%d]", got, o)
	}
	if err := a.Delete(t.Context(), z); err != nil {
		t.Fatal(err)
	}
	if got := find("zebra"); got != nil {
		t.Errorf("zebra after its memory was deleted: %v, want none", got)
	}
}

// The important memories a read connection keeps follow every write: one
// written is pinned at once, one deleted never comes back, and what a
// caller does to its copy is not kept.
func TestImportantMemoriesFollowWrites(t *testing.T) {
	a := acquire(t, openTest(t, Options{ReadConns: 1}), "main")
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	important := func() []string {
		t.Helper()
		hits, err := a.ImportantMemories(t.Context(), SearchOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for i := range hits {
			texts = append(texts, hits[i].Text)
			hits[i].Text = "changed by the caller"
		}
		return texts
	}
	insert := func(content string, importance float64, at time.Time) int64 {
		t.Helper()
		m := mem(content, "")
		m.Importance, m.Timestamp = importance, at
		ins, err := a.Insert(t.Context(), []Memory{m})
		if err != nil {
			t.Fatal(err)
		}
		return ins[0].ID
	}
	insert("lunch was fine", 0.3, jan)
	pen := insert("allergic to penicillin", 0.9, jan)
	if got, want := important(), []string{"allergic to penicillin"}; !slices.Equal(got, want) {
		t.Fatalf("first: %q, want %q", got, want)
	}
	if got, want := important(), []string{"allergic to penicillin"}; !slices.Equal(got, want) {
		t.Errorf("asked again: %q, want %q", got, want)
	}
	insert("the wifi password is on the fridge", 0.85, jan.Add(time.Hour))
	if got, want := important(), []string{"the wifi password is on the fridge", "allergic to penicillin"}; !slices.Equal(got, want) {
		t.Errorf("after a new one: %q, want %q", got, want)
	}
	if err := a.Delete(t.Context(), pen); err != nil {
		t.Fatal(err)
	}
	if got, want := important(), []string{"the wifi password is on the fridge"}; !slices.Equal(got, want) {
		t.Errorf("after a deletion: %q, want %q", got, want)
	}
}
