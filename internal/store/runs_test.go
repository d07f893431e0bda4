package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCommitConsolidationIsOneTransaction(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ins, err := a.Insert(ctx, []Memory{mem("Alice's role is engineer", ""), mem("lunch was good", "")})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{ins[0].ID, ins[1].ID}
	commit := Commit{
		Record: Consolidation{Date: "2026-02-01", Summary: "a day", SourceIDs: ids, Model: "offline"},
		Facts:  []Fact{{Entity: "Alice", Attribute: "role", Value: "engineer", Content: "Alice's role is engineer", Confidence: 0.6, SourceMemoryIDs: ids[:1]}},
		Run:    Run{Day: "2026-02-01", Provider: "offline", Status: RunOK},
	}
	for range 2 { // re-running the day replaces, never duplicates
		got, err := a.CommitConsolidation(ctx, commit)
		if err != nil {
			t.Fatal(err)
		}
		if got.Run.Memories != 2 || got.Run.Facts != 1 || got.Run.ConsolidationID == nil {
			t.Errorf("committed run = %+v", got.Run)
		}
	}
	st, err := a.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Consolidations != 1 || st.Unconsolidated != 0 || st.Facts != 1 {
		t.Errorf("stats after two commits = %+v, want 1 record, 0 unconsolidated, 1 fact", st)
	}
	facts, err := a.Facts(ctx, FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) != 1 || facts[0].Confidence != 0.6 || len(facts[0].SourceConsolidationIDs) != 1 {
		t.Errorf("facts after re-running a day = %+v, want one fact, confidence unchanged", facts)
	}
	runs, err := a.Runs(ctx, "2026-02-01", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Errorf("runs = %+v, want one per commit", runs)
	}

	// A failing fact rolls everything back: a cancelled context does.
	ins2, err := a.Insert(ctx, []Memory{mem("another memory", "")})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	commit.Record.SourceIDs = append(ids, ins2[0].ID)
	if _, err := a.CommitConsolidation(cctx, commit); err == nil {
		t.Fatal("commit with a cancelled context succeeded")
	}
	m, err := a.Get(ctx, ins2[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Consolidated {
		t.Error("a cancelled commit marked a memory consolidated")
	}
	if runs, _ := a.Runs(ctx, "", 0); len(runs) != 2 {
		t.Errorf("a cancelled commit wrote a run row: %d runs", len(runs))
	}
}

func TestUnconsolidatedDaysAndDayMemories(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	var mems []Memory
	for i, d := range []int{1, 1, 2, 3} {
		m := mem("memory "+string(rune('a'+i)), "")
		m.Timestamp = time.Date(2026, 2, d, 10, i, 0, 0, time.UTC)
		mems = append(mems, m)
	}
	ins, err := a.Insert(ctx, mems)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-02", Summary: "x", SourceIDs: []int64{ins[2].ID}}); err != nil {
		t.Fatal(err)
	}
	all, err := a.UnconsolidatedDays(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, []DayCount{{"2026-02-01", 2}, {"2026-02-03", 1}}); diff != "" {
		t.Errorf("UnconsolidatedDays(\"\") mismatch (-got +want):\n%s", diff)
	}
	before, err := a.UnconsolidatedDays(ctx, "2026-02-03")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, []DayCount{{"2026-02-01", 2}}); diff != "" {
		t.Errorf("UnconsolidatedDays(before) mismatch (-got +want):\n%s", diff)
	}
	day, err := a.DayMemories(ctx, "2026-02-02")
	if err != nil {
		t.Fatal(err)
	}
	if len(day) != 1 || day[0].ID != ins[2].ID || !day[0].Consolidated {
		t.Errorf("DayMemories = %+v, want the consolidated memory too", day)
	}
}

