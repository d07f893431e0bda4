package backup

import (
	"context"
	"fmt"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// FailedError is a delete that did not happen because the backup before
// it failed: the agent is as it was.
type FailedError struct{ Err error }

func (e *FailedError) Error() string {
	return fmt.Sprintf("the agent was not deleted: its backup failed: %v", e.Err)
}

func (e *FailedError) Unwrap() error { return e.Err }

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
	if err != nil {
		return Result{}, nil, err
	}
	o.Logger.Info("deleted an agent", "agent", agent, "backup", saved.Path)
	return saved, removed, nil
}
