package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// ErrDeleting is returned for an agent while Store.Delete is taking it
// away: the request is refused, never half-served.
var ErrDeleting = errors.New("agent is being deleted")

// DeletedError is a write that would have created an agent Store.Delete
// removed: nothing in the background (a watched folder, a nightly job, a
// stray --agent) brings a deleted agent back; Store.Create does.
type DeletedError struct{ Agent string }

func (e *DeletedError) Error() string {
	return fmt.Sprintf("agent %q was deleted: create it again first (dormouse agents create %s, or POST /v1/agents)",
		e.Agent, e.Agent)
}

func (e *DeletedError) Is(target error) bool { return target == ErrNoAgent }

// NotCreatedError is a write to an agent that does not exist while agents
// are created only when asked (Options.ExplicitCreate).
type NotCreatedError struct{ Agent string }

func (e *NotCreatedError) Error() string {
	return fmt.Sprintf("agent %q does not exist, and agents.create is explicit: create it first "+
		"(dormouse agents create %s, or POST /v1/agents)", e.Agent, e.Agent)
}

func (e *NotCreatedError) Is(target error) bool { return target == ErrNoAgent }

// tombstonePath marks an agent Delete removed, until Create.
func (s *Store) tombstonePath(name string) string { return s.agentPath(name) + ".deleted" }

// mayCreate decides whether Acquire may create the missing agent name.
func (s *Store) mayCreate(name string) error {
	if s.opts.ExplicitCreate {
		return &NotCreatedError{Agent: name}
	}
	if _, err := os.Stat(s.tombstonePath(name)); err == nil {
		return &DeletedError{Agent: name}
	}
	return nil
}

// Create makes the agent name if it does not exist, whatever
// Options.ExplicitCreate says and even if it was deleted. It reports
// whether the agent is new.
func (s *Store) Create(ctx context.Context, name string) (created bool, err error) {
	if err := ValidateAgentName(name); err != nil {
		return false, err
	}
	a, err := s.Acquire(ctx, name, false)
	if err == nil {
		s.Release(a)
		return false, nil
	}
	if !errors.Is(err, ErrNoAgent) {
		return false, err
	}
	if err := os.Remove(s.tombstonePath(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("create agent %q: %w", name, err)
	}
	a, err = s.acquire(ctx, name, createAlways)
	if err != nil {
		return false, err
	}
	s.Release(a)
	return true, nil
}

// Delete takes the agent name away for good: new requests for it are
// refused (ErrDeleting) at once, the ones in flight are waited for (as long
// as ctx allows), then before runs with the agent to itself (a backup: an
// error from it keeps the agent), the agent is closed and its files
// removed. It returns the paths removed. Until Create, no write recreates
// the agent (DeletedError).
func (s *Store) Delete(ctx context.Context, name string, before func(*Agent) error) ([]string, error) {
	a, err := s.Acquire(ctx, name, false)
	if err != nil {
		return nil, err
	}
	if err := s.markDeleting(name); err != nil {
		s.Release(a)
		return nil, err
	}
	defer s.unmarkDeleting(name)
	if err := s.waitSole(ctx, a); err != nil {
		s.Release(a)
		return nil, fmt.Errorf("delete agent %q: wait for its requests: %w", name, err)
	}
	if err := before(a); err != nil {
		s.Release(a)
		return nil, err
	}
	if err := s.closeHeld(a); err != nil {
		return nil, fmt.Errorf("delete agent %q: %w", name, err)
	}
	return s.removeFiles(name)
}

func (s *Store) markDeleting(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deleting[name] {
		return fmt.Errorf("%w: %q", ErrDeleting, name)
	}
	s.deleting[name] = true
	return nil
}

func (s *Store) unmarkDeleting(name string) {
	s.mu.Lock()
	delete(s.deleting, name)
	s.mu.Unlock()
}

// waitSole waits until the caller's reference is a's only one.
func (s *Store) waitSole(ctx context.Context, a *Agent) error {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for a.refs > 1 {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.cond.Wait()
	}
	return nil
}

// closeHeld closes a, whose one reference the caller holds and gives up.
func (s *Store) closeHeld(a *Agent) error {
	s.mu.Lock()
	a.refs--
	a.closing = true
	s.mu.Unlock()
	err := a.close()
	s.mu.Lock()
	if s.agents[a.name] == a {
		delete(s.agents, a.name)
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	return err
}

// AgentFiles are the files of agent name that exist now: its database, and its WAL, shared memory
// or rollback journal when it has them. What removing the agent by hand takes.
func (s *Store) AgentFiles(name string) []string {
	var out []string
	for _, p := range s.agentFiles(name) {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// agentFiles are the files an agent may have, the database last.
func (s *Store) agentFiles(name string) []string {
	db := s.agentPath(name)
	return []string{db + "-wal", db + "-shm", db + "-journal", db}
}

// removeFiles leaves a tombstone and removes a closed agent's files: the
// WAL and shared memory first (empty after the close's checkpoint), the
// database last, so a crash part-way leaves a whole agent or none.
func (s *Store) removeFiles(name string) ([]string, error) {
	at := fmt.Sprintf("deleted %s\n", time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(s.tombstonePath(name), []byte(at), 0o600); err != nil {
		return nil, fmt.Errorf("delete agent %q: %w", name, err)
	}
	var removed []string
	for _, p := range s.agentFiles(name) {
		err := os.Remove(p)
		switch {
		case err == nil:
			removed = append(removed, p)
		case !errors.Is(err, fs.ErrNotExist):
			return removed, fmt.Errorf("delete agent %q: %w", name, err)
		}
	}
	return removed, nil
}
