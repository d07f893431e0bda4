package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// A panic in a read closes its connection, frees its slot and is
// ErrPanic: more panics than the pool has connections, then reads still
// work, and no closed connection is lent again.
func TestAPanicInAReadClosesItsConnection(t *testing.T) {
	a := utcAgent(t)
	var broken []*conn
	for range a.opts.ReadConns + 2 {
		err := a.read(t.Context(), func(c *conn) error {
			broken = append(broken, c)
			panic("boom")
		})
		if !errors.Is(err, ErrPanic) {
			t.Fatalf("read that panicked: %v, want ErrPanic", err)
		}
	}
	for _, c := range broken {
		if c.stmts != nil {
			t.Error("a connection a panic unwound through is still open")
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	err := a.read(ctx, func(c *conn) error {
		if slices.Contains(broken, c) {
			t.Error("a closed connection was lent again")
		}
		_, err := c.userVersion()
		return err
	})
	if err != nil {
		t.Fatalf("read after the panics: %v", err)
	}
}

// A panic in a write rolls its transaction back (the writer's connection
// is closed), is ErrPanic to its caller and to no other, and the next
// write commits on a new connection.
func TestAPanicInAWriteRollsBackAndWritesGoOn(t *testing.T) {
	a := utcAgent(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if _, err := a.Insert(t.Context(), []Memory{{Content: "kept", Timestamp: t0, ContentHash: "k"}}); err != nil {
		t.Fatal(err)
	}
	err := a.write(t.Context(), func(ctx context.Context, c *conn) error {
		if err := c.execArgs(ctx, `DELETE FROM daily_memories`); err != nil {
			return err
		}
		panic("boom")
	})
	if !errors.Is(err, ErrPanic) {
		t.Fatalf("write that panicked: %v, want ErrPanic", err)
	}
	if _, err := a.Insert(t.Context(), []Memory{{Content: "after", Timestamp: t0.Add(time.Minute), ContentHash: "a"}}); err != nil {
		t.Fatalf("write after the panic: %v", err)
	}
	var contents []string
	err = a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), `SELECT content FROM daily_memories`, nil, func(s *sqlite3.Stmt) error {
			contents = append(contents, s.ColumnText(0))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(contents, []string{"kept", "after"}) {
		t.Errorf("memories %q, want the one the panicked write deleted, and the next", contents)
	}
}
