package daemon

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/proctest"
)

// TestSummarizeSendsStatus runs the summary loop against a fake systemd: each
// round sends one STATUS= line and logs one info line; the change of state
// is logged once, at warning.
func TestSummarizeSendsStatus(t *testing.T) {
	sd := newFakeSystemd(t, time.Hour)
	var mu sync.Mutex
	backlog := int64(5)
	mon := &health.Monitor{
		Thresholds: health.Thresholds{Backlog: 10},
		TTL:        time.Nanosecond,
		Collector: health.CollectorFunc(func(context.Context) health.Readings {
			mu.Lock()
			defer mu.Unlock()
			return health.Readings{Agents: []health.Agent{
				{Name: "a", Memories: 20, Backlog: backlog, LastConsolidated: "2026-02-01"},
				{Name: "b", Memories: 10, LastConsolidated: "2026-01-15"},
			}}
		}),
	}
	var logs proctest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	mon.Logger = log
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Summarize(ctx, mon, "127.0.0.1:7733", 20*time.Millisecond, log, func(s string) { notify(log, s) })
	}()
	next := func() string {
		t.Helper()
		select {
		case m := <-sd.msgs:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("no STATUS= message")
			return ""
		}
	}
	want := "STATUS=serving 2 agents on 127.0.0.1:7733: 30 memories, 5 unconsolidated, last consolidated day 2026-02-01; health ok"
	if got := next(); got != want {
		t.Errorf("first status\n got %q\nwant %q", got, want)
	}
	mu.Lock()
	backlog = 50
	mu.Unlock()
	var got string
	for range 3 {
		if got = next(); strings.Contains(got, "degraded") {
			break
		}
	}
	want = `STATUS=serving 2 agents on 127.0.0.1:7733: 30 memories, 50 unconsolidated, last consolidated day 2026-02-01; health degraded (agent "a" has 50 unconsolidated memories (over 10))`
	if got != want {
		t.Errorf("degraded status\n got %q\nwant %q", got, want)
	}
	next()
	next()
	cancel()
	<-done
	out := logs.String()
	if n := strings.Count(out, "level=WARN msg=\"health state changed\""); n != 1 {
		t.Errorf("state change logged %d times, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "level=INFO msg=\"health summary\""); n < 4 {
		t.Errorf("%d summary lines, want one per round (at least 4):\n%s", n, out)
	}
	if !strings.Contains(out, "state=degraded agents=2 memories=30 backlog=50") {
		t.Errorf("summary lacks the counts:\n%s", out)
	}
}

func TestProviderProbeFromConfig(t *testing.T) {
	cfg := config.Default()
	if p := ProviderProbe(cfg, nil, quietLog()); p != nil {
		t.Errorf("offline provider probed: %+v", p)
	}
	cfg.LLM.Provider = "ollama"
	cfg.LLM.BaseURL = "http://127.0.0.1:1"
	p := ProviderProbe(cfg, nil, quietLog())
	if p == nil || p.Name != "ollama" {
		t.Fatalf("probe %+v", p)
	}
	if r := p.Check(t.Context()); r.Reachable || r.Error == "" {
		t.Errorf("ollama on a closed port: %+v", r)
	}
}
