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
	data, replica := t.TempDir(), t.TempDir()
	st, err := store.Open(ctx, store.Options{Dir: data, LeaveCheckpoints: true, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sup := &Supervisor{Binary: litestream, Target: Target{URL: "file://" + replica, SyncInterval: time.Second},
		AgentsDir: st.Dir(), Layout: NewLayout(data), Environ: testEnv(),
		Logger: slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	n := 0
	insert := func(count int) {
		t.Helper()
		err := st.With(ctx, "cleo", true, func(a *store.Agent) error {
			for range count {
				n++
				c := fmt.Sprintf("Cleo repotted fern number %d", n)
				h := sha256.Sum256([]byte(c))
				if _, err := a.Insert(ctx, []store.Memory{{Content: c, Role: "user", Timestamp: time.Now(),
					Importance: 0.5, ContentHash: hex.EncodeToString(h[:])}}); err != nil {
					return err
				}
				sup.Wrote("cleo")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
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
