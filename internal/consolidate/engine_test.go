package consolidate

import (
	"context"
	"errors"
	"github.com/dormouse-dev/dormouse/internal/when"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// fake is a consolidator built from funcs; a nil func does what Offline does.
type fake struct {
	mapFn    func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error)
	reduceFn func(ctx context.Context, day string, parts []Partial) (Partial, Usage, error)
}

func (fake) Provider() string { return "fake" }
func (fake) Model() string    { return "fake-1" }

func (f fake) Map(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
	if f.mapFn != nil {
		return f.mapFn(ctx, day, mems)
	}
	p, _, err := Offline{}.Map(ctx, day, mems)
	return p, Usage{Calls: 1, TokensIn: 100, TokensOut: 10}, err
}

func (f fake) Reduce(ctx context.Context, day string, parts []Partial) (Partial, Usage, error) {
	if f.reduceFn != nil {
		return f.reduceFn(ctx, day, parts)
	}
	p, _, err := Offline{}.Reduce(ctx, day, parts)
	return p, Usage{Calls: 1, TokensIn: 50, TokensOut: 10}, err
}

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return st
}

func ingest(t testing.TB, st *store.Store, agent string, ins []capture.Input) []int64 {
	t.Helper()
	var ids []int64
	err := st.With(context.Background(), agent, true, func(a *store.Agent) error {
		res, err := capture.Ingest(context.Background(), a, ins, capture.Limits{MaxContent: 1 << 16}, time.Now())
		for _, r := range res {
			ids = append(ids, r.ID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func say(content string, at time.Time) capture.Input {
	return capture.Input{Content: content, Role: "user", SessionID: "s", Timestamp: at.Format(time.RFC3339)}
}

// now is the tests' clock: the evening of 10 March 2026.
var now = time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC)

func engine(st *store.Store, c Consolidator) *Engine {
	return &Engine{Store: st, Consolidator: c, Location: time.UTC, Now: func() time.Time { return now }}
}

func stats(t *testing.T, st *store.Store, agent string) store.Stats {
	t.Helper()
	var s store.Stats
	err := st.With(t.Context(), agent, false, func(a *store.Agent) error {
		var err error
		s, err = a.Stats(t.Context())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runs(t *testing.T, st *store.Store, agent string) []store.Run {
	t.Helper()
	var rs []store.Run
	err := st.With(t.Context(), agent, false, func(a *store.Agent) error {
		var err error
		rs, err = a.Runs(t.Context(), "", 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestRebuildIsIdempotent(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	ids := ingest(t, st, "main", readDay(t, "day", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)))
	// Small chunks: the day goes through map and reduce.
	e := engine(st, fake{})
	e.ChunkTokens = 150
	first, err := e.Run(ctx, "main", "2026-03-02")
	if err != nil {
		t.Fatal(err)
	}
	factsAfterFirst := stats(t, st, "main").Facts
	second, err := e.Run(ctx, "main", "2026-03-02")
	if err != nil {
		t.Fatal(err)
	}
	s := stats(t, st, "main")
	if s.Consolidations != 1 || s.Unconsolidated != 0 || s.Memories != int64(len(ids)) {
		t.Errorf("after two runs: stats %+v, want 1 record and every memory consolidated", s)
	}
	if s.Facts != factsAfterFirst || s.Facts == 0 {
		t.Errorf("facts after rebuild = %d, after first run %d; want the same, non-zero", s.Facts, factsAfterFirst)
	}
	if *first.ConsolidationID != *second.ConsolidationID {
		t.Errorf("rebuild made record %d beside %d", *second.ConsolidationID, *first.ConsolidationID)
	}
	if second.Memories != len(ids) || second.Status != store.RunOK || second.Calls < 3 {
		t.Errorf("second run = %+v, want ok over %d memories with map and reduce calls", second, len(ids))
	}
	var rec []store.Consolidation
	st.With(ctx, "main", false, func(a *store.Agent) error {
		rec, err = a.Consolidations(ctx, "", "", 0)
		return err
	})
	if len(rec) != 1 || len(rec[0].SourceIDs) != len(ids) {
		t.Fatalf("records = %+v, want one citing each of %d memories once", rec, len(ids))
	}
	if rec[0].Model != "fake/fake-1" || !strings.Contains(rec[0].Summary, "Atlas") {
		t.Errorf("record = %+v", rec[0])
	}
}

func TestFailureCommitsNothing(t *testing.T) {
	boom := errors.New("model returned broken JSON")
	for _, tc := range []struct {
		name string
		c    fake
	}{
		{"map fails", fake{mapFn: func(context.Context, string, []store.Memory) (Partial, Usage, error) {
			return Partial{}, Usage{Calls: 1}, boom
		}}},
		{"reduce fails", fake{reduceFn: func(context.Context, string, []Partial) (Partial, Usage, error) {
			return Partial{}, Usage{Calls: 1}, boom
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			ingest(t, st, "main", readDay(t, "day", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)))
			e := engine(st, tc.c)
			e.ChunkTokens = 150
			run, err := e.Run(t.Context(), "main", "2026-03-02")
			if !errors.Is(err, boom) {
				t.Fatalf("Run error = %v, want %v", err, boom)
			}
			if run.Status != store.RunFailed || run.ID == 0 {
				t.Errorf("run = %+v, want a recorded failed run", run)
			}
			s := stats(t, st, "main")
			if s.Consolidations != 0 || s.Facts != 0 || s.Unconsolidated != s.Memories {
				t.Errorf("after a failed run: %+v, want nothing committed", s)
			}
			rs := runs(t, st, "main")
			if len(rs) != 1 || rs[0].Status != store.RunFailed || !strings.Contains(rs[0].Error, boom.Error()) {
				t.Errorf("runs = %+v, want one failed run saying why", rs)
			}
			// The lease was released: the next run goes ahead.
			e.Consolidator = fake{}
			if _, err := e.Run(t.Context(), "main", "2026-03-02"); err != nil {
				t.Errorf("run after the failure: %v", err)
			}
		})
	}
}

// TestCancelledRunCommitsNothing is the crash test at store level: a run
// cancelled in the middle (SIGTERM, or the process dying) commits nothing,
// not even a run row, and the next run does the day once.
func TestCancelledRunCommitsNothing(t *testing.T) {
	st := openStore(t)
	ids := ingest(t, st, "main", readDay(t, "day", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)))
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	e := engine(st, fake{mapFn: func(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
		calls++
		if calls == 2 {
			cancel()
		}
		return Offline{}.Map(ctx, day, mems)
	}})
	e.ChunkTokens = 150
	if _, err := e.Run(ctx, "main", "2026-03-02"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	s := stats(t, st, "main")
	if s.Consolidations != 0 || s.Facts != 0 || s.Unconsolidated != int64(len(ids)) {
		t.Errorf("after a cancelled run: %+v, want nothing committed", s)
	}
	if rs := runs(t, st, "main"); len(rs) != 0 {
		t.Errorf("runs = %+v, want none", rs)
	}
	e.Consolidator = Offline{}
	if _, err := e.Run(t.Context(), "main", "2026-03-02"); err != nil {
		t.Fatal(err)
	}
	if s := stats(t, st, "main"); s.Consolidations != 1 || s.Unconsolidated != 0 {
		t.Errorf("after the rerun: %+v, want one record, nothing left", s)
	}
}

func TestLeaseExclusion(t *testing.T) {
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{say("Alice's role is engineer.", now.Add(-48*time.Hour))})
	day := now.Add(-48 * time.Hour).Format(time.DateOnly)

	entered, release := make(chan struct{}), make(chan struct{})
	slow := engine(st, fake{mapFn: func(ctx context.Context, d string, mems []store.Memory) (Partial, Usage, error) {
		close(entered)
		<-release
		return Offline{}.Map(ctx, d, mems)
	}})
	done := make(chan error, 1)
	go func() {
		_, err := slow.Run(t.Context(), "main", day)
		done <- err
	}()
	<-entered
	other := engine(st, Offline{})
	if _, err := other.Run(t.Context(), "main", day); !errors.Is(err, ErrBusy) {
		t.Errorf("second engine while the first runs: err = %v, want ErrBusy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first engine: %v", err)
	}

	// A holder that died leaves its lease behind; once it expires, the
	// next engine takes it over.
	err := st.With(t.Context(), "main", false, func(a *store.Agent) error {
		_, err := a.AcquireLease(t.Context(), leaseName, "killed:1", now, time.Minute)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Run(t.Context(), "main", day); !errors.Is(err, ErrBusy) {
		t.Errorf("while the dead holder's lease lasts: err = %v, want ErrBusy", err)
	}
	later := engine(st, Offline{})
	later.Now = func() time.Time { return now.Add(2 * time.Minute) }
	if _, err := later.Run(t.Context(), "main", day); err != nil {
		t.Errorf("after the lease expired: %v", err)
	}
}

func TestSupersessionAcrossDays(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	d := func(day int) time.Time { return time.Date(2026, 3, day, 9, 0, 0, 0, time.UTC) }
	ingest(t, st, "main", []capture.Input{
		say("Alice's role is engineer.", d(1)),
		say("Alice's role is team lead.", d(3)),
		say("Alice's role is CTO.", d(5)),
	})
	runs, err := engine(st, Offline{}).RunAll(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("RunAll made %d runs, want 3", len(runs))
	}
	a, err := st.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	hist, err := a.Facts(ctx, store.FactFilter{Entity: "Alice", History: true})
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for _, f := range hist {
		values = append(values, f.Value)
	}
	if diff := cmp.Diff(values, []string{"CTO", "team lead", "engineer"}); diff != "" {
		t.Errorf("history of Alice's role mismatch (-got +want):\n%s", diff)
	}
	var eng recall.Engine
	for _, tc := range []struct {
		asOf time.Time
		want string
	}{
		{d(2), "engineer"}, {d(4), "team lead"}, {d(6), "CTO"},
	} {
		res, err := eng.Recall(ctx, a, recall.Query{Text: "Alice role", AsOf: tc.asOf})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range res.Items {
			if it.Kind == "fact" {
				got = append(got, it.Text)
			}
		}
		if diff := cmp.Diff(got, []string{"Alice: Alice's role is " + tc.want}); diff != "" {
			t.Errorf("facts recalled as of %s mismatch (-got +want):\n%s", tc.asOf.Format(time.DateOnly), diff)
		}
	}
}

func TestRejectedFactDoesNotComeBack(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	claim := "Alice's favourite drink is green tea."
	ingest(t, st, "main", []capture.Input{say(claim, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))})
	e := engine(st, Offline{})
	if _, err := e.RunAll(ctx, "main", false); err != nil {
		t.Fatal(err)
	}
	a, err := st.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Release(a)
	cur, err := a.Facts(ctx, store.FactFilter{Entity: "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 1 {
		t.Fatalf("facts after the first day = %+v, want one", cur)
	}
	if err := a.RejectFact(ctx, cur[0].ID); err != nil {
		t.Fatal(err)
	}
	// On a later day: the same sentence (stored flagged, consolidated by
	// nothing) and the same claim in other words (stored, then flagged by
	// the consolidation: its entity, attribute and value are those of the
	// rejected fact).
	ids := ingest(t, st, "main", []capture.Input{
		say(claim, time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)),
		say("Alice's favourite drink is now green tea", time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)),
	})
	if m, err := a.Get(ctx, ids[0]); err != nil || !m.Flagged || !m.Consolidated {
		t.Errorf("the rejected claim said again = %+v, %v; want it stored flagged", m, err)
	}
	if m, err := a.Get(ctx, ids[1]); err != nil || m.Flagged {
		t.Errorf("the claim in other words = %+v, %v; want it stored unflagged", m, err)
	}
	runs, err := e.RunAll(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Day != "2026-03-05" || runs[0].Facts != 0 || runs[0].Memories != 0 {
		t.Errorf("runs = %+v, want the later day left without record or fact", runs)
	}
	if m, err := a.Get(ctx, ids[1]); err != nil || !m.Flagged || !m.Consolidated {
		t.Errorf("the claim in other words after the run = %+v, %v; want it flagged", m, err)
	}
	cur, err = a.Facts(ctx, store.FactFilter{Entity: "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 0 {
		t.Errorf("current facts = %+v, want the rejected claim kept out", cur)
	}
	hist, _ := a.Facts(ctx, store.FactFilter{Entity: "Alice", History: true})
	if len(hist) != 1 || !hist[0].Rejected {
		t.Errorf("history = %+v, want only the rejected fact", hist)
	}
}

func TestImplausibleClockIsRefused(t *testing.T) {
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{say("hello there, general", now)})
	e := engine(st, Offline{})
	e.Now = func() time.Time { return time.Unix(42, 0) } // a Pi booted without RTC
	if _, err := e.RunAll(t.Context(), "main", false); !errors.Is(err, when.ErrImplausibleClock) {
		t.Errorf("RunAll error = %v, want ErrImplausibleClock", err)
	}
	if _, err := e.Run(t.Context(), "main", "2026-03-10"); !errors.Is(err, when.ErrImplausibleClock) {
		t.Errorf("Run error = %v, want ErrImplausibleClock", err)
	}
}

func TestDoPlansAndRuns(t *testing.T) {
	ctx := t.Context()
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{
		say("We decided to ship the beta on Friday.", time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)),
		say("Bob fixed the login timeout.", time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)),
		say("Today is busy with the Atlas review.", time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)),
	})
	e := engine(st, fake{})
	got, err := e.Do(ctx, "main", Request{Since: "2026-03-09", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := &Plan{Provider: "fake", Model: "fake-1", Days: []DayPlan{
		{Day: "2026-03-09", Memories: 1, Unconsolidated: 1, Chunks: 1, Calls: 1, EstimatedTokens: 19},
	}}
	if diff := cmp.Diff(got.Plan, want); diff != "" {
		t.Errorf("plan mismatch (-got +want):\n%s", diff)
	}
	if s := stats(t, st, "main"); s.Unconsolidated != 3 || len(runs(t, st, "main")) != 0 {
		t.Errorf("a dry run wrote something: %+v", s)
	}
	res, err := e.Do(ctx, "main", Request{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || res.Runs[0].Day != "2026-03-08" || res.Runs[1].Day != "2026-03-09" {
		t.Errorf("runs = %+v, want the two past days, not today", res.Runs)
	}
	res, err = e.Do(ctx, "main", Request{Date: "2026-03-10"})
	if err != nil || len(res.Runs) != 1 || res.Runs[0].Memories != 1 {
		t.Errorf("today on request: %+v, %v", res, err)
	}
	var re *RequestError
	for _, bad := range []Request{{Date: "2026-03-11"}, {Date: "yesterday"}, {Date: "2026-03-01", Since: "2026-03-01"}} {
		if _, err := e.Do(ctx, "main", bad); !errors.As(err, &re) {
			t.Errorf("Do(%+v) error = %v, want a RequestError", bad, err)
		}
	}
}

// TestLostLeaseCommitsNothing: a run whose lease was taken over (it stalled
// past the TTL) stops and commits nothing but its failed run row.
func TestLostLeaseCommitsNothing(t *testing.T) {
	st := openStore(t)
	ingest(t, st, "main", []capture.Input{say("Alice's role is engineer.", now.Add(-48*time.Hour))})
	day := now.Add(-48 * time.Hour).Format(time.DateOnly)
	e := engine(st, fake{mapFn: func(ctx context.Context, d string, mems []store.Memory) (Partial, Usage, error) {
		// Another process finds the lease expired and takes it.
		err := st.With(ctx, "main", false, func(a *store.Agent) error {
			_, err := a.AcquireLease(ctx, leaseName, "other", now.Add(time.Hour), time.Hour)
			return err
		})
		if err != nil {
			return Partial{}, Usage{}, err
		}
		select {
		case <-ctx.Done(): // the renewal noticed
		case <-time.After(5 * time.Second):
		}
		return Offline{}.Map(ctx, d, mems)
	}})
	e.LeaseTTL = 30 * time.Millisecond
	if _, err := e.Run(t.Context(), "main", day); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("Run error = %v, want ErrLeaseLost", err)
	}
	if s := stats(t, st, "main"); s.Consolidations != 0 || s.Unconsolidated != 1 {
		t.Errorf("after losing the lease: %+v, want nothing committed", s)
	}
	if rs := runs(t, st, "main"); len(rs) != 1 || rs[0].Status != store.RunFailed {
		t.Errorf("runs = %+v, want one failed run", rs)
	}
}
