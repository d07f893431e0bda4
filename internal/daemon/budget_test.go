package daemon

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestBudgetCountsOtherProcesses: the engine the daemon (and the CLI)
// builds shares the night's budget with other processes: a run another
// process recorded tonight on the same provider leaves no call for this one.
func TestBudgetCountsOtherProcesses(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, `{"error":{"message":"unexpected"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })

	cfg := config.Default()
	cfg.Timezone = "UTC"
	cfg.LLM.Provider, cfg.LLM.BaseURL, cfg.LLM.MaxRetries = "openai", srv.URL+"/v1", 0
	cfg.LLM.Budget.MaxCalls = 2
	e, err := ConsolidationEngine(t.Context(), cfg, []string{"OPENAI_API_KEY=sk-test"}, st, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	yesterday := time.Now().UTC().AddDate(0, 0, -1)
	err = st.With(t.Context(), "main", true, func(a *store.Agent) error {
		if _, err := capture.Ingest(t.Context(), a, []capture.Input{{Content: "Alice is the team lead.", Timestamp: yesterday.Format(time.RFC3339)}}, capture.Limits{MaxContent: 1 << 16}, time.Now()); err != nil {
			return err
		}
		// The nightly job, another process, spent both calls tonight.
		_, err := a.RecordRun(t.Context(), store.Run{Day: "2020-01-01", StartedAt: time.Now(), FinishedAt: time.Now(),
			Provider: "openai", Calls: 2, Status: store.RunOK, Holder: "timer-job"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	run, err := e.Run(t.Context(), "main", yesterday.Format(time.DateOnly))
	if err == nil || run.Status != store.RunPartial || !strings.Contains(run.Error, "other processes") {
		t.Errorf("run = %+v, %v; want partial: the budget was spent by another process", run, err)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests past the shared budget", n)
	}
}
