package daemon

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestMemoryReturnedOnceAQuietSpell: free memory is returned once the
// store has been unused for the quiet period after work, once for each
// quiet spell, and never while it is being used.
func TestMemoryReturnedOnceAQuietSpell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var used atomic.Int64 // the store's LastUsed, in UnixNano
		use := func() { used.Store(time.Now().UnixNano()) }
		var freed atomic.Int32
		go returnMemoryWhenQuiet(ctx, func() time.Time { return time.Unix(0, used.Load()) },
			30*time.Second, func() { freed.Add(1) })

		for range 12 { // busy: used every 10s for two minutes
			use()
			time.Sleep(10 * time.Second)
		}
		synctest.Wait()
		if n := freed.Load(); n != 0 {
			t.Fatalf("memory returned %d times while the store was used every 10s, want 0", n)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := freed.Load(); n != 1 {
			t.Fatalf("memory returned %d times after a quiet minute, want 1", n)
		}
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if n := freed.Load(); n != 1 {
			t.Fatalf("memory returned %d times after 11 quiet minutes, want still 1", n)
		}
		use()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := freed.Load(); n != 2 {
			t.Errorf("memory returned %d times after work and another quiet minute, want 2", n)
		}
	})
}
