package store

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrPanic is what a read or write whose code panicked returns. The SQLite
// connection the panic unwound through is closed, never used again: a
// panic can leave it mid-statement, or SQLite's memory half-written.
var ErrPanic = errors.New("internal error: the operation panicked")

// recovered turns p, the value of a panic that unwound through c, into
// ErrPanic: it logs the panic with its stack and closes c.
func (a *Agent) recovered(p any, c *conn) error {
	a.log.Error("panic on a SQLite connection: connection closed", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	if err := closeAfterPanic(c); err != nil {
		a.log.Warn("close the connection after a panic", "err", err)
	}
	return fmt.Errorf("%w: %v", ErrPanic, p)
}

// closeAfterPanic closes c, whose state a panic may have broken so that
// closing panics too.
func closeAfterPanic(c *conn) (err error) {
	if c == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("close panicked: %v", p)
		}
	}()
	return c.close()
}
