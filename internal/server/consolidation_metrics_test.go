package server

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestConsolidationMetrics(t *testing.T) {
	rep := &hostReporter{}
	f := newFixture(t, Options{AutoCreate: true, Health: rep})
	rep.host = &health.Host{Store: f.store, Location: time.UTC,
		Provider: &health.ProviderProbe{Name: "ollama", Probe: func(context.Context) error { return errors.New("connection refused") }}}
	if got := f.post("/v1/agents/main/memories", `{"memories":[{"content":"x"}]}`, nil); got != http.StatusCreated {
		t.Fatalf("POST memories = %d", got)
	}
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	err := f.store.With(t.Context(), "main", false, func(a *store.Agent) error {
		for _, r := range []store.Run{
			{Day: "2026-01-30", Status: store.RunOK, TokensIn: 1000, TokensOut: 200, DurationMS: 800},
			{Day: "2026-01-31", Status: store.RunOK, TokensIn: 500, TokensOut: 100, DurationMS: 20_000},
			{Day: "2026-02-01", Status: store.RunFailed, TokensIn: 10, DurationMS: 3_000},
		} {
			r.StartedAt, r.FinishedAt = at, at
			if _, err := a.RecordRun(t.Context(), r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, f.url)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"dormouse_consolidation_runs_total", map[string]string{"agent": "main", "outcome": "ok"}, 2},
		{"dormouse_consolidation_runs_total", map[string]string{"agent": "main", "outcome": "failed"}, 1},
		{"dormouse_consolidation_runs_total", map[string]string{"agent": "main", "outcome": "partial"}, 0},
		{"dormouse_consolidation_tokens_total", map[string]string{"agent": "main", "direction": "in"}, 1510},
		{"dormouse_consolidation_tokens_total", map[string]string{"agent": "main", "direction": "out"}, 300},
	} {
		m := find(fams, c.name, c.labels)
		if m == nil || m.GetCounter().GetValue() != c.want {
			t.Errorf("%s%v = %v, want %g", c.name, c.labels, m, c.want)
		}
	}
	h := find(fams, "dormouse_consolidation_duration_seconds", map[string]string{"agent": "main"}).GetHistogram()
	if h.GetSampleCount() != 3 || h.GetSampleSum() != 23.8 {
		t.Errorf("duration histogram count %d sum %g, want 3 and 23.8", h.GetSampleCount(), h.GetSampleSum())
	}
	want := map[float64]uint64{1: 1, 5: 2, 15: 2, 60: 3, 7200: 3}
	for _, b := range h.GetBucket() {
		if w, ok := want[b.GetUpperBound()]; ok && b.GetCumulativeCount() != w {
			t.Errorf("bucket le=%g holds %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), w)
		}
	}
	if m := find(fams, "dormouse_llm_provider_reachable", map[string]string{"provider": "ollama"}); m == nil || m.GetGauge().GetValue() != 0 {
		t.Errorf("provider reachable = %v, want 0", m)
	}
	if m := find(fams, "dormouse_health_state", map[string]string{"state": "degraded"}); m == nil || m.GetGauge().GetValue() != 1 {
		t.Errorf("an unreachable provider does not degrade the state: %v", m)
	}
}
