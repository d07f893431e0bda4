package server

import (
	"bytes"
	"context"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// Reporter gives the current health report (cached by its owner).
type Reporter interface {
	Report(ctx context.Context) health.Report
}

// metrics are the server's own instruments, served on /metrics in
// Prometheus' text format (expo.go) with the health report's gauges and the
// runtime's (runtimeFamilies).
type metrics struct {
	rep      Reporter
	mu       sync.Mutex
	requests map[routeCode]float64
	latency  map[routeCode]*histogram
	ingested counter
	recall   *histogram
}

type routeCode struct{ route, code string }

// counter is a monotonic count.
type counter struct{ n atomic.Uint64 }

func (c *counter) Add(v float64) { c.n.Add(uint64(v)) }
func (c *counter) Inc()          { c.n.Add(1) }

var latencyBounds = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

func newMetrics(rep Reporter) *metrics {
	return &metrics{
		rep: rep, requests: map[routeCode]float64{}, latency: map[routeCode]*histogram{},
		recall: newHistogram(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5),
	}
}

func (m *metrics) observe(route string, status int, took time.Duration) {
	k := routeCode{route, strconv.Itoa(status)}
	m.mu.Lock()
	m.requests[k]++
	h := m.latency[k]
	if h == nil {
		h = newHistogram(latencyBounds...)
		m.latency[k] = h
	}
	m.mu.Unlock()
	h.Observe(took.Seconds())
}

// serveMetrics answers GET /metrics with the series r may see.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	v, ok := s.viewerOf(w, r)
	if !ok {
		return
	}
	var sees func(string) bool
	if !v.all {
		sees = v.sees
	}
	var b bytes.Buffer
	for _, f := range s.met.families(r.Context()) {
		f.write(&b, sees)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// families is every series at this moment: the server's, the health
// report's (read when scraped, so the two never disagree; the report's cache
// bounds how often the store is read) and the runtime's.
func (m *metrics) families(ctx context.Context) []*family {
	fams := m.serverFamilies()
	if m.rep != nil {
		fams = append(fams, healthFamilies(m.rep.Report(ctx))...)
	}
	return append(fams, runtimeFamilies()...)
}

func (m *metrics) serverFamilies() []*family {
	requests := &family{name: "dormouse_http_requests_total", typ: "counter",
		help: "HTTP requests served, by route pattern and status code."}
	latency := &family{name: "dormouse_http_request_duration_seconds", typ: "histogram",
		help: "Time to serve an HTTP request, by route pattern and status code."}
	m.mu.Lock()
	keys := make([]routeCode, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].route < keys[j].route || keys[i].route == keys[j].route && keys[i].code < keys[j].code
	})
	for _, k := range keys {
		requests.add(m.requests[k], "route", k.route, "code", k.code)
	}
	hists := make([]*histogram, len(keys))
	for i, k := range keys {
		hists[i] = m.latency[k]
	}
	m.mu.Unlock()
	for i, k := range keys {
		hists[i].addTo(latency, "route", k.route, "code", k.code)
	}
	ingested := &family{name: "dormouse_memories_ingested_total", typ: "counter",
		help: "Memories stored through the API (duplicates not counted)."}
	ingested.add(float64(m.ingested.n.Load()))
	recall := &family{name: "dormouse_recall_duration_seconds", typ: "histogram", help: "Time to rank and assemble one recall."}
	m.recall.addTo(recall)
	return []*family{requests, latency, ingested, recall}
}

// healthFamilies are the health report as gauges.
func healthFamilies(r health.Report) []*family {
	state := &family{name: "dormouse_health_state", typ: "gauge",
		help: "1 for the current health state (ok, degraded, failing), 0 for the others."}
	for _, s := range []string{health.OK, health.Degraded, health.Failing} {
		state.add(boolValue(s == r.State), "state", s)
	}
	db := &family{name: "dormouse_agent_db_bytes", typ: "gauge", help: "Size of the agent's database file."}
	wal := &family{name: "dormouse_agent_wal_bytes", typ: "gauge", help: "Size of the agent's write-ahead log."}
	mems := &family{name: "dormouse_agent_memories", typ: "gauge", help: "Memories the agent holds."}
	backlog := &family{name: "dormouse_agent_backlog", typ: "gauge", help: "The agent's unconsolidated memories."}
	for _, a := range r.Agents {
		db.add(float64(a.DBBytes), "agent", a.Name)
		wal.add(float64(a.WALBytes), "agent", a.Name)
		mems.add(float64(a.Memories), "agent", a.Name)
		backlog.add(float64(a.Backlog), "agent", a.Name)
	}
	disk := &family{name: "dormouse_disk_used_ratio", typ: "gauge", help: "Used share of the data directory's filesystem, 0 to 1."}
	if r.System.DiskTotal > 0 {
		disk.add(r.System.DiskPercent / 100)
	}
	temp := &family{name: "dormouse_soc_temperature_celsius", typ: "gauge", help: "SoC temperature; absent when the host has no sensor."}
	if t := r.System.TemperatureC; t != nil {
		temp.add(*t)
	}
	fams := append([]*family{state, db, wal, mems, backlog, disk, temp}, replicationFamilies(r.Replication)...)
	return append(fams, consolidationFamilies(r)...)
}

// replicationFamilies are the replicas' gauges; none when replication is off.
func replicationFamilies(r *health.Replication) []*family {
	if r == nil {
		return nil
	}
	up := &family{name: "dormouse_replication_up", typ: "gauge", help: "1 while Litestream runs, 0 while it is down."}
	up.add(boolValue(r.Running))
	restarts := &family{name: "dormouse_replication_restarts_total", typ: "counter", help: "Times Litestream exited and was started again."}
	restarts.add(float64(r.Restarts))
	lag := &family{name: "dormouse_replica_lag_seconds", typ: "gauge",
		help: "How long the agent's oldest acknowledged write not yet on its replica has waited (0: all shipped)."}
	syncErrors := &family{name: "dormouse_replica_sync_errors_total", typ: "counter",
		help: "Litestream's failed copies of the agent's WAL into its staging, since it last started."}
	walBytes := &family{name: "dormouse_replica_wal_bytes_total", typ: "counter",
		help: "WAL bytes Litestream has copied from the agent's file for its replica, since it last started."}
	for _, a := range r.Agents {
		lag.add(a.LagSeconds, "agent", a.Agent)
		if a.SyncErrors != nil {
			syncErrors.add(float64(*a.SyncErrors), "agent", a.Agent)
		}
		if a.WALBytes != nil {
			walBytes.add(float64(*a.WALBytes), "agent", a.Agent)
		}
	}
	return []*family{up, restarts, lag, syncErrors, walBytes}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if s.opts.Health == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", "this server has no health monitor")
		return
	}
	v, ok := s.viewerOf(w, r)
	if !ok {
		return
	}
	rep := v.report(s.opts.Health.Report(r.Context()))
	status := http.StatusOK
	if rep.State == health.Failing {
		status = http.StatusServiceUnavailable
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, wire.Health(rep))
}
