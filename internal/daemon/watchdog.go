package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"
)

// maxCheckTimeout caps how long one liveness check may take: a daemon that
// cannot answer its own /healthz within it is not alive enough to ping.
const maxCheckTimeout = 5 * time.Second

// Watchdog keeps systemd's watchdog (WatchdogSec=) fed: when systemd asked for
// pings (WATCHDOG_USEC and WATCHDOG_PID name this process) it runs check every
// half interval and sends WATCHDOG=1 only when check passes, so a daemon whose
// HTTP loop or store is stuck stops pinging and systemd restarts it. It returns
// when ctx ends, or at once when there is no watchdog to feed.
func Watchdog(ctx context.Context, log *slog.Logger, check func(context.Context) error) {
	interval, err := sd.SdWatchdogEnabled(false)
	if err != nil {
		log.Warn("systemd watchdog misconfigured; not pinging", "err", err)
		return
	}
	if interval <= 0 {
		return
	}
	timeout := min(interval/4, maxCheckTimeout)
	log.Info("systemd watchdog enabled", "interval", interval, "ping_every", interval/2)
	tick := time.NewTicker(interval / 2)
	defer tick.Stop()
	healthy := true
	for {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		err := check(cctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		switch {
		case err == nil:
			if !healthy {
				log.Info("liveness check passes again; watchdog pings resumed")
			}
			healthy = true
			notify(log, sd.SdNotifyWatchdog)
		case healthy:
			healthy = false
			log.Error("liveness check failed; withholding watchdog pings, systemd restarts the service if it does not recover",
				"err", err, "restart_within", interval)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// agentLister is the part of *store.Store the liveness check uses.
type agentLister interface {
	Agents() ([]string, error)
}

// Liveness returns the check Watchdog runs: the daemon's own /healthz answers
// 200 over the listener's address (the HTTP loop is serving) and the store
// lists its agents (the data directory answers).
func Liveness(addr net.Addr, st agentLister) func(context.Context) error {
	url := "http://" + dialAddr(addr) + "/healthz"
	client := &http.Client{Transport: &http.Transport{
		Proxy:             nil, // never through $HTTP_PROXY: this is our own port
		DisableKeepAlives: true,
	}}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("GET %s: %w", url, err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		if _, err := st.Agents(); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		return nil
	}
}

// dialAddr turns a listener's address into one this host can dial: an
// unspecified IP (":7733", "0.0.0.0:7733", "[::]:7733") becomes 127.0.0.1,
// which Go's dual-stack wildcard listeners also accept.
func dialAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.String()
	}
	ip := tcp.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(tcp.Port))
}
