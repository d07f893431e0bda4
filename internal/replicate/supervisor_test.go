package replicate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

func agentStatus(s *Supervisor, agent string) AgentStatus {
	for _, a := range s.Status(context.Background()).Agents {
		if a.Agent == agent {
			return a
		}
	}
	return AgentStatus{}
}

func waitFor(t *testing.T, what string, within time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSupervisorRestartsLitestreamAndCatchesUp: a Litestream killed with
// SIGKILL is started again; the writes made while none ran show as lag,
// reach the replica once it runs again (the store left their frames in the
// WAL: LeaveCheckpoints), and the lag goes back to 0.
func TestSupervisorRestartsLitestreamAndCatchesUp(t *testing.T) {
	needBinaries(t)
	ctx := t.Context()
	sup, insert := fileSupervisor(t, "cleo")
	sup.Environ = append(sup.Environ, "GOGC=100") // the daemon's, which Litestream's own replaces
	insert(1)
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	defer sup.Stop()
	waitFor(t, "cleo's replica synced", 30*time.Second, func() bool {
		a := agentStatus(sup, "cleo")
		return a.State == "replicating" && a.LastSync != nil && a.Lag == 0
	})

	first := sup.PID()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	insert(50)
	if a := agentStatus(sup, "cleo"); a.Lag <= 0 {
		t.Errorf("right after writes with Litestream killed, cleo's lag is %v; want it above 0", a.Lag)
	}
	waitFor(t, "litestream started again and cleo caught up", 30*time.Second, func() bool {
		pid := sup.PID()
		a := agentStatus(sup, "cleo")
		return pid != 0 && pid != first && a.State == "replicating" && a.Lag == 0
	})
	if got := sup.Status(ctx).Restarts; got != 1 {
		t.Errorf("restarts = %d, want 1", got)
	}
	if got := gcSettings(t, sup.PID()); len(got) != 1 || got[0] != replicateGC {
		t.Errorf("the restarted litestream runs with %v, want only %s", got, replicateGC)
	}

	restored := t.TempDir()
	out := filepath.Join(restored, "agents", "cleo.db")
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Fetch(ctx, litestream, sup.Target, testEnv(), "cleo", out, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got := memoriesIn(t, restored, "cleo"); got != 51 {
		t.Errorf("the replica holds %d memories, want all 51", got)
	}
}

// fileSupervisor is a supervisor, not started, of Litestream over a store
// in a temporary directory, replicating to a file:// one, and insert,
// which commits count memories to agent, one transaction each, telling
// the supervisor of each.
func fileSupervisor(t *testing.T, agent string) (sup *Supervisor, insert func(count int)) {
	t.Helper()
	ctx := t.Context()
	data, replica := t.TempDir(), t.TempDir()
	st, err := store.Open(ctx, store.Options{Dir: data, LeaveCheckpoints: true, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sup = &Supervisor{Binary: litestream, Target: Target{URL: "file://" + replica, SyncInterval: time.Second},
		AgentsDir: st.Dir(), Layout: NewLayout(data), Environ: testEnv(),
		Logger: slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	n := 0
	insert = func(count int) {
		t.Helper()
		for range count {
			n++
			err := st.With(ctx, agent, true, func(a *store.Agent) error {
				c := fmt.Sprintf("%s repotted fern number %d", agent, n)
				h := sha256.Sum256([]byte(c))
				_, err := a.Insert(ctx, []store.Memory{{Content: c, Role: "user", Timestamp: time.Now(),
					Importance: 0.5, ContentHash: hex.EncodeToString(h[:])}})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			sup.Wrote(agent)
		}
	}
	return sup, insert
}

// gcSettings are the GOGC entries of a running process's environment.
func gcSettings(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for kv := range strings.SplitSeq(string(b), "\x00") {
		if strings.HasPrefix(kv, "GOGC=") {
			out = append(out, kv)
		}
	}
	return out
}

type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) { l.t.Log(strings.TrimSpace(string(p))); return len(p), nil }

// memoriesIn counts agent's memories in data.
func memoriesIn(t *testing.T, data, agent string) int64 {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: data, LeaveCheckpoints: true, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var stats store.Stats
	err = st.With(t.Context(), agent, false, func(a *store.Agent) error {
		stats, err = a.Stats(t.Context())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return stats.Memories
}

// TestSupervisorReadsLitestreamCounters: each agent's status carries
// Litestream's own counters of its file, read from its metrics listener:
// the WAL bytes grow with writes, and a copy into the staging that fails
// (its LTX directory replaced by a file) is counted as a sync error.
func TestSupervisorReadsLitestreamCounters(t *testing.T) {
	needBinaries(t)
	sup, insert := fileSupervisor(t, "cleo")
	insert(1)
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	defer sup.Stop()
	var first Counters
	waitFor(t, "cleo synced, with counters", 30*time.Second, func() bool {
		a := agentStatus(sup, "cleo")
		if a.Counters == nil || a.Lag != 0 || a.LastSync == nil {
			return false
		}
		first = *a.Counters
		return first.WALBytes > 0
	})
	if first.SyncErrors != 0 {
		t.Errorf("sync errors after a clean start: %d, want 0", first.SyncErrors)
	}
	const commits = 20
	insert(commits)
	waitFor(t, "cleo's WAL bytes counted", 30*time.Second, func() bool {
		c := agentStatus(sup, "cleo").Counters
		return c != nil && c.WALBytes >= first.WALBytes+commits*4096 // a page or more per commit
	})

	ltx, err := filepath.Glob(filepath.Join(sup.Layout.Meta(), "*", "ltx"))
	if err != nil || len(ltx) != 1 {
		t.Fatalf("cleo's LTX directory under %s: %v, %v", sup.Layout.Meta(), ltx, err)
	}
	if err := os.Rename(ltx[0], ltx[0]+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ltx[0], []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	insert(1)
	waitFor(t, "cleo's failed sync counted", 30*time.Second, func() bool {
		c := agentStatus(sup, "cleo").Counters
		return c != nil && c.SyncErrors > 0
	})
}
