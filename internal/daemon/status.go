package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/llm"
)

// SummaryEvery is how often the daemon logs its health summary at info,
// refreshes STATUS= and notices a change of state (logged once at warning).
const SummaryEvery = 5 * time.Minute

// ProviderProbe is the rate-limited reachability probe of the configured LLM
// provider, or nil for the offline one, which needs no network.
func ProviderProbe(cfg config.Config, environ []string, log *slog.Logger) *health.ProviderProbe {
	if cfg.LLM.Provider == "offline" {
		return nil
	}
	lc := LLMConfig(cfg, environ, log)
	hc := &http.Client{Timeout: 10 * time.Second}
	return &health.ProviderProbe{
		Name:      cfg.LLM.Provider,
		Probe:     func(ctx context.Context) error { return llm.Probe(ctx, lc, hc) },
		NotProbed: llm.ErrNotProbed,
		Every:     5 * time.Minute,
	}
}

// StatusLine is the one human line of STATUS= (systemctl status shows it):
// agents, memories, backlog, last consolidation and the health state.
func StatusLine(addr string, r health.Report) string {
	var mems, backlog int64
	last := ""
	for _, a := range r.Agents {
		mems += a.Memories
		backlog += a.Backlog
		if a.LastConsolidated > last {
			last = a.LastConsolidated
		}
	}
	if last == "" {
		last = "never"
	}
	s := fmt.Sprintf("serving %d agents on %s: %d memories, %d unconsolidated, last consolidated day %s; health %s",
		len(r.Agents), addr, mems, backlog, last, r.State)
	if len(r.Reasons) > 0 {
		s += " (" + r.Reasons[0]
		if len(r.Reasons) > 1 {
			s += fmt.Sprintf(", +%d more", len(r.Reasons)-1)
		}
		s += ")"
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// summaryAttrs are the fields of the periodic summary line.
func summaryAttrs(r health.Report) []any {
	var mems, backlog, db int64
	for _, a := range r.Agents {
		mems += a.Memories
		backlog += a.Backlog
		db += a.DBBytes + a.WALBytes
	}
	attrs := []any{"state", r.State, "agents", len(r.Agents), "memories", mems, "backlog", backlog,
		"db_bytes", db, "disk_percent", fmt.Sprintf("%.1f", r.System.DiskPercent),
		"load1", r.System.Load1, "mem_used_bytes", r.System.MemUsedBytes}
	if t := r.System.TemperatureC; t != nil {
		attrs = append(attrs, "temperature_c", fmt.Sprintf("%.1f", *t))
	}
	if p := r.Provider; p != nil {
		attrs = append(attrs, "provider", p.Name, "provider_reachable", p.Reachable)
	}
	if len(r.Reasons) > 0 {
		attrs = append(attrs, "reasons", strings.Join(r.Reasons, "; "))
	}
	return attrs
}

// Summarize takes a report every interval (the monitor logs a change of
// state once, at warning), logs it as one info line and sends it as
// STATUS= through notify, until ctx ends. The first round is at once.
func Summarize(ctx context.Context, mon interface {
	Report(context.Context) health.Report
}, addr string, every time.Duration, log *slog.Logger, notify func(string)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		r := mon.Report(ctx)
		if ctx.Err() != nil {
			return
		}
		log.Info("health summary", summaryAttrs(r)...)
		notify("STATUS=" + StatusLine(addr, r))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
