package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// Health is the report the daemon's /health gives, computed from the files.
func (l *local) Health(ctx context.Context) (client.Health, error) {
	l.s.Health.Logger = nil // one report: its state "changing" from unknown is no news to log
	return wire.Health(l.s.Health.Report(ctx)), nil
}

// printHealth writes the report's state, reasons and host readings.
func printHealth(w io.Writer, r client.Health) {
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
	printReplication(w, r.Replication)
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

// printReplication writes the replicas' lines of dormouse status.
func printReplication(w io.Writer, r *client.HealthReplication) {
	if r == nil {
		return
	}
	state := "litestream running"
	if !r.Running {
		state = "LITESTREAM NOT RUNNING"
	}
	fmt.Fprintf(w, "replication to %s: %s, %d restarts\n", r.Target, state, r.Restarts)
	for _, a := range r.Agents {
		synced := "never synced"
		if a.LastSync != nil {
			synced = "last sync " + a.LastSync.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  replica %s: %s, lag %.1fs, %s", a.Agent, a.State, a.LagSeconds, synced)
		if a.WALBytes != nil && a.SyncErrors != nil {
			fmt.Fprintf(w, ", %s shipped, %d sync errors", text.Size(*a.WALBytes), *a.SyncErrors)
		}
		if d := a.LastDrill; d != nil {
			result := "ok"
			if !d.OK {
				result = "FAILED: " + d.Reason
			}
			fmt.Fprintf(w, ", drill %s %s", d.At.Format(time.RFC3339), result)
		}
		if a.LastError != "" {
			fmt.Fprintf(w, ", error: %s", a.LastError)
		}
		fmt.Fprintln(w)
	}
}
