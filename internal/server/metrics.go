package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// Reporter gives the current health report (cached by its owner).
type Reporter interface {
	Report(ctx context.Context) health.Report
}

// metrics are the server's own Prometheus instruments, in a registry it
// owns: nothing leaks into, or out of, the global default registry.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	ingested prometheus.Counter
	recall   prometheus.Histogram
}

func newMetrics(rep Reporter) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dormouse_http_requests_total",
			Help: "HTTP requests served, by route pattern and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dormouse_http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by route pattern and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "code"}),
		ingested: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "dormouse_memories_ingested_total",
			Help: "Memories stored through the API (duplicates not counted).",
		}),
		recall: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "dormouse_recall_duration_seconds",
			Help:    "Time to rank and assemble one recall.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.ingested, m.recall,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if rep != nil {
		m.reg.MustRegister(healthCollector{rep})
	}
	return m
}

func (m *metrics) observe(route string, status int, took time.Duration) {
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(route, code).Inc()
	m.latency.WithLabelValues(route, code).Observe(took.Seconds())
}

// serveMetrics answers GET /metrics with the series r may see.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if v, ok := s.viewerOf(w, r); ok {
		s.met.metricsFor(v).ServeHTTP(w, r)
	}
}

// healthCollector turns the health report into gauges when Prometheus
// scrapes, so the two never disagree and the store is read at most once per
// report cache period.
type healthCollector struct{ rep Reporter }

var (
	stateDesc = prometheus.NewDesc("dormouse_health_state",
		"1 for the current health state (ok, degraded, failing), 0 for the others.", []string{"state"}, nil)
	dbBytesDesc = prometheus.NewDesc("dormouse_agent_db_bytes",
		"Size of the agent's database file.", []string{"agent"}, nil)
	walBytesDesc = prometheus.NewDesc("dormouse_agent_wal_bytes",
		"Size of the agent's write-ahead log.", []string{"agent"}, nil)
	memoriesDesc = prometheus.NewDesc("dormouse_agent_memories",
		"Memories the agent holds.", []string{"agent"}, nil)
	backlogDesc = prometheus.NewDesc("dormouse_agent_backlog",
		"The agent's unconsolidated memories.", []string{"agent"}, nil)
	diskDesc = prometheus.NewDesc("dormouse_disk_used_ratio",
		"Used share of the data directory's filesystem, 0 to 1.", nil, nil)
	tempDesc = prometheus.NewDesc("dormouse_soc_temperature_celsius",
		"SoC temperature; absent when the host has no sensor.", nil, nil)
)

func (c healthCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{stateDesc, dbBytesDesc, walBytesDesc, memoriesDesc, backlogDesc, diskDesc, tempDesc} {
		ch <- d
	}
	for _, d := range consolidationDescs {
		ch <- d
	}
}

func (c healthCollector) Collect(ch chan<- prometheus.Metric) {
	// The scrape's own context is not handed to collectors; the report's
	// cache and the store's busy timeout bound the wait.
	r := c.rep.Report(context.Background())
	for _, s := range []string{health.OK, health.Degraded, health.Failing} {
		v := 0.0
		if s == r.State {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, s)
	}
	for _, a := range r.Agents {
		ch <- prometheus.MustNewConstMetric(dbBytesDesc, prometheus.GaugeValue, float64(a.DBBytes), a.Name)
		ch <- prometheus.MustNewConstMetric(walBytesDesc, prometheus.GaugeValue, float64(a.WALBytes), a.Name)
		ch <- prometheus.MustNewConstMetric(memoriesDesc, prometheus.GaugeValue, float64(a.Memories), a.Name)
		ch <- prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(a.Backlog), a.Name)
	}
	if r.System.DiskTotal > 0 {
		ch <- prometheus.MustNewConstMetric(diskDesc, prometheus.GaugeValue, r.System.DiskPercent/100)
	}
	if t := r.System.TemperatureC; t != nil {
		ch <- prometheus.MustNewConstMetric(tempDesc, prometheus.GaugeValue, *t)
	}
	collectConsolidation(ch, r)
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
