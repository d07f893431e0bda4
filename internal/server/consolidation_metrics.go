package server

import (
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// consolidationFamilies come from each agent's runs table through the
// health report, so runs of the nightly job (another process) count too.
func consolidationFamilies(r health.Report) []*family {
	runs := &family{name: "dormouse_consolidation_runs_total", typ: "counter",
		help: "Consolidation runs recorded in the agent's file, by outcome (ok, failed, partial)."}
	tokens := &family{name: "dormouse_consolidation_tokens_total", typ: "counter",
		help: "LLM tokens consolidation spent, by direction (in, out)."}
	took := &family{name: "dormouse_consolidation_duration_seconds", typ: "histogram",
		help: "Time one consolidation run (one day of one agent) took."}
	for _, a := range r.Agents {
		t := a.Consolidation
		if t == nil {
			continue
		}
		for _, outcome := range []string{store.RunOK, store.RunFailed, store.RunPartial} {
			runs.add(float64(t.ByStatus[outcome]), "agent", a.Name, "outcome", outcome)
		}
		tokens.add(float64(t.TokensIn), "agent", a.Name, "direction", "in")
		tokens.add(float64(t.TokensOut), "agent", a.Name, "direction", "out")
		bounds := make([]float64, len(t.BoundsMS))
		cum := make([]uint64, len(t.BoundsMS))
		for i, b := range t.BoundsMS {
			bounds[i], cum[i] = float64(b)/1000, uint64(t.Buckets[i])
		}
		took.addHistogram(bounds, cum, float64(t.SumMS)/1000, uint64(t.Count), "agent", a.Name)
	}
	provider := &family{name: "dormouse_llm_provider_reachable", typ: "gauge",
		help: "1 when the last probe of the LLM provider passed, 0 when it failed."}
	if p := r.Provider; p != nil && !p.NotProbed {
		provider.add(boolValue(p.Reachable), "provider", p.Name)
	}
	return []*family{runs, tokens, took, provider}
}
