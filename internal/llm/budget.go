package llm

import (
	"fmt"
	"sync"
	"time"
)

// Budget limits the calls and tokens (in and out) one provider may spend
// per night: per local day, counted by the process that holds it. Zero
// limits are no limit. It is safe for concurrent use.
type Budget struct {
	MaxCalls  int
	MaxTokens int
	Location  *time.Location // the night's day boundaries; nil is time.Local

	mu      sync.Mutex
	night   string
	calls   int
	tokens  int
	pending int // estimated tokens of calls in flight
}

func (b *Budget) roll(now time.Time) {
	loc := b.Location
	if loc == nil {
		loc = time.Local
	}
	if n := now.In(loc).Format(time.DateOnly); n != b.night {
		b.night, b.calls, b.tokens, b.pending = n, 0, 0, 0
	}
}

// reserve admits a call estimated at estIn tokens in, or says the budget
// is spent.
func (b *Budget) reserve(now time.Time, estIn int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	if b.MaxCalls > 0 && b.calls+1 > b.MaxCalls {
		return fmt.Errorf("%w: %d of %d calls used tonight (llm.budget.max_calls)", ErrBudget, b.calls, b.MaxCalls)
	}
	if b.MaxTokens > 0 && b.tokens+b.pending+estIn > b.MaxTokens {
		return fmt.Errorf("%w: %d of %d tokens used tonight and the next call needs about %d (llm.budget.max_tokens)",
			ErrBudget, b.tokens+b.pending, b.MaxTokens, estIn)
	}
	b.calls++
	b.pending += estIn
	return nil
}

// spend settles a reserved call: its estimate is released and u charged.
func (b *Budget) spend(now time.Time, u Usage, estIn int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	night := b.night
	b.roll(now)
	if b.night == night {
		b.pending = max(b.pending-estIn, 0)
	}
	b.tokens += u.TokensIn + u.TokensOut
}
