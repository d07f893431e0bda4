package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/replicate"
)

// ReplicationTarget maps replication.* onto the replica's target.
func ReplicationTarget(cfg config.Config) replicate.Target {
	r := cfg.Replication
	return replicate.Target{URL: r.URL, Endpoint: r.Endpoint, Region: r.Region, PathStyle: r.PathStyle,
		SyncInterval: time.Duration(r.SyncInterval)}
}

// startReplication runs Litestream over every agent file when
// replication.url is set; without it the supervisor returned does nothing.
func startReplication(cfg config.Config, s *Services, environ []string) (*replicate.Supervisor, error) {
	sup := &replicate.Supervisor{}
	if cfg.Replication.URL == "" {
		return sup, nil
	}
	bin, err := replicate.FindBinary(cfg.Replication.Litestream)
	if err != nil {
		return sup, fmt.Errorf("replication.url is set: %w", err)
	}
	*sup = replicate.Supervisor{Binary: bin, Target: ReplicationTarget(cfg), AgentsDir: s.Store.Dir(),
		Layout: replicate.NewLayout(cfg.DataDir), Environ: replicate.Environ(environ), Logger: s.Logger}
	if err := sup.Start(); err != nil {
		return sup, fmt.Errorf("replication: %w", err)
	}
	s.Replication = sup
	if h, ok := s.Health.Collector.(*health.Host); ok {
		h.Replication = func(ctx context.Context) *health.Replication {
			agents, err := s.Store.Agents()
			if err != nil {
				s.Logger.Warn("health: list the agents for their drills", "err", err)
			}
			return replicationReading(sup.Status(ctx), cfg.DataDir, agents, s.Logger)
		}
	}
	return sup, nil
}

// replicationReading is the supervisor's status as /health shows it,
// with each agent's last restore drill from dataDir: also that of an agent
// Litestream has not picked up yet (just after start-up), so that a failed
// drill is seen at once.
func replicationReading(st replicate.Status, dataDir string, agents []string, log *slog.Logger) *health.Replication {
	drills, err := replicate.ReadDrills(dataDir)
	if err != nil {
		log.Warn("health: restore drills", "err", err)
	}
	r := &health.Replication{Target: st.Target, Running: st.Running, DownSince: st.DownSince, Restarts: st.Restarts,
		LastError: st.LastError, LastErrorAt: st.LastErrAt, Agents: []health.Replica{}}
	for _, a := range st.Agents {
		rep := health.Replica{Agent: a.Agent, State: a.State, LagSeconds: a.Lag.Seconds(),
			LastSync: a.LastSync, LastError: a.LastError, LastDrill: drillReading(drills, a.Agent)}
		if c := a.Counters; c != nil {
			rep.SyncErrors, rep.WALBytes = &c.SyncErrors, &c.WALBytes
		}
		r.Agents = append(r.Agents, rep)
	}
	for _, name := range agents {
		d := drillReading(drills, name)
		if d != nil && !slices.ContainsFunc(r.Agents, func(a health.Replica) bool { return a.Agent == name }) {
			r.Agents = append(r.Agents, health.Replica{Agent: name, State: "waiting", LastDrill: d})
		}
	}
	return r
}

func drillReading(d replicate.Drills, agent string) *health.Drill {
	r, ok := d.Agents[agent]
	if !ok {
		return nil
	}
	return &health.Drill{At: r.At, OK: r.OK, Reason: r.Reason}
}
