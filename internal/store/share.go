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
// (Agent.Delete) finds every copy, opening its agent if it is closed, and
// forgets it there: the forget sticks in that agent as any forget does, and
// what its consolidation derived from the copy is undone the same way. An
// original retired because its file changed or went retires its copies
// (not remembered as forgotten: the file may say it again).

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
	from.settleShares(ctx)
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
		if err := s.settleCopy(ctx, to, prov, false); err != nil {
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
		cp, found, err := copyIn(ctx, c, from)
		if err != nil || found {
			out.ID, out.Existing = cp.id, found
			if found && cp.retired {
				return restoreCopy(ctx, c, cp.id)
			}
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

// stored is a copy as found in its agent.
type stored struct {
	id      int64
	retired bool
}

// restoreCopy makes a retired copy current again: its original was shared
// again once current (its file came back). Flagged if forgotten since.
func restoreCopy(ctx context.Context, c *conn, id int64) error {
	var content string
	if err := c.query(ctx, `SELECT content FROM daily_memories WHERE id = ?`, []any{id},
		func(s *sqlite3.Stmt) error { content = s.ColumnText(0); return nil }); err != nil {
		return err
	}
	flagged, err := isForgotten(ctx, c, content)
	if err != nil {
		return err
	}
	return c.execArgs(ctx, `UPDATE daily_memories SET retired_at = NULL, flagged = flagged OR ?,
		consolidated = consolidated OR ? WHERE id = ?`, flagged, flagged, id)
}

// copyIn finds the copy of from in the file on c.
func copyIn(ctx context.Context, c *conn, from Provenance) (cp stored, found bool, err error) {
	err = c.query(ctx, `SELECT id, retired_at IS NOT NULL FROM daily_memories WHERE shared_from_agent = ? AND shared_from_id = ?`,
		[]any{from.Agent, from.ID}, func(s *sqlite3.Stmt) error {
			cp, found = stored{s.ColumnInt64(0), s.ColumnBool(1)}, true
			return nil
		})
	return cp, found, err
}

// copyOf is copyIn on a read connection.
func (a *Agent) copyOf(ctx context.Context, from Provenance) (cp stored, found bool, err error) {
	err = a.read(ctx, func(c *conn) (err error) {
		cp, found, err = copyIn(ctx, c, from)
		return err
	})
	return cp, found, err
}

// queueShareForgets queues, inside forgetMemory's transaction, the forget
// of every copy of memory id; the copies are no longer listed as shared.
func queueShareForgets(ctx context.Context, c *conn, id int64, now time.Time) error {
	err := c.execArgs(ctx, `INSERT INTO share_forgets (agent, memory_id, retire, created_at)
		SELECT agent, memory_id, 0, ? FROM shared_to WHERE memory_id = ?
		ON CONFLICT (agent, memory_id) DO UPDATE SET retire = 0`, now.UnixMilli(), id)
	if err == nil {
		err = c.execArgs(ctx, `DELETE FROM shared_to WHERE memory_id = ?`, id)
	}
	if err != nil {
		return fmt.Errorf("queue the forget of memory %d's copies: %w", id, err)
	}
	return nil
}

// queueShareRetire queues, inside retireIDs' transaction, the retirement
// of every copy of memory id. They stay listed: forgetting the original
// later forgets them.
func queueShareRetire(ctx context.Context, c *conn, id int64, now time.Time) error {
	err := c.execArgs(ctx, `INSERT INTO share_forgets (agent, memory_id, retire, created_at)
		SELECT agent, memory_id, 1, ? FROM shared_to WHERE memory_id = ? ON CONFLICT DO NOTHING`, now.UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("queue the retirement of memory %d's copies: %w", id, err)
	}
	return nil
}

// settleShares carries out the forgets and retirements of copies that a's
// file owes, through the Store that opened a (none for an agent opened
// alone). A write that may queue some calls it once committed.
func (a *Agent) settleShares(ctx context.Context) {
	if a.settle != nil {
		a.settle(ctx, a)
	}
}

// SettleShares carries out the forgets and retirements of shared copies
// that agent name still owes: those a crash or an unavailable agent left
// after the original's own forget committed. The nightly cycle calls it,
// so an owed forget never waits for the agent's next forget or share.
// Failures stay owed and are logged; an agent that does not exist owes
// nothing.
func (s *Store) SettleShares(ctx context.Context, name string) error {
	err := s.With(ctx, name, false, func(a *Agent) error {
		s.settleShares(ctx, a)
		return nil
	})
	if errors.Is(err, ErrNoAgent) {
		return nil
	}
	return err
}

// owedShare is a forget (or retirement) of a copy that a file still owes.
type owedShare struct {
	agent  string
	id     int64
	retire bool
}

// settleShares forgets (or retires) the copies a's forgotten (or retired)
// memories left in other agents, opening each agent if it is closed; a
// copy's own copies follow, through that agent's settleShares. One that
// fails (its agent unavailable, the disk full) stays owed and is tried
// again at a's next forget, retirement or share, or its next night
// (SettleShares); the original's own forget
// already happened, so it is logged, not returned.
func (s *Store) settleShares(ctx context.Context, a *Agent) {
	owed, err := readRows(ctx, a, "read owed forgets", `SELECT agent, memory_id, retire FROM share_forgets`, nil,
		func(st *sqlite3.Stmt) (owedShare, error) {
			return owedShare{st.ColumnText(0), st.ColumnInt64(1), st.ColumnBool(2)}, nil
		})
	if err != nil {
		s.opts.Logger.Warn("forget shared copies", "agent", a.Name(), "err", err)
		return
	}
	for _, o := range owed {
		from := Provenance{Agent: a.Name(), ID: o.id}
		err := s.settleCopy(ctx, o.agent, from, o.retire)
		if err == nil {
			err = a.write(ctx, func(ctx context.Context, c *conn) error {
				return c.execArgs(ctx, `DELETE FROM share_forgets WHERE agent = ? AND memory_id = ? AND retire = ?`,
					o.agent, o.id, o.retire)
			})
		}
		if err != nil {
			s.opts.Logger.Warn("forget a shared copy: kept to retry", "agent", o.agent, "from", from.String(), "err", err)
		}
	}
}

// settleCopy forgets (or retires) the copy of from in agent to, if it has
// one. An agent that is gone has no copy left.
func (s *Store) settleCopy(ctx context.Context, to string, from Provenance, retire bool) error {
	err := s.With(ctx, to, false, func(t *Agent) error {
		cp, found, err := t.copyOf(ctx, from)
		if err != nil || !found {
			return err
		}
		if !retire {
			if err := t.Delete(ctx, cp.id); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			return nil
		}
		err = t.write(ctx, func(ctx context.Context, c *conn) error {
			_, err := retireIDs(ctx, c, []int64{cp.id}, "shared original retired", t.opts.Now())
			return err
		})
		t.settleShares(ctx)
		return err
	})
	if errors.Is(err, ErrNoAgent) {
		return nil
	}
	return err
}
