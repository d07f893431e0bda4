package replicate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// Fetch writes agent's replica to out: its latest state, or its state at
// at when at is not zero. Litestream checks the file's integrity
// (-integrity-check full) before it answers. out must not exist.
func Fetch(ctx context.Context, bin string, t Target, environ []string, agent, out string, at time.Time) error {
	u, err := t.AgentURL(agent)
	if err != nil {
		return err
	}
	args := []string{"restore", "-o", out, "-integrity-check", "full"}
	if !at.IsZero() {
		args = append(args, "-timestamp", at.UTC().Format(time.RFC3339))
	}
	cmd := exec.CommandContext(ctx, bin, append(args, u)...)
	cmd.Env = environ
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("restore agent %q from %s: litestream: %v: %s", agent, t.Redacted(), err, lastLines(buf.String(), 3))
	}
	return nil
}

// lastLines is the last n non-empty lines of s, joined.
func lastLines(s string, n int) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' })
	return strings.Join(lines[max(0, len(lines)-n):], "; ")
}

// Agents lists the agents that have a replica under the target.
func Agents(ctx context.Context, t Target, environ []string) ([]string, error) {
	u, err := t.baseURL()
	if err != nil {
		return nil, err
	}
	var names []string
	switch u.Scheme {
	case "file":
		names, err = dirNames(u.Path)
	case "s3":
		names, err = s3Names(ctx, t, environ)
	}
	if err != nil {
		return nil, fmt.Errorf("list the replicas in %s: %w", t.Redacted(), err)
	}
	var agents []string
	for _, n := range names {
		if a, ok := strings.CutSuffix(n, ".db"); ok && store.ValidateAgentName(a) == nil {
			agents = append(agents, a)
		}
	}
	return agents, nil
}

func dirNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// RestoreOptions say which agent's replica becomes its file.
type RestoreOptions struct {
	Binary  string
	Target  Target
	Environ []string
	DataDir string
	Agent   string
	At      time.Time // zero: the latest state
	Force   bool      // replace an agent file that exists
}

// ErrExists is Restore's refusal to replace an agent file without Force.
var ErrExists = errors.New("the agent already has a file here")

// Stage fetches the agent's replica into a staging file under the data
// directory and returns its path; the caller puts it in place (backup.Restore
// verifies it again and keeps the file it replaces aside). It refuses an
// existing agent file unless Force.
func Stage(ctx context.Context, o RestoreOptions) (string, error) {
	if err := store.ValidateAgentName(o.Agent); err != nil {
		return "", err
	}
	file := filepath.Join(o.DataDir, "agents", o.Agent+".db")
	if _, err := os.Stat(file); err == nil && !o.Force {
		return "", fmt.Errorf("restore agent %q: %w (%s): pass --force to replace it (it is kept aside)", o.Agent, ErrExists, file)
	}
	dir := filepath.Join(NewLayout(o.DataDir).Dir, "restore")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	out := filepath.Join(dir, o.Agent+".db")
	for _, s := range []string{"", "-wal", "-shm"} { // a killed restore's leftovers
		_ = os.Remove(out + s)
	}
	if err := Fetch(ctx, o.Binary, o.Target, o.Environ, o.Agent, out, o.At); err != nil {
		return "", err
	}
	return out, nil
}
