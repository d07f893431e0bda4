package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dormouse-dev/dormouse/internal/health"
)

// hostReporter reads the fixture's real store through health.Host, which
// only exists once the fixture has opened it.
type hostReporter struct {
	host *health.Host
	th   health.Thresholds
}

func (h *hostReporter) Report(ctx context.Context) health.Report {
	r := health.Report{Readings: h.host.Collect(ctx), At: time.Now()}
	r.State, r.Reasons = health.Evaluate(r.Readings, h.th, r.At)
	return r
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics = %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// find returns the metric of family name whose labels include want.
func find(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		for k, v := range want {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		return m
	}
	return nil
}

func TestMetrics(t *testing.T) {
	rep := &hostReporter{th: health.Thresholds{Backlog: 1}}
	f := newFixture(t, Options{AutoCreate: true, Health: rep})
	rep.host = &health.Host{Store: f.store, Location: time.UTC}

	body := `{"memories":[{"content":"Alice moved to Lisbon in March"},{"content":"the boiler was serviced"}]}`
	if got := f.post("/v1/agents/main/memories", body, nil); got != http.StatusCreated {
		t.Fatalf("POST memories = %d, want 201", got)
	}
	if got := f.post("/v1/agents/main/memories", body, nil); got != http.StatusCreated { // duplicates
		t.Fatalf("POST memories again = %d, want 201", got)
	}
	if got := f.post("/v1/agents/main/recall", `{"query":"where does Alice live"}`, nil); got != http.StatusOK {
		t.Fatalf("POST recall = %d, want 200", got)
	}
	if got := f.do("GET", "/v1/agents/nobody/stats", nil, nil); got != http.StatusNotFound {
		t.Fatalf("GET stats of a missing agent = %d, want 404", got)
	}

	fams := scrape(t, f.url)
	for _, name := range []string{"dormouse_http_requests_total", "dormouse_http_request_duration_seconds",
		"dormouse_memories_ingested_total", "dormouse_recall_duration_seconds", "dormouse_health_state",
		"dormouse_agent_db_bytes", "dormouse_agent_wal_bytes", "dormouse_agent_backlog", "go_goroutines"} {
		if fams[name] == nil {
			t.Errorf("/metrics has no %s", name)
		}
	}
	counter := func(name string, labels map[string]string) float64 {
		m := find(fams, name, labels)
		if m == nil {
			t.Errorf("no %s%v", name, labels)
			return -1
		}
		return m.GetCounter().GetValue()
	}
	gauge := func(name string, labels map[string]string) float64 {
		m := find(fams, name, labels)
		if m == nil {
			t.Errorf("no %s%v", name, labels)
			return -1
		}
		return m.GetGauge().GetValue()
	}
	if got := counter("dormouse_http_requests_total", map[string]string{"route": "POST /v1/agents/{agent}/memories", "code": "201"}); got != 2 {
		t.Errorf("requests to POST memories with 201 = %g, want 2", got)
	}
	if got := counter("dormouse_http_requests_total", map[string]string{"route": "GET /v1/agents/{agent}/stats", "code": "404"}); got != 1 {
		t.Errorf("requests to GET stats with 404 = %g, want 1", got)
	}
	if m := find(fams, "dormouse_http_request_duration_seconds", map[string]string{"route": "POST /v1/agents/{agent}/recall", "code": "200"}); m == nil || m.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("latency histogram of recall = %v, want 1 sample", m)
	}
	if got := counter("dormouse_memories_ingested_total", nil); got != 2 {
		t.Errorf("memories ingested = %g, want 2 (duplicates are not counted)", got)
	}
	if got := fams["dormouse_recall_duration_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); got != 1 {
		t.Errorf("recall latency samples = %d, want 1", got)
	}
	if got := gauge("dormouse_agent_backlog", map[string]string{"agent": "main"}); got != 2 {
		t.Errorf("backlog of main = %g, want 2", got)
	}
	if got := gauge("dormouse_agent_db_bytes", map[string]string{"agent": "main"}); got <= 0 {
		t.Errorf("db bytes of main = %g, want > 0", got)
	}
	if got := gauge("dormouse_health_state", map[string]string{"state": "degraded"}); got != 1 {
		t.Errorf("health state degraded = %g, want 1 (backlog 2 over 1)", got)
	}
	if got := gauge("dormouse_health_state", map[string]string{"state": "ok"}); got != 0 {
		t.Errorf("health state ok = %g, want 0", got)
	}

	// The scrape itself is counted by the next one.
	fams = scrape(t, f.url)
	if got := counter("dormouse_http_requests_total", map[string]string{"route": "GET /metrics", "code": "200"}); got != 1 {
		t.Errorf("requests to GET /metrics = %g, want 1", got)
	}
}

func TestHealthEndpoint(t *testing.T) {
	tests := []struct {
		name       string
		readings   health.Readings
		wantStatus int
		wantState  string
	}{
		{"ok", health.Readings{}, http.StatusOK, health.OK},
		{"degraded", health.Readings{Agents: []health.Agent{{Name: "main", Backlog: 10}}}, http.StatusOK, health.Degraded},
		{"failing", health.Readings{System: health.System{DiskPath: "/", DiskTotal: 100, DiskPercent: 99}},
			http.StatusServiceUnavailable, health.Failing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &health.Monitor{Thresholds: health.Thresholds{Backlog: 5},
				Collector: health.CollectorFunc(func(context.Context) health.Readings { return tt.readings })}
			f := newFixture(t, Options{Health: m})
			var got health.Report
			if status := f.do("GET", "/health", nil, &got); status != tt.wantStatus {
				t.Errorf("GET /health = %d, want %d", status, tt.wantStatus)
			}
			if got.State != tt.wantState || (tt.wantState != health.OK) != (len(got.Reasons) > 0) {
				t.Errorf("GET /health state %q reasons %q, want %q with reasons when not ok", got.State, got.Reasons, tt.wantState)
			}
		})
	}
	f := newFixture(t, Options{})
	if status := f.do("GET", "/health", nil, nil); status != http.StatusNotImplemented {
		t.Errorf("GET /health without a monitor = %d, want 501", status)
	}
}
