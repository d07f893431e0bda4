package daemon

import (
	"context"
	"time"
)

// returnMemoryWhenQuiet gives the Go runtime's free memory back to the
// operating system once the store has stood unused for quiet after some
// work (lastUsed moved). Without it the heap a burst of requests grew stays
// resident up to the collector's goal, about twice the live heap, since
// the runtime's scavenger returns only what lies beyond that goal. One
// forced collection per quiet spell: nothing while the daemon is busy.
func returnMemoryWhenQuiet(ctx context.Context, lastUsed func() time.Time, quiet time.Duration, free func()) {
	t := time.NewTicker(quiet / 2)
	defer t.Stop()
	var freed time.Time // the lastUsed whose quiet spell was freed
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if used := lastUsed(); used.After(freed) && time.Since(used) >= quiet {
			free()
			freed = used
		}
	}
}
