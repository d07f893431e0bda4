package daemon_test

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// Beyond loopback the daemon wants tokens, or to be told it may do without.
func TestNoTokensBeyondLoopback(t *testing.T) {
	ip := nonLoopbackIP(t)
	cfg := daemontest.Config(t.TempDir())
	cfg.Listen = net.JoinHostPort(ip, "0")
	d, err := daemontest.Run(cfg)
	if err == nil {
		_ = d.Close()
		t.Fatalf("the daemon listened on %s without tokens", d.Addr)
	}
	if !strings.Contains(err.Error(), "auth.tokens is empty") {
		t.Errorf("error %v: want it to name auth.tokens", err)
	}

	cfg.Auth.AllowOpen = true
	if d, err = daemontest.Run(cfg); err != nil {
		t.Fatalf("with auth.allow_open: %v", err)
	}
	defer d.Close()
	// The warning follows "listening", which Run waits for.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(d.Log(), "without tokens (auth.allow_open)"); {
		if time.Now().After(deadline) {
			t.Fatalf("no warning in the log:\n%s", d.Log())
		}
		time.Sleep(10 * time.Millisecond)
	}

	cfg.Auth = config.Auth{Tokens: []config.Token{{Name: "a", SHA256: strings.Repeat("ab", 32), Agents: []string{"*"}, Access: "read"}}}
	d2, err := daemontest.Run(cfg)
	if err != nil {
		t.Fatalf("with a token: %v", err)
	}
	_ = d2.Close()
}

// nonLoopbackIP is an address of this machine that is not loopback, or the
// test skips.
func nonLoopbackIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip("no interface addresses:", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no non-loopback IPv4 address")
	return ""
}

// TestDaemonHostCheck: the daemon answers its loopback names and
// api.allowed_hosts, and 421 to any other Host (DNS rebinding), on the API
// and the page alike.
func TestDaemonHostCheck(t *testing.T) {
	d := daemontest.Start(t, func(c *config.Config) { c.API.AllowedHosts = []string{"pi.local"} })
	for host, want := range map[string]int{"localhost": 200, "pi.local": 200, d.Addr: 200, "evil.example": 421} {
		for _, path := range []string{"/v1/agents", "/"} {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, d.URL()+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET %s with Host %s: %d, want %d", path, host, resp.StatusCode, want)
			}
		}
	}
}
