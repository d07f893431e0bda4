package llm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestBudgetIsSharedAcrossProcesses: the nightly job and the daemon each
// have their own client and budget (two processes; here two engines with
// their own lease holders on the same files). What one spent tonight, as its
// run rows say, counts against the other's budget: with a budget of one call
// a night, the job's day takes it and the daemon's day waits, without a
// request, for the next night.
func TestBudgetIsSharedAcrossProcesses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget func() *llm.Budget
		why    string
	}{
		{"calls", func() *llm.Budget { return &llm.Budget{MaxCalls: 1, Location: time.UTC} }, "1 of them by other processes"},
		// The first run is charged 812 tokens in and 164 out: the next
		// call's estimate no longer fits.
		{"tokens", func() *llm.Budget { return &llm.Budget{MaxTokens: 1200, Location: time.UTC} }, "by other processes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			day(t, st, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
			day(t, st, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))
			now := tonight
			process := func(holder string) (*harness, *consolidate.Engine) {
				b := tc.budget()
				h := newHarness(t, providers[0], []step{{answer: valid}}, func(c *llm.Config) {
					c.Budget = b
					c.Now = func() time.Time { return now }
				})
				e := engine(st, h.client)
				e.Holder = holder
				e.Now = func() time.Time { return now }
				b.Elsewhere = e.SpentElsewhere
				return h, e
			}
			jobH, job := process("timer-job")
			daemonH, daemon := process("daemon")

			if run, err := job.Run(t.Context(), "main", "2026-03-01"); err != nil || run.Status != store.RunOK {
				t.Fatalf("the job's run = %+v, %v", run, err)
			}
			run, err := daemon.Run(t.Context(), "main", "2026-03-02")
			if err == nil || run.Status != store.RunPartial || !strings.Contains(run.Error, tc.why) {
				t.Fatalf("the daemon's run = %+v, %v; want partial: the job spent tonight's budget", run, err)
			}
			if n := len(daemonH.fake.requests()); n != 0 {
				t.Errorf("the daemon made %d requests past the shared budget", n)
			}
			if n := len(jobH.fake.requests()); n != 1 {
				t.Errorf("the job made %d requests, want 1", n)
			}
			// Its own spending is not counted twice: the job's budget says
			// the same as the daemon's.
			if _, err := job.Run(t.Context(), "main", "2026-03-02"); err == nil {
				t.Errorf("the job went past its own budget")
			}

			now = now.Add(24 * time.Hour) // the next night: a budget of its own
			if run, err := daemon.Run(t.Context(), "main", "2026-03-02"); err != nil || run.Status != store.RunOK {
				t.Fatalf("the daemon the next night = %+v, %v", run, err)
			}
			if s, _, _, _ := inspect(t, st); s.Unconsolidated != 0 {
				t.Errorf("after the next night: %+v", s)
			}
		})
	}
}
