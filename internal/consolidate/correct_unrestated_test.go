package consolidate

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
)

// TestCorrectionRetiresEveryLayer: corrections that do not restate the
// attribute's words, said in another session and on another day, retire
// through the night the memory, its profile line and its fact; a question
// asked before the correction still sees the old value.
func TestCorrectionRetiresEveryLayer(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second string
		ask           string
		old           string // a word only the old claim holds
	}{
		{"a pro-form, next day", "I think I'll order the grey sofa for the lounge.", "Changed my mind, the green one.", "Which sofa am I ordering?", "grey"},
		{"a habit ended in its -ing form", "I run 5k round the reservoir every Tuesday.", "I stopped running, my knee is bad.", "When do I run?", "reservoir"},
		{"a named employer left", "I work as a pharmacist at Bexley Chemists.", "I left Bexley Chemists, I'm at the Quay pharmacy now.", "Where do I work?", "at bexley"}, // the job title stays: RetireCorrectedNaming
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			st := openStore(t)
			e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
				Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }}
			ids := ingest(t, st, "main", []capture.Input{
				{Content: tc.first, Role: "user", Timestamp: "2026-05-04T09:00:00Z", SessionID: "a"},
				{Content: "The hallway bulb went again.", Role: "user", Timestamp: "2026-05-04T19:00:00Z", SessionID: "x"},
			})
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			ingest(t, st, "main", []capture.Input{{Content: tc.second, Role: "user", Timestamp: "2026-05-05T10:00:00Z", SessionID: "b"}})
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			a, err := st.Acquire(ctx, "main", false)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Release(a)
			if m, err := a.Get(ctx, ids[0]); err != nil || m.SupersededBy == nil {
				t.Errorf("the old claim %q = %+v, %v; want it superseded", tc.first, m, err)
			}
			lines, err := a.Profile(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				if strings.Contains(strings.ToLower(l.Text), tc.old) {
					t.Errorf("profile line %q is still current", l.Text)
				}
			}
			if got := recallText(t, a, tc.ask, "2026-05-06T09:00:00Z"); strings.Contains(strings.ToLower(got), tc.old) {
				t.Errorf("recall after the correction offers the old claim:\n%s", got)
			}
			if got := recallText(t, a, tc.ask, "2026-05-04T12:00:00Z"); !strings.Contains(strings.ToLower(got), tc.old) {
				t.Errorf("recall as of before the correction lacks the old claim:\n%s", got)
			}
		})
	}
}
