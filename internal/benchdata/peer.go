package benchdata

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Peer is the naive Python harness (peer/peer.py) running on loopback.
type Peer struct {
	Addr string // host:port
	cmd  *exec.Cmd
}

// ErrNoPython means python3 is not on PATH, so there is no peer to race.
var ErrNoPython = errors.New("python3 not found: the Python peer's figures are skipped")

// StartPeer starts the peer on a new database file at db.
func StartPeer(db string) (*Peer, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, ErrNoPython
	}
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command(py, filepath.Join(filepath.Dir(file), "peer", "peer.py"), db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the python peer: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the python peer did not say where it listens (%q): %v", line, err)
	}
	return &Peer{Addr: addr, cmd: cmd}, nil
}

// Close stops the peer.
func (p *Peer) Close() error {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	return nil
}
