package logging

import (
	"sync"
	"time"
)

// Sample lets one log line of a kind through per Every and counts those it
// holds back: a full disk refuses every write, and a line for each would
// only add to the journal on the same card.
type Sample struct {
	Every time.Duration
	mu    sync.Mutex
	last  time.Time
	held  int
}

// Allow reports whether a line at now goes out, and how many were held
// back since the last one that did.
func (s *Sample) Allow(now time.Time) (ok bool, held int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.last.IsZero() && now.Sub(s.last) < s.Every {
		s.held++
		return false, 0
	}
	held, s.held, s.last = s.held, 0, now
	return true, held
}
