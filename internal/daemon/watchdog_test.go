package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeSystemd listens where NOTIFY_SOCKET points, the way systemd does, and
// asks this process for watchdog pings every interval.
type fakeSystemd struct {
	conn *net.UnixConn
	msgs chan string
}

func newFakeSystemd(t *testing.T, interval time.Duration) *fakeSystemd {
	t.Helper()
	// A short path: unix socket names are limited to 108 bytes.
	dir, err := os.MkdirTemp("", "wd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	t.Setenv("WATCHDOG_USEC", fmt.Sprint(interval.Microseconds()))
	t.Setenv("WATCHDOG_PID", fmt.Sprint(os.Getpid()))
	f := &fakeSystemd{conn: conn, msgs: make(chan string, 1000)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				close(f.msgs)
				return
			}
			f.msgs <- string(buf[:n])
		}
	}()
	return f
}

// pings counts the WATCHDOG=1 datagrams that arrive within d.
func (f *fakeSystemd) pings(t *testing.T, d time.Duration) int {
	t.Helper()
	n := 0
	end := time.After(d)
	for {
		select {
		case m := <-f.msgs:
			if m != "WATCHDOG=1" {
				t.Errorf("unexpected notify message %q", m)
			}
			n++
		case <-end:
			return n
		}
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

type fakeStore struct{ err atomic.Pointer[error] }

func (s *fakeStore) Agents() ([]string, error) {
	if e := s.err.Load(); e != nil {
		return nil, *e
	}
	return []string{"main"}, nil
}

func TestWatchdogPingsOnlyWhileHealthy(t *testing.T) {
	sys := newFakeSystemd(t, 200*time.Millisecond) // a ping every 100 ms

	var healthy atomic.Bool
	healthy.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watchdog(ctx, quietLog(), func(context.Context) error {
			if healthy.Load() {
				return nil
			}
			return errors.New("stuck")
		})
	}()

	if n := sys.pings(t, 550*time.Millisecond); n < 3 {
		t.Errorf("healthy: %d pings in 550 ms, want at least 3 (one per 100 ms)", n)
	}
	healthy.Store(false)
	sys.pings(t, 150*time.Millisecond) // one may have been in flight
	if n := sys.pings(t, 500*time.Millisecond); n != 0 {
		t.Errorf("check failing: %d pings, want none", n)
	}
	healthy.Store(true)
	if n := sys.pings(t, 350*time.Millisecond); n < 1 {
		t.Errorf("recovered: no pings")
	}

	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Watchdog did not return when ctx ended")
	}
	sys.pings(t, 50*time.Millisecond)
	if n := sys.pings(t, 300*time.Millisecond); n != 0 {
		t.Errorf("after ctx ended: %d pings", n)
	}
}

func TestWatchdogOffWithoutSystemd(t *testing.T) {
	for name, env := range map[string][2]string{
		"no WATCHDOG_USEC":  {"", ""},
		"another process's": {"100000", "1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("WATCHDOG_USEC", env[0])
			t.Setenv("WATCHDOG_PID", env[1])
			done := make(chan struct{})
			go func() {
				defer close(done)
				Watchdog(context.Background(), quietLog(), func(context.Context) error {
					t.Error("check ran without a watchdog")
					return nil
				})
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("Watchdog kept running without a watchdog to feed")
			}
		})
	}
}

// The real liveness check against a real HTTP server: pings stop when the
// HTTP loop stops answering, and when the store fails.
func TestWatchdogWithLiveness(t *testing.T) {
	sys := newFakeSystemd(t, 400*time.Millisecond) // a ping every 200 ms, checks time out after 100 ms
	var hung atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		if hung.Load() {
			<-r.Context().Done() // a stuck HTTP loop: never answers
			return
		}
		fmt.Fprintln(w, `{"status":"ok"}`)
	}))
	defer srv.Close()
	st := &fakeStore{}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Watchdog(ctx, quietLog(), Liveness(srv.Listener.Addr(), st))

	if n := sys.pings(t, 700*time.Millisecond); n < 2 {
		t.Fatalf("healthy: %d pings in 700 ms, want at least 2", n)
	}

	hung.Store(true)
	sys.pings(t, 300*time.Millisecond)
	if n := sys.pings(t, 800*time.Millisecond); n != 0 {
		t.Errorf("/healthz hanging: %d pings, want none", n)
	}
	hung.Store(false)
	if n := sys.pings(t, 700*time.Millisecond); n < 1 {
		t.Errorf("/healthz answering again: no pings")
	}

	storeErr := errors.New("read /var/lib/dormouse/agents: input/output error")
	st.err.Store(&storeErr)
	sys.pings(t, 300*time.Millisecond)
	if n := sys.pings(t, 800*time.Millisecond); n != 0 {
		t.Errorf("store failing: %d pings, want none", n)
	}
}

func TestLiveness(t *testing.T) {
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(int(status.Load()))
	}))
	st := &fakeStore{}
	check := Liveness(srv.Listener.Addr(), st)
	ctx := context.Background()
	if err := check(ctx); err != nil {
		t.Fatalf("healthy: %v", err)
	}
	status.Store(http.StatusInternalServerError)
	if err := check(ctx); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("/healthz 500: err = %v", err)
	}
	status.Store(http.StatusOK)
	storeErr := errors.New("disk gone")
	st.err.Store(&storeErr)
	if err := check(ctx); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("store failing: err = %v", err)
	}
	st.err.Store(nil)
	srv.Close()
	if err := check(ctx); err == nil {
		t.Error("server closed: no error")
	}
}

func TestDialAddr(t *testing.T) {
	for _, c := range []struct {
		in   net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7733}, "127.0.0.1:7733"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 7733}, "127.0.0.1:7733"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 7733}, "127.0.0.1:7733"},
		{&net.TCPAddr{Port: 7733}, "127.0.0.1:7733"},
		{&net.TCPAddr{IP: net.ParseIP("192.168.1.20"), Port: 80}, "192.168.1.20:80"},
		{&net.TCPAddr{IP: net.ParseIP("fd00::1"), Port: 7733}, "[fd00::1]:7733"},
	} {
		if got := dialAddr(c.in); got != c.want {
			t.Errorf("dialAddr(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The wildcard listener really answers on the address dialAddr picks.
func TestDialAddrReachesWildcardListener(t *testing.T) {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	c, err := net.DialTimeout("tcp", dialAddr(ln.Addr()), 2*time.Second)
	if err != nil {
		t.Fatalf("dial %s (from %s): %v", dialAddr(ln.Addr()), ln.Addr(), err)
	}
	c.Close()
}
