package backup

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// FailedError is a delete that did not happen because the backup before
// it failed: the agent is as it was.
type FailedError struct{ Err error }

func (e *FailedError) Error() string {
	return fmt.Sprintf("the agent was not deleted: its backup failed: %v", e.Err)
}

func (e *FailedError) Unwrap() error { return e.Err }

// CorruptError is a delete that did not happen because the agent's file is corrupt: no verified
// backup can be taken of it, and an agent is never deleted without one. It says what giving the
// agent up takes by hand. It is store.ErrUnavailable.
type CorruptError struct {
	Agent   string
	Files   []string // the agent's files now
	Backups []Backup // its backups, oldest first
	Err     error    // the store's *store.UnavailableError
}

func (e *CorruptError) Error() string {
	var ue *store.UnavailableError
	why := e.Err
	if errors.As(e.Err, &ue) {
		why = ue.Err
	}
	restore := "it has no backup to restore"
	if n := len(e.Backups); n > 0 {
		restore = fmt.Sprintf("restore its newest backup instead (stop the daemon, then `dormouse restore --agent %s --from %s`)",
			e.Agent, e.Backups[n-1].Path)
	}
	return fmt.Sprintf("agent %q was not deleted: its file is corrupt (%v), so no verified backup of it can be taken; %s. "+
		"To give it up, stop the daemon and move these out of the data folder: %s",
		e.Agent, why, restore, strings.Join(e.Files, ", "))
}

func (e *CorruptError) Unwrap() error { return e.Err }

// DeleteAgent backs up agent, verified, and only then deletes it from st
// (store.Store.Delete: its requests waited for, new ones refused, its
// files removed, not recreated by a write). The backup is taken with the
// agent held, so no write lands between the copy and the delete. What
// DELETE /v1/agents/{agent} and the page's delete do. It returns the
// backup and the files removed.
func DeleteAgent(ctx context.Context, st *store.Store, agent string, o Options) (Result, []string, error) {
	if err := o.fill(); err != nil {
		return Result{}, nil, err
	}
	var saved Result
	removed, err := st.Delete(ctx, agent, func(a *store.Agent) error {
		var err error
		if saved, err = Of(ctx, a, o); err != nil {
			return &FailedError{err}
		}
		return nil
	})
	if errors.Is(err, store.ErrUnavailable) {
		ce := &CorruptError{Agent: agent, Files: st.AgentFiles(agent), Err: err}
		ce.Backups, _ = List(o.Dir, agent)
		return Result{}, nil, ce
	}
	if err != nil {
		return Result{}, nil, err
	}
	o.Logger.Info("deleted an agent", "agent", agent, "backup", saved.Path)
	return saved, removed, nil
}
