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
	"slices"
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
	LastError string    // the newest error Litestream logged about its file
	Counters  *Counters // Litestream's counters of its file; nil when they could not be read
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

// Status is how Litestream and each replica are doing. An agent's lag is
// how long its oldest acknowledged write not yet on the replica has waited
// (see track).
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
	if counters, err := s.counters(ctx); err == nil {
		for name, c := range counters {
			if a, ok := byAgent[name]; ok {
				a.Counters = &c
				byAgent[name] = a
			}
		}
	}
	now := time.Now()
	s.mu.Lock()
	for name, w := range s.pending {
		a, ok := byAgent[name]
		if !ok {
			a = AgentStatus{Agent: name, State: "waiting"}
		}
		a.Lag = now.Sub(w.first)
		byAgent[name] = a
	}
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

// trackEvery is how often track asks Litestream where each replica is.
const trackEvery = time.Second

// track keeps each agent's writes not yet on the replica, until Stop.
// Every trackEvery, for each agent with such writes, it asks Litestream to
// copy the WAL's new frames (POST /sync, not waiting for the upload): the
// answer's txid holds every write made before the question, and once the
// replicated txid reaches it those writes are shipped. The oldest write
// still waiting is then taken to be no older than that question, so the
// lag is at most trackEvery over the truth, never under it.
func (s *Supervisor) track() {
	t := time.NewTicker(trackEvery)
	defer t.Stop()
	marks := map[string][]mark{}
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		agents := slices.Collect(maps.Keys(s.pending))
		s.mu.Unlock()
		for _, name := range agents {
			asked := time.Now()
			txid, replicated, err := s.positions(name)
			if err != nil {
				continue
			}
			ms := append(marks[name], mark{asked, txid})
			var shipped time.Time
			for len(ms) > 0 && ms[0].txid <= replicated {
				shipped, ms = ms[0].at, ms[1:]
			}
			marks[name] = ms
			if !shipped.IsZero() {
				s.shippedBefore(name, shipped)
			}
			if len(ms) == 0 {
				delete(marks, name)
			}
		}
	}
}

// mark is a question to Litestream: every write before at is in txid.
type mark struct {
	at   time.Time
	txid uint64
}

// shippedBefore records that agent's writes before t are on the replica.
func (s *Supervisor) shippedBefore(agent string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.pending[agent]
	switch {
	case !ok:
	case w.last.Before(t):
		delete(s.pending, agent)
	case w.first.Before(t):
		w.first = t
		s.pending[agent] = w
	}
}

// positions are Litestream's local and replicated txids of agent's file,
// the WAL's frames written so far included.
func (s *Supervisor) positions(agent string) (txid, replicated uint64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"path": filepath.Join(s.AgentsDir, agent+".db")})
	var out struct {
		TXID       uint64 `json:"txid"`
		Replicated uint64 `json:"replicated_txid"`
	}
	err = s.control(ctx, http.MethodPost, "/sync", body, &out)
	return out.TXID, out.Replicated, err
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
