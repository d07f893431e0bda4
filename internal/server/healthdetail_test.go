package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/health"
)

// detailFixture serves a health monitor whose report names two agents, one
// with a failing file, behind tokens: "assistant" sees agent assistant,
// "admin" every agent.
func detailFixture(t *testing.T, public bool) *fixture {
	t.Helper()
	k, err := auth.New([]auth.Rule{
		{Name: "assistant", SHA256: auth.Hash("tok-assistant"), Agents: []string{"assistant"}},
		{Name: "admin", SHA256: auth.Hash("tok-admin"), Agents: []string{"*"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &health.Monitor{Thresholds: health.Thresholds{Backlog: 5, DiskPercent: 90},
		Collector: health.CollectorFunc(func(context.Context) health.Readings {
			return health.Readings{
				System: health.System{DiskPath: "/var/lib/dormouse", DiskTotal: 100, DiskPercent: 95},
				Agents: []health.Agent{
					{Name: "assistant", Backlog: 1, Memories: 3},
					{Name: "diary", Backlog: 10, Memories: 7, FailingFiles: []string{"/home/ann/vault/therapy.md: parse error"}},
				},
				Errors: []string{`agents: open agent "diary": busy`},
			}
		})}
	return newFixture(t, Options{Health: m, Keyring: k, PublicDetail: public})
}

func (f *fixture) getAs(path, token string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), http.MethodGet, f.url+path, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthDetailNeedsToken: with tokens configured, /health and /metrics
// answer anyone with the overall state and the host's gauges, but agent
// names, per-agent series and file paths only to a token, and only of its
// agents; health.public_detail shows them to everyone.
func TestHealthDetailNeedsToken(t *testing.T) {
	f := detailFixture(t, false)
	for _, path := range []string{"/health", "/metrics"} {
		st, body := f.getAs(path, "")
		if st != http.StatusOK || !strings.Contains(body, "degraded") || !strings.Contains(body, "disk") {
			t.Errorf("GET %s without a token: %d, want 200 with the state and the disk:\n%s", path, st, body)
		}
		for _, secret := range []string{"assistant", "diary", "therapy.md", "agent="} {
			if strings.Contains(body, secret) {
				t.Errorf("GET %s without a token shows %q:\n%s", path, secret, body)
			}
		}
		st, body = f.getAs(path, "tok-assistant")
		if st != http.StatusOK || !strings.Contains(body, "assistant") {
			t.Errorf("GET %s with assistant's token: %d, want its agent:\n%s", path, st, body)
		}
		for _, secret := range []string{"diary", "therapy.md"} {
			if strings.Contains(body, secret) {
				t.Errorf("GET %s with assistant's token shows %q:\n%s", path, secret, body)
			}
		}
		if _, body = f.getAs(path, "tok-admin"); !strings.Contains(body, "diary") {
			t.Errorf("GET %s with a token for every agent lacks agent diary:\n%s", path, body)
		}
		if st, _ = f.getAs(path, "tok-nope"); st != http.StatusUnauthorized {
			t.Errorf("GET %s with an unknown token: %d, want 401", path, st)
		}
	}
	if _, body := f.getAs("/health", ""); !strings.Contains(body, "send a token") {
		t.Errorf("GET /health without a token does not say that agent reasons were left out:\n%s", body)
	}

	f = detailFixture(t, true)
	for _, path := range []string{"/health", "/metrics"} {
		if _, body := f.getAs(path, ""); !strings.Contains(body, "diary") {
			t.Errorf("GET %s with health.public_detail, without a token, lacks agent diary:\n%s", path, body)
		}
	}
	if _, body := f.getAs("/health", ""); !strings.Contains(body, "therapy.md") {
		t.Errorf("GET /health with health.public_detail lacks the failing file:\n%s", body)
	}
}
