package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// healthReport is the daemon's /health, or the same report computed from
// the files with --data.
func (c *common) healthReport(ctx context.Context, env Env, b backend) (health.Report, error) {
	switch b := b.(type) {
	case remote:
		return b.Health(ctx)
	case *local:
		cfg, err := loadConfig(env, c.configPath, map[string]string{"data_dir": c.data})
		if err != nil {
			return health.Report{}, err
		}
		return daemon.HealthMonitorFor(cfg, env.Environ, b.st, newLogger(io.Discard, "error")).Report(ctx), nil
	}
	return health.Report{}, fmt.Errorf("no health report from %T", b)
}

// printHealth writes the report's state, reasons and host readings.
func printHealth(w io.Writer, r health.Report) {
	fmt.Fprintf(w, "health: %s\n", r.State)
	for _, reason := range r.Reasons {
		fmt.Fprintf(w, "  - %s\n", reason)
	}
	s := r.System
	var parts []string
	if s.DiskTotal > 0 {
		parts = append(parts, fmt.Sprintf("disk %.1f%% of %s", s.DiskPercent, text.Size(int64(s.DiskTotal))))
	}
	if s.MemTotalBytes > 0 {
		parts = append(parts, fmt.Sprintf("memory %s of %s", text.Size(int64(s.MemUsedBytes)), text.Size(int64(s.MemTotalBytes))))
	}
	parts = append(parts, fmt.Sprintf("load %.2f %.2f %.2f", s.Load1, s.Load5, s.Load15))
	if s.TemperatureC != nil {
		parts = append(parts, fmt.Sprintf("SoC %.1f°C", *s.TemperatureC))
	}
	if s.UptimeSeconds > 0 {
		parts = append(parts, "up "+(time.Duration(s.UptimeSeconds)*time.Second).String())
	}
	fmt.Fprintf(w, "host: %s\n", strings.Join(parts, ", "))
	if p := r.Provider; p != nil {
		state := "reachable"
		switch {
		case p.NotProbed:
			state = "not probed"
		case !p.Reachable:
			state = "UNREACHABLE: " + p.Error
		}
		fmt.Fprintf(w, "llm provider %s: %s\n", p.Name, state)
	}
	for _, a := range r.Agents {
		if a.LastFailure != nil {
			fmt.Fprintf(w, "agent %s: last failed consolidation %s at %s: %s\n", a.Name, a.LastFailure.Day,
				a.LastFailure.At.Format(time.RFC3339), a.LastFailure.Error)
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "reading failed: %s\n", e)
	}
}
