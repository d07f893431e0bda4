package store

import (
	"sync/atomic"
	"time"
)

// captureClock is when capture last stored memories in any agent of a
// Store, so that the daemon's background work can give way to it
// (LastCapture).
type captureClock struct {
	at atomic.Int64 // Unix ns; 0: never
}

func (c *captureClock) mark() {
	if c != nil {
		c.at.Store(time.Now().UnixNano())
	}
}

// LastCapture is when an Insert or InsertChunks of any of the store's
// agents last committed; zero before the first. It reads the wall clock,
// whatever Options.Now says: it times waits, not memories.
func (s *Store) LastCapture() time.Time {
	ns := s.opts.captured.at.Load()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}
