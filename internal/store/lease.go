package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// Leases live in the agent's own file, so every process that opens it (the
// daemon, the timer's job, an admin's CLI) sees the same ones. A lease
// expires: a holder that was killed blocks nobody for longer than its TTL,
// and less when its caller can tell it is dead (TakeOverLease).

// AcquireLease takes the named lease for holder until now+ttl, when it is
// free, expired or already holder's. It reports whether holder has it.
func (a *Agent) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	var got bool
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		err := c.execArgs(ctx, `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
			ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE leases.expires_at <= ? OR leases.holder = excluded.holder`,
			name, holder, now.Add(ttl).UnixMilli(), now.UnixMilli())
		got = err == nil && c.db.Changes() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("acquire lease %q: %w", name, err)
	}
	return got, nil
}

// TakeOverLease gives the named lease to holder when from still has it,
// expired or not: for a caller that knows from is dead. It reports whether
// holder has it now.
func (a *Agent) TakeOverLease(ctx context.Context, name, from, holder string, now time.Time, ttl time.Duration) (bool, error) {
	var got bool
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		err := c.execArgs(ctx, `UPDATE leases SET holder = ?, expires_at = ? WHERE name = ? AND holder = ?`,
			holder, now.Add(ttl).UnixMilli(), name, from)
		got = err == nil && c.db.Changes() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("take over lease %q from %s: %w", name, from, err)
	}
	return got, nil
}

// RenewLease extends holder's lease to now+ttl. It is ErrLeaseLost when
// holder no longer has it (it expired and someone else took it).
func (a *Agent) RenewLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) error {
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		if err := c.execArgs(ctx, `UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?`,
			now.Add(ttl).UnixMilli(), name, holder); err != nil {
			return err
		}
		if c.db.Changes() == 0 {
			return fmt.Errorf("%w: %q is not held by %s", ErrLeaseLost, name, holder)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("renew lease %q: %w", name, err)
	}
	return nil
}

// ReleaseLease gives up holder's lease; releasing one not held is not an error.
func (a *Agent) ReleaseLease(ctx context.Context, name, holder string) error {
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		return c.execArgs(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder)
	})
	if err != nil {
		return fmt.Errorf("release lease %q: %w", name, err)
	}
	return nil
}

// Lease is a lease as stored.
type Lease struct {
	Name      string
	Holder    string
	ExpiresAt time.Time
}

// Leases lists the leases stored, expired ones included.
func (a *Agent) Leases(ctx context.Context) ([]Lease, error) {
	return readRows(ctx, a, "list leases", `SELECT name, holder, expires_at FROM leases ORDER BY name`, nil,
		func(s *sqlite3.Stmt) (Lease, error) {
			return Lease{Name: s.ColumnText(0), Holder: s.ColumnText(1), ExpiresAt: time.UnixMilli(s.ColumnInt64(2)).UTC()}, nil
		})
}

func holds(ctx context.Context, c *conn, name, holder string, now time.Time) (bool, error) {
	held := false
	err := c.query(ctx, `SELECT 1 FROM leases WHERE name = ? AND holder = ? AND expires_at > ?`,
		[]any{name, holder, now.UnixMilli()}, func(*sqlite3.Stmt) error { held = true; return nil })
	if err != nil {
		return false, fmt.Errorf("check lease %q: %w", name, err)
	}
	return held, nil
}
