package replicate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Counters are Litestream's own counters of one agent's file, as its
// metrics listener serves them: counted since it last started.
type Counters struct {
	// SyncErrors are its failed copies of the WAL's new frames into the
	// replica's staging (litestream_sync_error_count). A store refusing
	// uploads is not counted here: Litestream counts no failed PUT; that
	// shows as lag and the agent's last error.
	SyncErrors int64
	// WALBytes are the WAL bytes it has copied for the replica
	// (litestream_total_wal_bytes), before LTX compression.
	WALBytes int64
}

// counterNames map Litestream's per-file counters onto Counters' fields.
var counterNames = map[string]func(*Counters) *int64{
	"litestream_sync_error_count": func(c *Counters) *int64 { return &c.SyncErrors },
	"litestream_total_wal_bytes":  func(c *Counters) *int64 { return &c.WALBytes },
}

// counterLine is one sample of a per-file counter: NAME{db="PATH"} VALUE.
var counterLine = regexp.MustCompile(`^(\w+)\{db="((?:[^"\\]|\\.)*)"\} (\S+)`)

// parseCounters reads Litestream's Prometheus text into each agent's
// counters, by the file name of its db label.
func parseCounters(r io.Reader) (map[string]Counters, error) {
	out := map[string]Counters{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := counterLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		field, ok := counterNames[m[1]]
		if !ok {
			continue
		}
		path, err := strconv.Unquote(`"` + m[2] + `"`)
		if err != nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		agent := strings.TrimSuffix(filepath.Base(path), ".db")
		c := out[agent]
		*field(&c) = int64(v)
		out[agent] = c
	}
	return out, sc.Err()
}

// counters asks the running Litestream's metrics listener for each
// agent's counters.
func (s *Supervisor) counters(ctx context.Context) (map[string]Counters, error) {
	s.mu.Lock()
	addr, running := s.metrics, s.running
	s.mu.Unlock()
	if !running || addr == "" {
		return nil, errNotRunning
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return parseCounters(resp.Body)
}

// freeLoopbackAddr is a loopback port free now, for Litestream's metrics
// listener (its addr: takes no port 0 it would tell us about). Should
// another process take it first, Litestream logs the error and replicates
// on, and the counters are absent.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