func TestLeases(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		name   string
		holder string
		at     time.Duration
		want   bool
	}{
		{"free lease is taken", "daemon", 0, true},
		{"held lease is refused", "timer", time.Minute, false},
		{"holder may re-acquire", "daemon", 2 * time.Minute, true},
		{"expired lease is taken over", "timer", 20 * time.Minute, true},
		{"old holder is refused", "daemon", 21 * time.Minute, false},
	}
	for _, st := range steps {
		got, err := a.AcquireLease(ctx, "consolidate", st.holder, now.Add(st.at), 10*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got != st.want {
			t.Errorf("%s: AcquireLease = %v, want %v", st.name, got, st.want)
		}
	}
	if err := a.RenewLease(ctx, "consolidate", "daemon", now.Add(22*time.Minute), time.Minute); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("RenewLease by the old holder: err = %v, want ErrLeaseLost", err)
	}
	if err := a.RenewLease(ctx, "consolidate", "timer", now.Add(22*time.Minute), time.Minute); err != nil {
		t.Errorf("RenewLease by the holder: %v", err)
	}
	// A commit under a lease that was lost commits nothing.
	_, err := a.CommitConsolidation(ctx, Commit{
		Record: Consolidation{Date: "2026-02-01", Summary: "x"}, Run: Run{Day: "2026-02-01", Status: RunOK},
		Lease: "consolidate", Holder: "daemon", Now: now.Add(22 * time.Minute),
	})
	if !errors.Is(err, ErrLeaseLost) {
		t.Errorf("commit under a lost lease: err = %v, want ErrLeaseLost", err)
	}
	if err := a.ReleaseLease(ctx, "consolidate", "timer"); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.AcquireLease(ctx, "consolidate", "daemon", now.Add(23*time.Minute), time.Minute); !got {
		t.Error("released lease could not be taken")
	}
}

func TestFactHistory(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	month := func(n int) time.Time { return jan.AddDate(0, n, 0) }
	put := func(f Fact) FactResult {
		t.Helper()
		r, err := a.PutFact(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	role := func(v string, at time.Time, src int64) Fact {
		return Fact{Entity: "Alice", Attribute: "role", Value: v, Content: "Alice's role is " + v,
			Confidence: 0.6, ValidFrom: at, SourceMemoryIDs: []int64{src}}
	}
	r1 := put(role("engineer", month(0), 1))
	r2 := put(role("team lead", month(2), 2))
	r3 := put(role("CTO", month(4), 3))
	if diff := cmp.Diff([]string{r1.Outcome, r2.Outcome, r3.Outcome}, []string{FactCreated, FactSuperseded, FactSuperseded}); diff != "" {
		t.Errorf("outcomes mismatch (-got +want):\n%s", diff)
	}
	for _, tc := range []struct {
		asOf time.Time
		want int64
	}{
		{month(1), r1.ID}, {month(3), r2.ID}, {month(5), r3.ID},
	} {
		got, err := a.Facts(ctx, FactFilter{Entity: "alice", AsOf: tc.asOf})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ID != tc.want {
			t.Errorf("facts as of %s = %+v, want fact %d", tc.asOf.Format(time.DateOnly), got, tc.want)
		}
	}

	// The same claim again, from a new memory: reinforced, not duplicated.
	r4 := put(Fact{Entity: "alice", Attribute: "role", Value: "cto", Content: "Alice's role is CTO.", Confidence: 0.5, ValidFrom: month(5), SourceMemoryIDs: []int64{4}})
	if r4.ID != r3.ID || r4.Outcome != FactReinforced {
		t.Errorf("same claim: %+v, want fact %d reinforced", r4, r3.ID)
	}
	cur, err := a.Facts(ctx, FactFilter{Entity: "Alice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 1 || cur[0].Confidence <= 0.6 || len(cur[0].SourceMemoryIDs) != 2 {
		t.Errorf("after reinforcement = %+v, want higher confidence and two sources", cur)
	}
	// A late claim about an older time goes into the history.
	r5 := put(role("intern", month(-1), 5))
	if r5.Outcome != FactHistorical {
		t.Errorf("older claim outcome %q, want %q", r5.Outcome, FactHistorical)
	}

	// Rejected: neither the same sentence nor the same value comes back.
	if err := a.RejectFact(ctx, r3.ID); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Fact{
		role("CTO", month(6), 6),
		{Entity: "Bob", Content: "alice's ROLE is cto", ValidFrom: month(6)},
	} {
		if r := put(f); r.Outcome != FactRejected || r.ID != r3.ID {
			t.Errorf("PutFact(%q) = %+v, want rejected as fact %d", f.Content, r, r3.ID)
		}
	}
	if _, err := a.AddFact(ctx, role("CTO", month(6), 7)); !errors.Is(err, ErrRejected) {
		t.Errorf("AddFact of a rejected claim: err = %v, want ErrRejected", err)
	}
}
