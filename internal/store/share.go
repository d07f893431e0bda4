package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Sharing one memory with another agent. The copy keeps the original's
// content, time, role, session, importance and what capture derived, and
// names the original (Provenance). The original's file lists the agents it
// went to (shared_to), written before the copy, so forgetting the original
// (Store.Forget) finds every copy, opening its agent if it is closed, and
// forgets it there: the forget sticks in that agent as any forget does, and
// what its consolidation derived from the copy is undone the same way.

// Provenance names the memory a shared copy was made from.
type Provenance struct {
	Agent string
	ID    int64
}

// String is the provenance as a citation: "assistant/memory:12".
func (p Provenance) String() string { return fmt.Sprintf("%s/memory:%d", p.Agent, p.ID) }

// agentOrNil and idOrNil bind a memory's provenance columns: NULL for the
// agent's own memories.
func (p *Provenance) agentOrNil() any {
	if p == nil {
		return nil
	}
	return p.Agent
}

func (p *Provenance) idOrNil() any {
	if p == nil {
		return nil
	}
	return p.ID
}

// scanProvenance reads the provenance columns starting at col.
func scanProvenance(s *sqlite3.Stmt, col int) *Provenance {
	if s.ColumnType(col) == sqlite3.NULL {
		return nil
	}
	return &Provenance{Agent: s.ColumnText(col), ID: s.ColumnInt64(col + 1)}
}

// ErrShareToSelf is a share whose target is the memory's own agent.
var ErrShareToSelf = errors.New("a memory cannot be shared with its own agent")

// Shared is what a share made: the copy's id in the target agent, whether
// that copy was there already, and the original it names.
type Shared struct {
	ID       int64
	Existing bool
	From     Provenance
}

// maxShareDepth bounds how far a forget follows copies of copies at once;
// what lies beyond stays pending (share_forgets) for the next forget.
const maxShareDepth = 16

