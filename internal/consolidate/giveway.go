package consolidate

import (
	"context"
	"time"
)

// The daemon's own consolidation gives way to capture ("capture first"):
// the catch-up before each day and before the retention after an agent's
// last, the backlog trigger before its rebuild of today, each waits until
// no memory was stored for captureQuiet, but at most captureWaitMax, so a
// catch-up beside capture that never pauses still does a day every few
// seconds. Neither its priority nor its rests kept capture from slowing:
// on 2 cores, single POSTs' p95 was 3.3-4x the idle one during a catch-up,
// and about as much with a day's extraction made free (no CPU, no
// allocation): what a POST meets is the rest of the day, its reads, its
// commit, the checkpoint after it, the collections of the garbage of it.
const (
	captureQuiet   = 300 * time.Millisecond
	captureWaitMax = 5 * time.Second
)

// giveWayToCapture waits until capture has been quiet for captureQuiet,
// for at most captureWaitMax, or until ctx ends.
func (e *Engine) giveWayToCapture(ctx context.Context) {
	awaitQuiet(ctx, e.Store.LastCapture, captureQuiet, captureWaitMax)
}

// awaitQuiet waits until quiet has passed since last(), checking again
// each time it has (last moves on while capture goes on), or until limit
// has passed or ctx ends.
func awaitQuiet(ctx context.Context, last func() time.Time, quiet, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		now := time.Now()
		wait := min(last().Add(quiet).Sub(now), deadline.Sub(now))
		if wait <= 0 {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}
