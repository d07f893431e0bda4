package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/dormouse-dev/dormouse/internal/doctor"
	"github.com/dormouse-dev/dormouse/internal/durable"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// runMarkName is the file in the data directory that says a daemon serves
// it. The daemon writes it at start and removes it when it has stopped
// cleanly; found at start, the last run ended in a kill, a crash or a power
// cut, and the agents are checked.
const runMarkName = "serving.json"

// runMark is what the marker holds of the run that wrote it.
type runMark struct {
	PID     int       `json:"pid"`
	Boot    string    `json:"boot"` // the kernel's boot id (when.BootID)
	Started time.Time `json:"started"`
}

// cause says how the run that left m behind ended, as far as can be known.
func (m runMark) cause() string {
	if m.Boot != "" && when.BootID() != "" && m.Boot != when.BootID() {
		return "power cut or reboot without a stop"
	}
	return "the process was killed or crashed"
}

// lookBack, before the agents open, marks this run and says in the journal
// what the last one left: an unclean stop (the agents are then checked
// after READY), or a clock now behind its last write.
func (d *serving) lookBack() {
	dir := d.s.Config.DataDir
	if d.unclean = markRunning(dir, d.log); d.unclean != nil {
		d.log.Warn("the last run did not stop cleanly: replaying the agents' WAL and checking them",
			"cause", d.unclean.cause(), "last_pid", d.unclean.PID, "last_started", d.unclean.Started)
	}
	if behind, file := doctor.ClockBehind(dir, time.Now()); behind > 0 {
		d.log.Warn("the clock is behind the last write to the agents: what is stored now is dated before what is kept; enable time sync",
			"behind", behind.Round(time.Second), "file", file)
	}
}

// markRunning writes this run's marker in dir and returns the marker of an
// earlier run that did not stop cleanly, nil when there was none. A marker
// it cannot read or write (a full disk) is logged and costs only the next
// start's report: serving goes on.
func markRunning(dir string, log *slog.Logger) *runMark {
	path := filepath.Join(dir, runMarkName)
	prev := readRunMark(path, log)
	b, _ := json.Marshal(runMark{PID: os.Getpid(), Boot: when.BootID(), Started: time.Now().UTC()})
	if err := durable.WriteFile(path, b); err != nil {
		log.Warn("cannot mark the data directory served: the next start cannot tell whether this run stopped cleanly", "err", err)
	}
	return prev
}

// readRunMark reads a marker; a missing one is nil, and one a cut left
// half-written is a run of unknown pid and boot.
func readRunMark(path string, log *slog.Logger) *runMark {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		log.Warn("cannot read the last run's marker", "path", path, "err", err)
		return nil
	}
	var m runMark
	_ = json.Unmarshal(b, &m)
	return &m
}

// markStopped removes the marker once the store has closed: the next
// start knows this run stopped cleanly.
func markStopped(dir string) error {
	err := os.Remove(filepath.Join(dir, runMarkName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("mark the data directory stopped: %w", err)
	}
	return durable.SyncDir(dir)
}

// checkAfterUncleanStop runs PRAGMA integrity_check on every agent after a
// run that did not stop cleanly (prev), and says in the journal what it
// found: the recovery the WAL replay began (logged by the store as each
// agent opened) is finished when every agent is checked.
func checkAfterUncleanStop(ctx context.Context, st *store.Store, agents []string, prev runMark, log *slog.Logger) {
	start := time.Now()
	bad := 0
	for _, name := range agents {
		err := st.With(ctx, name, false, func(a *store.Agent) error { return a.IntegrityCheck(ctx) })
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, store.ErrUnavailable): // logged by the store, with how to restore it
			bad++
		case err != nil:
			bad++
			log.Error("agent fails its check after an unclean stop: restore it from a backup or a replica (docs/operations.md)",
				"agent", name, "err", err)
		}
	}
	log.Info("recovered from an unclean stop: agents checked", "cause", prev.cause(),
		"last_pid", prev.PID, "last_started", prev.Started, "agents", len(agents), "failing", bad,
		"took", time.Since(start).Round(time.Millisecond))
}
