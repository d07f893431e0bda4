package llm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// withProfile is the valid record with a profile section: one true entry
// and the ways a model may lie or err, which must store nothing.
var withProfile = strings.TrimSuffix(valid, "}") + `,"profile":[` +
	`{"category":"work","subject":"Alice","key":"job_title","value":"team lead","text":"Alice is the team lead of Atlas.","memory_ids":[1]},` +
	`{"category":"work","subject":"user","key":"shoe_size","value":"44","text":"The user takes a size 44 shoe.","memory_ids":[1]},` +
	`{"category":"health","subject":"Alice","key":"employer","value":"Atlas","text":"Alice works at Atlas.","memory_ids":[1]},` +
	`{"category":"work","subject":"Atlas","key":"employer","value":"Friday","text":"Atlas ships on Friday.","memory_ids":[2]},` +
	`{"category":"work","subject":"Alice","key":"manager","value":"Bob","text":"Bob is Alice's manager.","memory_ids":[99]},` +
	`{"category":"work","subject":"Alice","key":"colleague","value":"","text":"","memory_ids":[1]}]}`

// TestEngineStoresTheModelsProfile: through each provider's recorded wire
// format, the profile section of the model's record becomes profile lines
// citing the memory: only the entry whose key, category and citation hold
// (a key outside the vocabulary, a key in another category, an assistant's
// words as the only source, an id not given and an empty entry are dropped).
func TestEngineStoresTheModelsProfile(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
			h := newHarness(t, p, []step{{answer: withProfile}}, nil)
			run, err := engine(st, h.client).Run(t.Context(), "main", "2026-03-02")
			if err != nil || run.Calls != 1 {
				t.Fatalf("run %+v, %v; want one call", run, err)
			}
			var lines []store.ProfileLine
			err = st.With(t.Context(), "main", false, func(a *store.Agent) error {
				lines, err = a.Profile(t.Context(), time.Time{})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != 1 {
				t.Fatalf("profile = %+v; want the one true entry", lines)
			}
			l := lines[0]
			if l.Category != "work" || l.Subject != "Alice" || l.Key != "job_title" || l.Value != "team lead" ||
				len(l.SourceMemoryIDs) != 1 || l.SourceMemoryIDs[0] != 1 || !l.Single ||
				!l.ValidFrom.Equal(time.Date(2026, 3, 2, 9, 14, 0, 0, time.UTC)) {
				t.Errorf("line = %+v", l)
			}
		})
	}
}
