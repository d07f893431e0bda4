package health

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestProviderProbeIsRateLimited(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	calls := 0
	var fail error
	p := &ProviderProbe{Name: "ollama", Every: time.Minute, Now: func() time.Time { return now },
		Probe: func(context.Context) error { calls++; return fail }}
	if r := p.Check(t.Context()); !r.Reachable || calls != 1 {
		t.Fatalf("first check %+v after %d calls", r, calls)
	}
	fail = errors.New("connection refused")
	now = now.Add(30 * time.Second)
	if r := p.Check(t.Context()); !r.Reachable || calls != 1 {
		t.Fatalf("within the minute: %+v after %d calls, want the cached answer", r, calls)
	}
	now = now.Add(31 * time.Second)
	r := p.Check(t.Context())
	if r.Reachable || calls != 2 || r.Error != "connection refused" {
		t.Fatalf("after the minute: %+v after %d calls", r, calls)
	}
}

func TestProviderProbeNotProbed(t *testing.T) {
	errNo := errors.New("no probe")
	p := &ProviderProbe{Name: "bedrock", NotProbed: errNo,
		Probe: func(context.Context) error { return errNo }}
	if r := p.Check(t.Context()); !r.Reachable || !r.NotProbed {
		t.Errorf("%+v, want reachable and not probed", r)
	}
}

func TestProviderProbeCancelledCallerNotCached(t *testing.T) {
	calls := 0
	p := &ProviderProbe{Name: "openai", Probe: func(ctx context.Context) error { calls++; return ctx.Err() }}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	p.Check(ctx)
	if r := p.Check(t.Context()); !r.Reachable || calls != 2 {
		t.Errorf("%+v after %d calls: a cancelled caller's result was cached", r, calls)
	}
}

func TestEvaluateProviderUnreachable(t *testing.T) {
	r := Readings{Provider: &Provider{Name: "ollama", Error: "connection refused"}}
	state, reasons := Evaluate(r, Thresholds{}, time.Now())
	if state != Degraded || len(reasons) != 1 || !strings.Contains(reasons[0], "LLM provider ollama unreachable: connection refused") {
		t.Errorf("state %s reasons %q", state, reasons)
	}
	r.Provider = &Provider{Name: "ollama", Reachable: true}
	if state, _ := Evaluate(r, Thresholds{}, time.Now()); state != OK {
		t.Errorf("reachable provider: %s", state)
	}
	r.Provider = &Provider{Name: "bedrock", Reachable: true, NotProbed: true}
	if state, _ := Evaluate(r, Thresholds{}, time.Now()); state != OK {
		t.Errorf("not probed provider: %s", state)
	}
}
