package server

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Consolidation metrics come from each agent's runs table through the
// health report, so runs of the nightly job (another process) count too.
var (
	runsDesc = prometheus.NewDesc("dormouse_consolidation_runs_total",
		"Consolidation runs recorded in the agent's file, by outcome (ok, failed, partial).", []string{"agent", "outcome"}, nil)
	tokensDesc = prometheus.NewDesc("dormouse_consolidation_tokens_total",
		"LLM tokens consolidation spent, by direction (in, out).", []string{"agent", "direction"}, nil)
	runDurationDesc = prometheus.NewDesc("dormouse_consolidation_duration_seconds",
		"Time one consolidation run (one day of one agent) took.", []string{"agent"}, nil)
	providerDesc = prometheus.NewDesc("dormouse_llm_provider_reachable",
		"1 when the last probe of the LLM provider passed, 0 when it failed.", []string{"provider"}, nil)
)

var consolidationDescs = []*prometheus.Desc{runsDesc, tokensDesc, runDurationDesc, providerDesc}

func collectConsolidation(ch chan<- prometheus.Metric, r health.Report) {
	for _, a := range r.Agents {
		t := a.Consolidation
		if t == nil {
			continue
		}
		for _, outcome := range []string{store.RunOK, store.RunFailed, store.RunPartial} {
			ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.CounterValue, float64(t.ByStatus[outcome]), a.Name, outcome)
		}
		ch <- prometheus.MustNewConstMetric(tokensDesc, prometheus.CounterValue, float64(t.TokensIn), a.Name, "in")
		ch <- prometheus.MustNewConstMetric(tokensDesc, prometheus.CounterValue, float64(t.TokensOut), a.Name, "out")
		buckets := make(map[float64]uint64, len(t.BoundsMS))
		for i, b := range t.BoundsMS {
			buckets[float64(b)/1000] = uint64(t.Buckets[i])
		}
		ch <- prometheus.MustNewConstHistogram(runDurationDesc, uint64(t.Count), float64(t.SumMS)/1000, buckets, a.Name)
	}
	if p := r.Provider; p != nil && !p.NotProbed {
		v := 0.0
		if p.Reachable {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(providerDesc, prometheus.GaugeValue, v, p.Name)
	}
}
