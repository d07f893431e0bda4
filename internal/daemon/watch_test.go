package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// TestChangedFileRebuildsTheDaysThatCitedIt: a note consolidated on a day, then changed, must not
// leave its old words in that day's record once the rebuilder has run.
func TestChangedFileRebuildsTheDaysThatCitedIt(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := &consolidate.Engine{Store: st, Consolidator: consolidate.Offline{}, Location: time.UTC,
		Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }}
	rb := &DayRebuilder{Engine: eng, Store: st, Debounce: 10 * time.Millisecond}
	ing := &watch.Ingester{Store: st, AutoCreate: true, Location: time.UTC, OnRetire: rb.Notify}
	rctx, stop := context.WithCancel(ctx)
	rb.Start(rctx, nil)
	defer func() { stop(); rb.Wait() }()

	day := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	if _, err := ing.IngestContent(ctx, "main", "/vault", "notes/building.md", []byte("The gate code is 1234 for the building."), day); err != nil {
		t.Fatal(err)
	}
	if _, err := ing.IngestContent(ctx, "main", "/vault", "notes/shopping.md", []byte("Buy bread and olives at the market."), day.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(ctx, "main", "2026-05-01"); err != nil {
		t.Fatal(err)
	}
	record := func() string {
		var summary string
		err := st.With(ctx, "main", false, func(a *store.Agent) error {
			recs, err := a.Consolidations(ctx, "2026-05-01", "2026-05-01", 1)
			if len(recs) == 1 {
				summary = recs[0].Summary + " " + string(recs[0].KeyFacts)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return summary
	}
	if r := record(); !strings.Contains(r, "1234") {
		t.Fatalf("record before the change = %q, want the old code in it", r)
	}
	if _, err := ing.IngestContent(ctx, "main", "/vault", "notes/building.md", []byte("The gate code is 5678 for the building."), day.Add(19*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	marks := func() []store.RebuildDay {
		var days []store.RebuildDay
		err := st.With(ctx, "main", false, func(a *store.Agent) error {
			var err error
			days, err = a.FileRebuildDays(ctx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return days
	}
	// The rebuild commits the day's record, then clears its mark: wait for
	// both, the end state, rather than reading between the two.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(record(), "1234") || len(marks()) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after the change the day's record is %q and its marks %v: want the new version and no marks", record(), marks())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := record(); !strings.Contains(r, "olives") {
		t.Errorf("rebuilt record = %q, want the day's other memory in it", r)
	}
}
