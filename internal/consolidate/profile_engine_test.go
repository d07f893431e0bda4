package consolidate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// describeLine is a line as the golden files and table tests show it.
func describeLine(l store.ProfileLine) string {
	end := ""
	if !l.ValidTo.IsZero() {
		end = " (until " + l.ValidTo.Format(time.DateOnly) + ")"
	}
	return fmt.Sprintf("%s %s/%s=%q: %s%s", l.Category, l.Subject, l.Key, l.Value, l.Text, end)
}

// TestProfileGolden consolidates realistic days with the offline engine
// and compares the profile built with testdata/profile/*.golden (reviewed
// by eye: every line a durable truth of the day, none a one-off).
func TestProfileGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		days []string // testdata/profile/NAME.txt, on consecutive months
		asOf []time.Time
	}{
		{"family", []string{"family"}, nil},
		{"engineer", []string{"work", "changes"}, []time.Time{time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			for i, d := range tc.days {
				day := time.Date(2026, time.Month(1+i*3), 2, 0, 0, 0, 0, time.UTC)
				ingest(t, st, "main", readDay(t, filepath.Join("profile", d), day))
			}
			e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC, Now: func() time.Time { return now.AddDate(0, 6, 0) }}
			if _, err := e.RunAll(t.Context(), "main", false); err != nil {
				t.Fatal(err)
			}
			got := profileReport(t, st, append([]time.Time{{}}, tc.asOf...))
			golden := filepath.Join("testdata", "profile", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("profile (-%s +built; go test -update to accept):\n%s", golden, diff)
			}
		})
	}
}

// profileReport is the profile at each time (zero: now), a line each.
func profileReport(t *testing.T, st *store.Store, times []time.Time) string {
	t.Helper()
	var b strings.Builder
	err := st.With(context.Background(), "main", false, func(a *store.Agent) error {
		for _, at := range times {
			lines, err := a.Profile(t.Context(), at)
			if err != nil {
				return err
			}
			if at.IsZero() {
				b.WriteString("# now\n")
			} else {
				fmt.Fprintf(&b, "# as of %s\n", at.Format(time.DateOnly))
			}
			for _, l := range lines {
				fmt.Fprintf(&b, "%s %v\n", describeLine(l), l.SourceMemoryIDs)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestProfileRemovalSticksAcrossRebuild: a line a person removed stays
// out when its day is consolidated again (a memory of it forgotten), and
// the forgotten memory's own line goes.
func TestProfileRemovalSticksAcrossRebuild(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	day := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	ids := ingest(t, st, "main", []capture.Input{
		say("I'm allergic to penicillin.", day),
		say("My boss Priya signed off the plan.", day.Add(time.Hour)),
		say("Our cat Miso knocked over a glass.", day.Add(2*time.Hour)),
	})
	e := engine(st, Offline{})
	if _, err := e.Run(ctx, "main", "2026-03-02"); err != nil {
		t.Fatal(err)
	}
	err := st.With(ctx, "main", false, func(a *store.Agent) error {
		lines, err := a.Profile(ctx, time.Time{})
		if err != nil || len(lines) != 3 {
			t.Fatalf("profile = %v, %v; want three lines", lines, err)
		}
		for _, l := range lines {
			if l.Key == "manager" {
				if err := a.RemoveProfileLine(ctx, l.ID, now); err != nil {
					return err
				}
			}
		}
		return a.Delete(ctx, ids[2]) // the cat: the day's record is taken apart
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(ctx, "main", "2026-03-02"); err != nil {
		t.Fatal(err)
	}
	want := []string{`health user/allergy="penicillin": The user is allergic to penicillin.`}
	err = st.With(ctx, "main", false, func(a *store.Agent) error {
		lines, err := a.Profile(ctx, time.Time{})
		var got []string
		for _, l := range lines {
			got = append(got, describeLine(l))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("profile after the rebuild (-want +got):\n%s", diff)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
