package replicate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Status is how the replication is doing, for /health and /metrics.
type Status struct {
	Target    string     // the URL without its query
	Running   bool       // a Litestream process runs
	DownSince *time.Time // since when none runs, nil while one does
	Restarts  int        // times it exited and was started again
	LastError string     // the newest error it logged, or its last exit
	LastErrAt *time.Time
	Agents    []AgentStatus
}

// AgentStatus is one agent's replica.
type AgentStatus struct {
	Agent string
	// State is Litestream's: replicating, open or stopped; "waiting" for
	// an agent it has not picked up yet.
	State     string
	LastSync  *time.Time // when a change was last shipped
	Lag       time.Duration
	LastError string // the newest error Litestream logged about its file
}

// Wrote tells the supervisor agent committed a write: the replica lags
// from then until Litestream next ships a change of it. Serve calls it on
// each acknowledged write (the API's OnWrite), so the lag is that of what
// clients were told is stored; background writes are not counted.
func (s *Supervisor) Wrote(agent string) {
	if s == nil || s.stop == nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	w, ok := s.pending[agent]
	if !ok {
		w.first = now
	}
	w.last = now
	s.pending[agent] = w
	s.mu.Unlock()
}

// writes are an agent's acknowledged writes not known to be shipped.
type writes struct{ first, last time.Time }

// listEntry is one database of Litestream's GET /list (server.go:
// DatabaseSummary).
type listEntry struct {
	Path       string     `json:"path"`
	Status     string     `json:"status"`
	LastSyncAt *time.Time `json:"last_sync_at"`
}

// Status asks Litestream over its control socket how each replica is
// doing. An agent's lag is how long its oldest acknowledged write not yet
// on the replica has waited: for an agent with such writes Litestream is
// asked to copy the WAL's new frames (POST /sync, without waiting for the
// upload) and answers its local and replicated positions; once those are
// equal, every write made before the question is shipped.
func (s *Supervisor) Status(ctx context.Context) Status {
	st := Status{Target: s.Target.Redacted()}
	s.mu.Lock()
	st.Running, st.Restarts = s.running, s.restarts
	if !s.running {
		d := s.downSince
		st.DownSince = &d
	}
	if s.lastErr.Msg != "" {
		st.LastError, st.LastErrAt = s.lastErr.Msg, &s.lastErr.At
	}
	pending := maps.Clone(s.pending)
	s.mu.Unlock()
	entries, err := s.list(ctx)
	if err != nil && st.Running {
		now := time.Now()
		st.LastError, st.LastErrAt = fmt.Sprintf("ask litestream: %v", err), &now
	}
	byAgent := map[string]AgentStatus{}
	for _, e := range entries {
		name := strings.TrimSuffix(filepath.Base(e.Path), ".db")
		byAgent[name] = AgentStatus{Agent: name, State: e.Status, LastSync: e.LastSyncAt}
	}
	for name, w := range pending {
		a, ok := byAgent[name]
		if !ok {
			a = AgentStatus{Agent: name, State: "waiting"}
		}
		asked := time.Now()
		if ok && s.shipped(ctx, name) {
			s.mu.Lock()
			if cur := s.pending[name]; !cur.last.After(asked) {
				delete(s.pending, name)
			} else { // written meanwhile
				cur.first = asked
				s.pending[name] = cur
			}
			s.mu.Unlock()
		} else {
			a.Lag = time.Since(w.first)
		}
		byAgent[name] = a
	}
	s.mu.Lock()
	for name, a := range byAgent {
		// An error a sync has since overcome is history.
		if e, ok := s.agentErr[name]; ok && (a.LastSync == nil || e.At.After(*a.LastSync)) {
			a.LastError = e.Msg
		}
		byAgent[name] = a
	}
	s.mu.Unlock()
	for _, a := range byAgent {
		st.Agents = append(st.Agents, a)
	}
	sort.Slice(st.Agents, func(i, j int) bool { return st.Agents[i].Agent < st.Agents[j].Agent })
	return st
}

// shipped says whether the replica holds every transaction of agent's
// file, the WAL's frames written so far included.
func (s *Supervisor) shipped(ctx context.Context, agent string) bool {
	body, _ := json.Marshal(map[string]string{"path": filepath.Join(s.AgentsDir, agent+".db")})
	var out struct {
		TXID       uint64 `json:"txid"`
		Replicated uint64 `json:"replicated_txid"`
	}
	if err := s.control(ctx, http.MethodPost, "/sync", body, &out); err != nil {
		return false
	}
	return out.TXID > 0 && out.Replicated >= out.TXID
}

// list is Litestream's GET /list.
func (s *Supervisor) list(ctx context.Context) ([]listEntry, error) {
	var out struct {
		Databases []listEntry `json:"databases"`
	}
	err := s.control(ctx, http.MethodGet, "/list", nil, &out)
	return out.Databases, err
}

// control asks Litestream's control socket and decodes its JSON answer.
func (s *Supervisor) control(ctx context.Context, method, path string, body []byte, out any) error {
	if s.PID() == 0 {
		return errNotRunning
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c := http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", s.Layout.Socket())
	}}}
	req, err := http.NewRequestWithContext(ctx, method, "http://litestream"+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// dbInLine finds the file a Litestream log line is about (db=NAME.db).
var dbInLine = regexp.MustCompile(`\bdb=(\S+)\.db\b`)
