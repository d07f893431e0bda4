package consolidate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// recallText asks what the scenario's probe asks and returns everything the
// answer shows: its items and its context.
func recallText(t *testing.T, a *store.Agent, query, asOf string) string {
	t.Helper()
	q, err := recall.Request{Query: query, AsOf: asOf}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&recall.Engine{}).Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, it := range res.Items {
		b.WriteString(it.Text + "\n")
	}
	return b.String() + res.Context
}

// forgetMatching forgets, as the user would, every memory and every fact
// (current or not) whose text contains match.
func forgetMatching(t *testing.T, a *store.Agent, match string) (mems, facts int) {
	t.Helper()
	ctx := t.Context()
	list, _, err := a.List(ctx, store.ListOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		if strings.Contains(strings.ToLower(m.Content), match) {
			if err := a.Delete(ctx, m.ID); err != nil {
				t.Fatal(err)
			}
			mems++
		}
	}
	fs, err := a.Facts(ctx, store.FactFilter{History: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if strings.Contains(strings.ToLower(f.Content), match) && !f.Rejected {
			if err := a.RejectFact(ctx, f.ID); err != nil {
				t.Fatal(err)
			}
			facts++
		}
	}
	return mems, facts
}

// TestForgetSticks is ../shared/eval/scenarios/forget-sticks.yaml through
// the real store, offline consolidation and recall: once the memory and
// facts about the parking spot are forgotten, the same sentence ingested
// again on a later day and consolidated never brings P-117 back.
func TestForgetSticks(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	const claim = "My parking spot at the office is P-117."
	const probe = "Where is my parking spot at the office?"
	ingest(t, st, "main", []capture.Input{{Content: claim, Role: "user", Timestamp: "2026-04-01T08:00:00Z"}})
	clock := time.Date(2026, 4, 2, 1, 0, 0, 0, time.UTC)
	e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC, Now: func() time.Time { return clock }}
	if _, err := e.Run(ctx, "main", "2026-04-01"); err != nil {
		t.Fatal(err)
	}
	a, err := st.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)

	// Before forgetting, every layer has it: the check below means something.
	recs, err := a.Consolidations(ctx, "", "", 0)
	if err != nil || len(recs) != 1 || !strings.Contains(recs[0].Summary+string(recs[0].KeyFacts), "P-117") {
		t.Fatalf("records before forgetting = %+v, %v; want the day's record with P-117", recs, err)
	}
	cur, err := a.Facts(ctx, store.FactFilter{})
	if err != nil || len(cur) != 1 || !strings.Contains(cur[0].Content, "P-117") {
		t.Fatalf("facts before forgetting = %+v, %v; want the parking spot", cur, err)
	}
	if got := recallText(t, a, probe, "2026-04-02T09:00:00Z"); !strings.Contains(got, "P-117") {
		t.Fatalf("recall before forgetting = %q, want P-117", got)
	}

	// forget: {match: "parking spot"}
	if m, f := forgetMatching(t, a, "parking spot"); m != 1 {
		t.Fatalf("forgot %d memories and %d facts, want the one memory", m, f)
	}
	if recs, _ := a.Consolidations(ctx, "", "", 0); len(recs) != 0 {
		t.Errorf("records after forgetting the day's only memory = %+v, want none", recs)
	}
	if cur, _ := a.Facts(ctx, store.FactFilter{}); len(cur) != 0 {
		t.Errorf("current facts after forgetting = %+v, want none", cur)
	}

	// The same sentence from old notes, two days later, and that day
	// consolidated.
	ids := ingest(t, st, "main", []capture.Input{{Content: claim, Role: "note", Source: "old-notes/parking.md",
		Timestamp: "2026-04-03T08:00:00Z"}})
	m, err := a.Get(ctx, ids[0])
	if err != nil || !m.Flagged {
		t.Fatalf("the forgotten sentence stored again = %+v, %v; want it kept and flagged", m, err)
	}
	clock = time.Date(2026, 4, 4, 9, 0, 0, 0, time.UTC)
	if _, err := e.Do(ctx, "main", Request{Date: "2026-04-03"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Do(ctx, "main", Request{}); err != nil {
		t.Fatal(err)
	}

	if got := recallText(t, a, probe, "2026-04-04T09:00:00Z"); strings.Contains(got, "P-117") {
		t.Errorf("recall after forgetting = %q, want nothing with P-117", got)
	}
	recs, _ = a.Consolidations(ctx, "", "", 0)
	for _, r := range recs {
		if strings.Contains(r.Summary+string(r.KeyFacts), "P-117") {
			t.Errorf("record of %s brought it back: %+v", r.Date, r)
		}
	}
	fs, _ := a.Facts(ctx, store.FactFilter{History: true})
	for _, f := range fs {
		if strings.Contains(f.Content, "P-117") && !f.Rejected {
			t.Errorf("fact %+v brought it back", f)
		}
	}
	// The memory bank still shows it, marked.
	list, _, err := a.List(ctx, store.ListOptions{})
	if err != nil || len(list) != 1 || !list[0].Flagged {
		t.Errorf("memory bank = %+v, %v; want the flagged memory listed", list, err)
	}
}

// TestForgetTakesApartTheDay: forgetting one memory of a day deletes the
// day's record, the day is rebuilt from its other memories by the next run
// (catch-up or nightly), a fact it alone supported is dropped (the value it
// superseded is current again), and a fact with another source keeps that one.
func TestForgetTakesApartTheDay(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	d1 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	d2 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	ids := ingest(t, st, "main", []capture.Input{
		say("Alice lives in Paris.", d1),
		say("Bob prefers green tea.", d1.Add(time.Hour)),
		say("Alice lives in Berlin.", d2),
		say("The quarterly report is due on Friday.", d2.Add(time.Hour)),
		say("Bob prefers green tea.", d2.Add(2*time.Hour)),
	})
	e := engine(st, Offline{})
	if _, err := e.RunAll(ctx, "main", false); err != nil {
		t.Fatal(err)
	}
	a, err := st.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	current := func(entity string) []store.Fact {
		t.Helper()
		fs, err := a.Facts(ctx, store.FactFilter{Entity: entity})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	if cur := current("Alice"); len(cur) != 1 || !strings.Contains(cur[0].Content, "Berlin") {
		t.Fatalf("Alice before = %+v, want Berlin current", cur)
	}
	bob := current("Bob")
	if len(bob) != 1 || !slices.Equal(bob[0].SourceMemoryIDs, []int64{ids[1], ids[4]}) {
		t.Fatalf("Bob before = %+v, want one fact from memories %d and %d", bob, ids[1], ids[4])
	}
	before, err := a.Consolidations(ctx, "2026-03-02", "2026-03-02", 0)
	if err != nil || len(before) != 1 {
		t.Fatalf("record of 2026-03-02 = %+v, %v", before, err)
	}

	// Forget "Alice lives in Berlin" and the second "Bob prefers green tea".
	for _, id := range []int64{ids[2], ids[4]} {
		if err := a.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Delete(ctx, ids[2]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("forgetting twice = %v, want ErrNotFound", err)
	}
	if recs, _ := a.Consolidations(ctx, "2026-03-02", "2026-03-02", 0); len(recs) != 0 {
		t.Errorf("record citing a forgotten memory = %+v, want it taken apart", recs)
	}
	if days, _ := a.UnconsolidatedDays(ctx, ""); len(days) != 1 || days[0] != (store.DayCount{Day: "2026-03-02", Unconsolidated: 1}) {
		t.Errorf("days to rebuild = %+v, want 2026-03-02 with its one remaining memory", days)
	}
	if cur := current("Alice"); len(cur) != 1 || !strings.Contains(cur[0].Content, "Paris") || cur[0].ValidTo != nil {
		t.Errorf("Alice after forgetting Berlin = %+v, want Paris current again", cur)
	}
	if hist, _ := a.Facts(ctx, store.FactFilter{Entity: "Alice", History: true}); len(hist) != 1 {
		t.Errorf("Alice's history = %+v, want only Paris: Berlin's only source is forgotten", hist)
	}
	if bob := current("Bob"); len(bob) != 1 || !slices.Equal(bob[0].SourceMemoryIDs, []int64{ids[1]}) {
		t.Errorf("Bob after = %+v, want the fact kept with its other source", bob)
	}

	// The next run rebuilds the day from what is left, and only that.
	runs, err := e.RunAll(ctx, "main", false)
	if err != nil || len(runs) != 1 || runs[0].Day != "2026-03-02" || runs[0].Memories != 1 {
		t.Fatalf("rebuild = %+v, %v; want 2026-03-02 from its one remaining memory", runs, err)
	}
	after, _ := a.Consolidations(ctx, "2026-03-02", "2026-03-02", 0)
	if len(after) != 1 || !slices.Equal(after[0].SourceIDs, []int64{ids[3]}) ||
		strings.Contains(after[0].Summary+string(after[0].KeyFacts), "Berlin") ||
		!strings.Contains(after[0].Summary, "quarterly report") {
		t.Errorf("rebuilt record = %+v, want the report and not Berlin", after)
	}
	if s := stats(t, st, "main"); s.Unconsolidated != 0 || s.Consolidations != 2 {
		t.Errorf("stats after the rebuild = %+v", s)
	}
}

// TestFlaggedMemoryIsNeverAnswered: a flagged memory is not a candidate of
// recall, even for an empty query (the most important recent memories).
func TestFlaggedMemoryIsNeverAnswered(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ids := ingest(t, st, "main", []capture.Input{say("The safe code is 4711, very important!", at)})
	a, err := st.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	if err := a.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	again := ingest(t, st, "main", []capture.Input{say("the SAFE code is 4711 -- very important", at.Add(time.Hour))})
	if forgotten, err := a.IsForgotten(ctx, "The safe code is 4711, very important!"); err != nil || !forgotten {
		t.Fatalf("IsForgotten = %v, %v", forgotten, err)
	}
	for _, q := range []string{"safe code", ""} {
		if got := recallText(t, a, q, ""); strings.Contains(got, "4711") {
			t.Errorf("recall %q = %q, want the flagged memory %d left out", q, got, again[0])
		}
	}
	if runs, err := engine(st, Offline{}).RunAll(ctx, "main", false); err != nil || len(runs) != 0 {
		t.Errorf("runs = %+v, %v; a flagged memory is nothing to consolidate", runs, err)
	}
}

// TestForgetDuringARun: a memory forgotten while its day is being
// consolidated (the model is slow) never reaches a record: the run commits
// nothing and says why, and the next run builds the day without it.
func TestForgetDuringARun(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	d := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ids := ingest(t, st, "main", []capture.Input{say("The vault code is 8812.", d), say("Lunch was ramen.", d.Add(time.Hour))})
	forgot := false
	e := engine(st, fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		if !forgot {
			forgot = true
			if err := st.With(ctx, "main", false, func(a *store.Agent) error { return a.Delete(ctx, ids[0]) }); err != nil {
				t.Error(err)
			}
		}
		p, _, err := Offline{}.Map(ctx, day, mems)
		return p, Usage{Calls: 1}, err
	}})
	// The run reads the day afresh and commits what is left; the calls of
	// the attempt it threw away are counted.
	run, err := e.Run(ctx, "main", "2026-03-01")
	if err != nil || run.Status != store.RunOK || run.Memories != 1 || run.Calls != 2 {
		t.Fatalf("run = %+v, %v; want ok, of the one memory left, in 2 calls", run, err)
	}
	err = st.With(ctx, "main", false, func(a *store.Agent) error {
		recs, err := a.Consolidations(ctx, "", "", 0)
		if len(recs) != 1 || strings.Contains(recs[0].Summary+string(recs[0].KeyFacts), "8812") {
			t.Errorf("records = %+v, want one without the vault code", recs)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDayForgottenFasterThanConsolidated forgets a memory of the day during
// every attempt: the run gives up after dayAttempts with ErrDayChanged and
// commits nothing.
func TestDayForgottenFasterThanConsolidated(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	d := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ids := ingest(t, st, "main", []capture.Input{say("The vault code is 8812.", d), say("Lunch was ramen.", d.Add(time.Hour)),
		say("Tea at four.", d.Add(2*time.Hour)), say("Bed at ten.", d.Add(3*time.Hour))})
	next := 0
	e := engine(st, fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		if err := st.With(ctx, "main", false, func(a *store.Agent) error { return a.Delete(ctx, ids[next]) }); err != nil {
			t.Error(err)
		}
		next++
		p, _, err := Offline{}.Map(ctx, day, mems)
		return p, Usage{Calls: 1}, err
	}})
	run, err := e.Run(ctx, "main", "2026-03-01")
	if !errors.Is(err, ErrDayChanged) || !errors.Is(err, store.ErrSourceGone) || run.Status != store.RunFailed || run.Calls != dayAttempts {
		t.Fatalf("run = %+v, %v; want failed with ErrDayChanged after %d calls", run, err, dayAttempts)
	}
	if s := stats(t, st, "main"); s.Consolidations != 0 || s.Facts != 0 {
		t.Errorf("after the run: %+v, want nothing committed", s)
	}
}

// TestOneEngineRunsAnAgentOnce runs the same agent twice at once through one
// engine (one lease holder): the second is busy, not a run whose lease the
// first releases under it.
func TestOneEngineRunsAnAgentOnce(t *testing.T) {
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{say("Alice's role is engineer.", now.Add(-48*time.Hour))})
	day := now.Add(-48 * time.Hour).Format(time.DateOnly)
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	e := engine(st, fake{mapFn: func(ctx context.Context, d string, mems []store.Memory) (Partial, Usage, error) {
		if calls.Add(1) == 1 { // only the first waits: a second (on the code before) runs through
			close(entered)
			<-release
		}
		return Offline{}.Map(ctx, d, mems)
	}})
	done := make(chan error, 1)
	go func() {
		_, err := e.Run(t.Context(), "main", day)
		done <- err
	}()
	<-entered
	if _, err := e.Run(t.Context(), "main", day); !errors.Is(err, ErrBusy) {
		t.Errorf("the same engine while it runs the agent: err = %v, want ErrBusy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first run: %v", err)
	}
}