// Share copies memory id of agent from into agent to, which is created when
// create allows. A memory has at most one copy per agent: sharing it again
// answers the copy made before. The copy of a flagged memory is flagged,
// and so is a copy whose content the target forgot before.
func (s *Store) Share(ctx context.Context, from *Agent, id int64, to string, create bool) (Shared, error) {
	if err := ValidateAgentName(to); err != nil {
		return Shared{}, err
	}
	if to == from.Name() {
		return Shared{}, ErrShareToSelf
	}
	s.applyShareForgets(ctx, from, 0)
	m, err := from.Get(ctx, id)
	if err != nil {
		return Shared{}, err
	}
	if err := from.recordShare(ctx, id, to); err != nil {
		return Shared{}, err
	}
	prov := Provenance{Agent: from.Name(), ID: id}
	var out Shared
	err = s.With(ctx, to, create, func(t *Agent) error {
		out, err = t.insertCopy(ctx, m, prov)
		return err
	})
	if err != nil {
		return Shared{}, fmt.Errorf("share memory %d with %q: %w", id, to, err)
	}
	// A forget of the original that ran between recordShare and the copy
	// found no copy to forget: this one is forgotten now.
	if _, err := from.Get(ctx, id); errors.Is(err, ErrNotFound) {
		if err := s.forgetCopy(ctx, to, prov, 0); err != nil {
			return Shared{}, err
		}
		return Shared{}, fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	return out, nil
}

// recordShare lists agent to among those memory id was shared to.
func (a *Agent) recordShare(ctx context.Context, id int64, to string) error {
	return a.write(ctx, func(ctx context.Context, c *conn) error {
		found := false
		err := c.query(ctx, `INSERT INTO shared_to (memory_id, agent) SELECT id, ? FROM daily_memories WHERE id = ?
			ON CONFLICT DO NOTHING RETURNING 1`, []any{to, id}, func(*sqlite3.Stmt) error { found = true; return nil })
		if err != nil {
			return fmt.Errorf("record the share of memory %d: %w", id, err)
		}
		if !found {
			return a.mustExist(ctx, c, id)
		}
		return nil
	})
}

// mustExist is ErrNotFound unless memory id exists.
func (a *Agent) mustExist(ctx context.Context, c *conn, id int64) error {
	found := false
	err := c.query(ctx, `SELECT 1 FROM daily_memories WHERE id = ?`, []any{id},
		func(*sqlite3.Stmt) error { found = true; return nil })
	if err == nil && !found {
		err = fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	return err
}

// insertCopy stores m as the copy of from, unless there is one already.
func (a *Agent) insertCopy(ctx context.Context, m Memory, from Provenance) (Shared, error) {
	m.SharedFrom = &from
	rows, err := a.rowsOf([]Memory{m})
	if err != nil {
		return Shared{}, err
	}
	out := Shared{From: from}
	var ins Inserted
	err = a.write(ctx, func(ctx context.Context, c *conn) error {
		id, found, err := copyID(ctx, c, from)
		if err != nil || found {
			out.ID, out.Existing = id, found
			return err
		}
		check, err := anyForgotten(ctx, c)
		if err != nil {
			return err
		}
		ins, err = a.insertOne(ctx, c, &m, rows[0], a.opts.Now(), check)
		out.ID = ins.ID
		return err
	})
	if err != nil || out.Existing {
		return out, err
	}
	a.opts.captured.mark()
	a.profileAtCapture(ctx, []Memory{m}, []Inserted{ins})
	return out, nil
}

// copyID finds the copy of from in the file on c.
func copyID(ctx context.Context, c *conn, from Provenance) (id int64, found bool, err error) {
	err = c.query(ctx, `SELECT id FROM daily_memories WHERE shared_from_agent = ? AND shared_from_id = ?`,
		[]any{from.Agent, from.ID}, func(s *sqlite3.Stmt) error { id, found = s.ColumnInt64(0), true; return nil })
	return id, found, err
}

// queueShareForgets moves the agents memory id was shared to into
// share_forgets, inside forgetMemory's transaction: the forget of each
// copy is then owed until done.
func queueShareForgets(ctx context.Context, c *conn, id int64, now time.Time) error {
	err := c.execArgs(ctx, `INSERT INTO share_forgets (agent, memory_id, created_at)
		SELECT agent, memory_id, ? FROM shared_to WHERE memory_id = ? ON CONFLICT DO NOTHING`, now.UnixMilli(), id)
	if err == nil {
		err = c.execArgs(ctx, `DELETE FROM shared_to WHERE memory_id = ?`, id)
	}
	if err != nil {
		return fmt.Errorf("queue the forget of memory %d's copies: %w", id, err)
	}
	return nil
}

// Forget forgets memory id of agent a (Agent.Delete), then its shared
// copies in every agent that holds one (and their copies in turn).
func (s *Store) Forget(ctx context.Context, a *Agent, id int64) error {
	if err := a.Delete(ctx, id); err != nil {
		return err
	}
	s.applyShareForgets(ctx, a, 0)
	return nil
}

// shareForget is a forget of a copy that a's file still owes.
type shareForget struct {
	agent string
	id    int64
}

// applyShareForgets forgets the copies a's forgotten memories left in
// other agents. One that fails (its agent unavailable, the disk full) stays
// owed and is tried again at a's next forget or share; the original's own
// forget already happened, so it is logged, not returned.
func (s *Store) applyShareForgets(ctx context.Context, a *Agent, depth int) {
	owed, err := readRows(ctx, a, "read owed forgets", `SELECT agent, memory_id FROM share_forgets`, nil,
		func(st *sqlite3.Stmt) (shareForget, error) {
			return shareForget{st.ColumnText(0), st.ColumnInt64(1)}, nil
		})
	if err != nil {
		s.opts.Logger.Warn("forget shared copies", "agent", a.Name(), "err", err)
		return
	}
	for _, f := range owed {
		err := s.forgetCopy(ctx, f.agent, Provenance{Agent: a.Name(), ID: f.id}, depth)
		if err == nil {
			err = a.write(ctx, func(ctx context.Context, c *conn) error {
				return c.execArgs(ctx, `DELETE FROM share_forgets WHERE agent = ? AND memory_id = ?`, f.agent, f.id)
			})
		}
		if err != nil {
			s.opts.Logger.Warn("forget a shared copy: kept to retry", "agent", f.agent, "from", Provenance{a.Name(), f.id}.String(), "err", err)
		}
	}
}

// forgetCopy forgets the copy of from in agent to, if it has one, and the
// copies made of it. An agent that is gone has no copy left to forget.
func (s *Store) forgetCopy(ctx context.Context, to string, from Provenance, depth int) error {
	err := s.With(ctx, to, false, func(t *Agent) error {
		var id int64
		var found bool
		err := t.read(ctx, func(c *conn) (err error) {
			id, found, err = copyID(ctx, c, from)
			return err
		})
		if err != nil || !found {
			return err
		}
		if err := t.Delete(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if depth < maxShareDepth {
			s.applyShareForgets(ctx, t, depth+1)
		}
		return nil
	})
	if errors.Is(err, ErrNoAgent) {
		return nil
	}
	return err
}
