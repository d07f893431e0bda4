package llm

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Budget limits the calls and tokens (in and out) one provider may spend
// per night: per local day, counted by the process that holds it plus what
// Elsewhere reports. Zero limits are no limit. It is safe for concurrent use.
type Budget struct {
	MaxCalls  int
	MaxTokens int
	Location  *time.Location // the night's day boundaries; nil is time.Local
	// Elsewhere, when set, says what other processes spent of the night
	// [from, to) on this provider (the daemon and the nightly timer's job
	// share one budget): asked before every call. When it fails, the last
	// figure it gave for the night is used.
	Elsewhere func(ctx context.Context, from, to time.Time) (calls, tokens int, err error)

	elseNight          string
	elseCalls, elseTok int

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
func (b *Budget) reserve(ctx context.Context, now time.Time, estIn int) error {
	loc := b.Location
	if loc == nil {
		loc = time.Local
	}
	night := now.In(loc).Format(time.DateOnly)
	var ec, et int
	var eerr error
	if b.Elsewhere != nil { // outside the lock: it reads files
		y, m, d := now.In(loc).Date()
		from := time.Date(y, m, d, 0, 0, 0, 0, loc)
		ec, et, eerr = b.Elsewhere(ctx, from, from.AddDate(0, 0, 1))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.roll(now)
	if b.Elsewhere != nil {
		if b.elseNight != night {
			b.elseNight, b.elseCalls, b.elseTok = night, 0, 0
		}
		if eerr == nil {
			b.elseCalls, b.elseTok = ec, et
		}
	}
	calls, tokens := b.calls+b.elseCalls, b.tokens+b.elseTok
	if b.MaxCalls > 0 && calls+1 > b.MaxCalls {
		return fmt.Errorf("%w: %d of %d calls used tonight, %d of them by other processes (llm.budget.max_calls)",
			ErrBudget, calls, b.MaxCalls, b.elseCalls)
	}
	if b.MaxTokens > 0 && tokens+b.pending+estIn > b.MaxTokens {
		return fmt.Errorf("%w: %d of %d tokens used tonight (%d by other processes) and the next call needs about %d (llm.budget.max_tokens)",
			ErrBudget, tokens+b.pending, b.MaxTokens, b.elseTok, estIn)
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
