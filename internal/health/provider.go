package health

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/dormouse-dev/dormouse/client"
)

// Provider is the last reachability probe of the LLM provider.
type Provider = client.HealthProvider

// ProviderProbe rate-limits a provider probe: at most one request per Every,
// the answer cached in between, so /health, /metrics and the periodic
// summary never hammer a remote API.
type ProviderProbe struct {
	Name string
	// Probe asks the provider a question that costs no tokens (llm.Probe).
	// An error wrapping NotProbed means it has no such question.
	Probe     func(ctx context.Context) error
	NotProbed error
	Every     time.Duration // 0: 5 minutes
	Timeout   time.Duration // 0: 5 seconds per probe
	Now       func() time.Time

	mu   sync.Mutex
	last *Provider
}

// Check returns the cached result, probing anew once it is older than Every.
func (p *ProviderProbe) Check(ctx context.Context) Provider {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	every := p.Every
	if every <= 0 {
		every = 5 * time.Minute
	}
	t := now()
	if p.last != nil && t.Sub(p.last.CheckedAt) < every && !t.Before(p.last.CheckedAt) {
		return *p.last
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	err := p.Probe(pctx)
	cancel()
	r := Provider{Name: p.Name, Reachable: err == nil, CheckedAt: t}
	switch {
	case err == nil:
	case p.NotProbed != nil && errors.Is(err, p.NotProbed):
		r.Reachable, r.NotProbed = true, true
	default:
		r.Error = err.Error()
	}
	if ctx.Err() == nil { // a cancelled caller's failure says nothing about the provider
		p.last = &r
	}
	return r
}
