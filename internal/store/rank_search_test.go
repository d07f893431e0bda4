package store

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A day record is bounded by its day, not by when it was written: a past
// question (as_of) sees the record of an earlier day consolidated later.
func TestSearchDayRecordsByDay(t *testing.T) {
	a := utcAgent(t)
	if _, err := a.PutConsolidation(t.Context(), Consolidation{Date: "2026-02-01", Summary: "Kicked off the greenhouse project"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		terms []string
		until time.Time
		want  int
	}{
		{[]string{"greenhouse"}, time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), 1},
		{nil, time.Date(2026, 2, 1, 23, 0, 0, 0, time.UTC), 1},
		{[]string{"greenhouse"}, time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), 0},
		{[]string{"volcano"}, time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), 0},
	}
	for _, c := range cases {
		got, err := a.SearchDayRecords(t.Context(), SearchOptions{Terms: c.terms, Until: c.until, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.want {
			t.Errorf("terms %v until %s: %d records, want %d", c.terms, c.until, len(got), c.want)
		}
		if len(got) == 1 && got[0].Date != "2026-02-01" {
			t.Errorf("date %q", got[0].Date)
		}
	}
}

// Neighbours are the turns of the same session beside the given ones.
func TestNeighbours(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var mems []Memory
	for i, s := range []string{"a", "a", "a", "b", "b"} {
		mems = append(mems, Memory{Content: "turn " + string(rune('1'+i)), SessionID: s, Timestamp: t0.Add(time.Duration(i) * time.Minute),
			ContentHash: string(rune('a' + i))})
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	got, err := a.Neighbours(t.Context(), []int64{3}, 1, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Memory 3 ends session a: 2 is beside it, 4 is in session b.
	if len(got) != 1 || got[0].ID != 2 {
		t.Errorf("neighbours of 3: %+v, want memory 2 only", got)
	}
	got, err = a.Neighbours(t.Context(), []int64{1, 2}, 2, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != 3 {
		t.Errorf("neighbours of 1, 2: %+v, want memory 3 only", got)
	}
}

// A memory is found by the kinds of thing it names ("Chicago": a city)
// when asked for, under the same filters as by its words, and leaves the
// kinds index when deleted.
func TestSearchByKind(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ins, err := a.Insert(t.Context(), []Memory{
		{Content: "We drove to Chicago for the game", Timestamp: t0, ContentHash: "a", Role: "john"},
		{Content: "I love exploring new cities", Timestamp: t0.Add(time.Minute), ContentHash: "b", Role: "tim"},
		{Content: "Started karate classes", Timestamp: t0.Add(2 * time.Minute), ContentHash: "c", Role: "john"},
	})
	if err != nil {
		t.Fatal(err)
	}
	search := func(kinds bool, role string, terms ...string) []int64 {
		t.Helper()
		return hitIDs(t, a, SearchOptions{Terms: terms, Limit: 5, Role: role, Kinds: kinds})
	}
	chicago, cities, karate := ins[0].ID, ins[1].ID, ins[2].ID
	if got := search(true, "", "cities"); len(got) != 1 || got[0] != chicago {
		t.Errorf("by kind, cities: %v, want only the Chicago memory %d", got, chicago)
	}
	if got := search(false, "", "cities"); len(got) != 1 || got[0] != cities {
		t.Errorf("by words, cities: %v, want only %d", got, cities)
	}
	if got := search(true, "john", "martial", "arts"); len(got) != 1 || got[0] != karate {
		t.Errorf("by kind, martial arts said by john: %v, want %d", got, karate)
	}
	if got := search(true, "tim", "martial"); len(got) != 0 {
		t.Errorf("by kind, martial arts said by tim: %v, want none", got)
	}
	if err := a.Delete(t.Context(), chicago); err != nil {
		t.Fatal(err)
	}
	if got := search(true, "", "city"); len(got) != 0 {
		t.Errorf("deleted memory still found by kind: %v", got)
	}
}

func TestSpeaks(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if _, err := a.Insert(t.Context(), []Memory{
		{Content: "hello", Role: "Ann Lee", Timestamp: t0, ContentHash: "1"},
		{Content: "later", Role: "Cleo", Timestamp: t0.Add(time.Hour), ContentHash: "2"},
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		until time.Time
		want  bool
	}{
		{"ann", t0, true},     // the role's first word, any case
		{"Ann Lee", t0, true}, // the whole role
		{"Lee", t0, false},    // not its first word
		{"An", t0, false},     // a prefix of a word is not the word
		{"A%", t0, false},     // LIKE's wildcards are literal
		{"A_n", t0, false},    //
		{"Cleo", t0, false},   // said after until
		{"Cleo", t0.Add(2 * time.Hour), true},
		{"", t0, false},
	}
	for _, c := range cases {
		got, err := a.Speaks(t.Context(), c.name, c.until)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("Speaks(%q, %s) = %v, want %v", c.name, c.until.Format(time.TimeOnly), got, c.want)
		}
	}
}

// Speaks' roles, kept by the read connection, follow every write: a new
// speaker is known at once, a forgotten one's turns are not.
func TestSpeaksFollowsWrites(t *testing.T) {
	a := acquire(t, openTest(t, Options{ReadConns: 1, Location: time.UTC}), "main")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	speaks := func(name string, want bool) {
		t.Helper()
		if got, err := a.Speaks(t.Context(), name, time.Time{}); err != nil || got != want {
			t.Errorf("Speaks(%q) = %v %v, want %v", name, got, err, want)
		}
	}
	if _, err := a.Insert(t.Context(), []Memory{{Content: "hello", Role: "Ann", Timestamp: t0, ContentHash: "1"}}); err != nil {
		t.Fatal(err)
	}
	speaks("Ann", true)
	speaks("Cleo", false)
	ins, err := a.Insert(t.Context(), []Memory{{Content: "later", Role: "CLEO Park", Timestamp: t0.Add(time.Hour), ContentHash: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	speaks("cleo", true)
	if err := a.Delete(t.Context(), ins[0].ID); err != nil {
		t.Fatal(err)
	}
	speaks("Cleo", false)
}

// utcAgent is agent "main" of a fresh store in UTC, released when the test ends.
func utcAgent(t *testing.T) *Agent {
	t.Helper()
	st := openTest(t, Options{Location: time.UTC})
	a, err := st.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Release(a) })
	return a
}

// The kinds indexed are those Options.Kinds names: the store has no lexicon
// of its own, and without one indexes none (and still stores).
func TestKindsComeFromOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kinds func(string) string
		want  int
	}{
		{"given", func(s string) string { return "medicine " + strings.ToLower(s) }, 1},
		{"none", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Open(t.Context(), Options{Dir: t.TempDir(), Location: time.UTC, Kinds: tc.kinds})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			a, err := st.Acquire(t.Context(), "main", true)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Release(a)
			if _, err := a.Insert(t.Context(), []Memory{{Content: "Took penicillin", Timestamp: time.Now(), ContentHash: "a"}}); err != nil {
				t.Fatal(err)
			}
			hits, err := a.SearchMemories(t.Context(), SearchOptions{Terms: []string{"medicine"}, Limit: 5, Kinds: true})
			if err != nil || len(hits) != tc.want {
				t.Errorf("by kind, medicine: %d hits (%v), want %d", len(hits), err, tc.want)
			}
		})
	}
}

// A hit's entities are decoded when read, as capture stored them; a memory
// without any says so before anything is decoded.
func TestHitEntitiesDecodeWhenRead(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	mems := []Memory{
		{Content: "lunch with Ann Lee in Leeds", Timestamp: t0, ContentHash: "e1",
			Entities: []Entity{{Text: "Ann Lee", Type: "name"}, {Text: "Leeds", Type: "place"}}},
		{Content: "lunch alone", Timestamp: t0.Add(time.Minute), ContentHash: "e2"},
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	hits, err := a.SearchMemories(t.Context(), SearchOptions{Terms: []string{"lunch"}, Limit: 5})
	if err != nil || len(hits) != 2 {
		t.Fatalf("hits %+v, %v; want both memories", hits, err)
	}
	for _, h := range hits {
		want := map[int64][]string{1: {"Ann Lee", "Leeds"}, 2: nil}[h.ID]
		if none := h.Entities.None(); none != (want == nil) {
			t.Errorf("memory %d: None() = %v before decoding", h.ID, none)
		}
		if got := h.Entities.Texts(); !slices.Equal(got, want) {
			t.Errorf("memory %d: entities %q, want %q", h.ID, got, want)
		}
		if got := h.Entities.Texts(); !slices.Equal(got, want) {
			t.Errorf("memory %d: entities read again %q, want %q", h.ID, got, want)
		}
	}
}

// MaxShare leaves out the terms more than that share of the memories hold
// (and more than the window); a search of none but those finds nothing.
func TestMaxShareLeavesOutCommonTerms(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var mems []Memory
	for i := range 10 {
		txt := "filed the report"
		if i < 8 {
			txt = "made coffee and filed the report"
		}
		if i == 9 {
			txt = "a zebra at the zoo"
		}
		mems = append(mems, Memory{Content: txt, Timestamp: t0.Add(time.Duration(i) * time.Minute), ContentHash: fmt.Sprint("s", i)})
	}
	if _, err := a.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	count := func(terms []string, share float64, window int) int {
		hits, err := a.SearchMemories(t.Context(), SearchOptions{Terms: terms, Limit: 20, MaxShare: share, Window: window})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	cases := []struct {
		terms []string
		share float64
		want  int
	}{
		{[]string{"coffee", "zebra"}, 0, 9},
		{[]string{"coffee", "zebra"}, 0.5, 1}, // coffee: 8 of 10
		{[]string{"coffee", "zebra"}, 0.8, 9}, // at the share: kept
		{[]string{"coffee"}, 0.5, 0},
	}
	for _, c := range cases {
		if got := count(c.terms, c.share, 0); got != c.want {
			t.Errorf("%v at share %v: %d hits, want %d", c.terms, c.share, got, c.want)
		}
	}
	// Coffee's 8 matches cannot fill a window of 8: kept; they fill one of 7.
	if got := count([]string{"coffee"}, 0.5, 8); got != 8 {
		t.Errorf("coffee at share 0.5 in a window of 8: %d hits, want 8", got)
	}
	if got := count([]string{"coffee"}, 0.5, 7); got != 0 {
		t.Errorf("coffee at share 0.5 in a window of 7: %d hits, want none", got)
	}
}

// MatchesMemories finds a memory exactly when SearchMemories does, through
// each filter that leaves one out: a time bound, a superseded memory, a
// flagged one (forgotten and said again), a role, and the kinds index.
func TestMatchesMemoriesAgreesWithSearch(t *testing.T) {
	a := acquire(t, openTest(t, Options{Kinds: func(string) string { return "device" }}), "main")
	jan := time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC)
	ids := insertAt(t, a, map[string]time.Time{"my phone is 0612": jan, "new phone: 0687": may, "the kettle 0612 hums": may},
		"my phone is 0612", "new phone: 0687", "the kettle 0612 hums")
	var opts []SearchOptions
	for _, terms := range [][]string{{"phone"}, {"0612"}, {"0687"}, {"kettle"}, {"volcano"}, {"volcano", "0687"}, {"device"}, nil} {
		for _, until := range []time.Time{{}, jan, may} {
			for _, o := range []SearchOptions{{}, {Role: "user"}, {Role: "nobody"}, {Kinds: true}, {Window: 1}, {MaxShare: 0.5}} {
				o.Terms, o.Until, o.Limit = terms, until, 1
				opts = append(opts, o)
			}
		}
	}
	agree := func(when string) {
		t.Helper()
		for _, o := range opts {
			hits, err := a.SearchMemories(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.MatchesMemories(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got != (len(hits) > 0) {
				t.Errorf("%s: %+v: MatchesMemories %v, SearchMemories %d hits", when, o, got, len(hits))
			}
		}
	}
	agree("as stored")
	onePhone := func(attr string) bool { return attr == "phone" }
	supersedeDay(t, a, jan, ids["my phone is 0612"], "0612", onePhone)
	supersedeDay(t, a, may, ids["new phone: 0687"], "0687", onePhone)
	agree("superseded")
	if err := a.FlagMemories(t.Context(), []int64{ids["the kettle 0612 hums"]}); err != nil {
		t.Fatal(err)
	}
	agree("flagged")
	if ok, err := a.MatchesMemories(t.Context(), SearchOptions{Terms: []string{"kettle"}}); err != nil || ok {
		t.Errorf("a flagged memory's word: %v %v, want false", ok, err)
	}
}

// The entities column read without reflection gives the texts JSON
// decoding gives, and is used for what derivedColumns writes of plain
// texts; anything it does not read (escapes, bytes that are not UTF-8,
// another layout) is left to JSON decoding.
func TestEntityTextsReadAsDecoded(t *testing.T) {
	texts := []string{"Caroline", "Zoë Dubois", "Tom & Jerry", "<b>", `say "hi"`, `back\slash`, "tab\there",
		"bad \xff byte", "", "U+2028 \u2028 and DEL \x7f", "emoji 🦔"}
	var raws []string
	for i := range texts {
		m := &Memory{Entities: []Entity{{Text: texts[i], Type: "person"}, {Text: texts[(i+3)%len(texts)], Type: "place"}}}
		raw, _, _, err := derivedColumns(m)
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, raw)
		plain := !strings.ContainsAny(texts[i]+texts[(i+3)%len(texts)], "\"\\\t<>&\xff\u2028")
		if _, ok := columnTexts(raw); ok != plain {
			t.Errorf("columnTexts(%s) read it: %v, want %v", raw, ok, plain)
		}
	}
	raws = append(raws, "[]", "[", "", "null", `[{"text":"A","type":"person"}`, `[{"text":"A","type":"person"},]`,
		`[{"type":"person","text":"A"}]`, `[{"text": "A", "type": "person"}]`, `[{"text":"A","type":"person","extra":1}]`,
		`[{"text":"A"}]`, `[{"text":"A","type":"person"}]x`, `[{"Text":"A","Type":"person"}]`, `[{"text":"A","type":"p"},{"text":"B","type":"q"}]`)
	for _, raw := range raws {
		want := decodedTexts(raw)
		if got, ok := columnTexts(raw); ok && !slices.Equal(got, want) {
			t.Errorf("columnTexts(%q) = %q, want %q", raw, got, want)
		}
		e := EntityTexts{raw: raw}
		if got := e.Texts(); !slices.Equal(got, want) {
			t.Errorf("Texts of %q = %q, want %q", raw, got, want)
		}
	}
}
