package replicate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Supervisor runs `litestream replicate` over every agent file of the data
// directory and starts it again whenever it exits, until Stop.
type Supervisor struct {
	Binary    string // FindBinary's
	Target    Target
	AgentsDir string // the store's Dir()
	Layout    Layout
	Environ   []string // Litestream's environment (Environ)
	Logger    *slog.Logger

	stop chan struct{}
	done chan struct{}

	mu        sync.Mutex
	cmd       *exec.Cmd
	running   bool
	downSince time.Time // when the last one exited
	restarts  int
	metrics   string             // the running one's metrics listener, host:port
	lastErr   logLine            // the newest error Litestream logged or its last exit
	agentErr  map[string]logLine // the newest error it logged about each agent's file
	pending   map[string]writes
}

// logLine is one error with its time.
type logLine struct {
	At  time.Time
	Msg string
}

// restartMax bounds the wait before Litestream is started again after it
// exited; the wait doubles from a second after each quick exit.
const restartMax = 30 * time.Second

// replicateGC is the running Litestream's heap goal: a quarter over its
// live heap (4–6 MiB with 5 agents) rather than Go's default double,
// 2–3 MiB less resident memory (docs/measurements.md).
const replicateGC = "GOGC=25"

// stopTimeout is how long Stop lets Litestream ship what it has (it syncs
// on SIGTERM) before killing it.
const stopTimeout = 15 * time.Second

// Start writes Litestream's configuration and starts it.
func (s *Supervisor) Start() error {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	s.pending, s.agentErr = map[string]writes{}, map[string]logLine{}
	s.downSince = time.Now()
	started := make(chan error, 1)
	go s.loop(started)
	if err := <-started; err != nil {
		return err
	}
	go s.track()
	return nil
}

// loop runs Litestream until Stop. The goroutine keeps its OS thread: the
// child's parent-death signal is tied to the thread that started it, and it
// must fire only when the daemon dies (a kill -9 of the daemon takes
// Litestream with it, so no second copy runs beside the next daemon's).
func (s *Supervisor) loop(started chan<- error) {
	runtime.LockOSThread()
	defer close(s.done)
	wait := time.Second
	first := true
	for {
		cmd, out, err := s.spawn()
		if first {
			started <- err
			first = false
			if err != nil {
				return
			}
		}
		if err == nil {
			t0 := time.Now()
			s.relay(out)
			err = cmd.Wait()
			s.exited(err)
			if time.Since(t0) > time.Minute {
				wait = time.Second
			}
		} else {
			s.noteError(fmt.Sprintf("start litestream: %v", err))
		}
		select {
		case <-s.stop:
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, restartMax)
	}
}

// spawn writes Litestream's configuration, with a free loopback port for
// its metrics, and starts it.
func (s *Supervisor) spawn() (*exec.Cmd, io.ReadCloser, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		s.Logger.Warn("litestream: no port for its metrics; running without them", "err", err)
	}
	if err := writeConfig(s.Target, s.AgentsDir, s.Layout, addr); err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(s.Binary, "replicate", "-config", s.Layout.Config(), "-no-expand-env")
	cmd.Env = append(slices.Clone(s.Environ), replicateGC) // the last GOGC wins
	cmd.SysProcAttr = childAttr()
	out, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdout = nil
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	s.cmd, s.running, s.metrics = cmd, true, addr
	s.mu.Unlock()
	s.Logger.Info("litestream started", "pid", cmd.Process.Pid, "replica", s.Target.Redacted())
	return cmd, out, nil
}

// relay copies Litestream's log lines into the daemon's log until the pipe
// closes, keeping the newest error.
func (s *Supervisor) relay(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "level=ERROR"):
			s.noteError(line)
			if m := dbInLine.FindStringSubmatch(line); m != nil {
				s.mu.Lock()
				s.agentErr[m[1]] = logLine{At: time.Now(), Msg: line}
				s.mu.Unlock()
			}
			s.Logger.Warn("litestream", "line", line)
		case strings.Contains(line, "level=WARN"):
			s.Logger.Warn("litestream", "line", line)
		default:
			s.Logger.Debug("litestream", "line", line)
		}
	}
}

func (s *Supervisor) exited(err error) {
	s.mu.Lock()
	s.running, s.downSince = false, time.Now()
	s.mu.Unlock()
	select {
	case <-s.stop:
		s.Logger.Info("litestream stopped", "err", err)
		return
	default:
	}
	s.mu.Lock()
	s.restarts++
	s.mu.Unlock()
	s.noteError(fmt.Sprintf("litestream exited: %v", err))
	s.Logger.Warn("litestream exited; starting it again", "err", err)
}

func (s *Supervisor) noteError(msg string) {
	s.mu.Lock()
	s.lastErr = logLine{At: time.Now(), Msg: msg}
	s.mu.Unlock()
}

// Stop asks Litestream to ship what it has and exit (SIGTERM), kills it
// after stopTimeout, and stops restarting it. Call it after the store has
// closed, so that every write is in the WAL it ships.
func (s *Supervisor) Stop() error {
	if s.stop == nil {
		return nil
	}
	select {
	case <-s.stop:
		return nil
	default:
	}
	close(s.stop)
	s.mu.Lock()
	cmd, running := s.cmd, s.running
	s.mu.Unlock()
	if running && cmd != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
			return nil
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
		}
	}
	<-s.done
	return nil
}

// PID is the running Litestream's process id, 0 when none runs.
func (s *Supervisor) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running || s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// errNotRunning is Status's error while no Litestream runs.
var errNotRunning = errors.New("litestream is not running")

// waitRunning waits until a Litestream process runs or ctx ends.
func (s *Supervisor) waitRunning(ctx context.Context) error {
	for s.PID() == 0 {
		select {
		case <-ctx.Done():
			return errNotRunning
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
