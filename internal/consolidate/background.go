package consolidate

import (
	"log/slog"
	"os"
	"runtime"
	"sync"
)

// backgroundNice is how much lower than the daemon's the CPU priority of
// the consolidation the daemon runs itself (the start-up catch-up, the
// backlog trigger) is: the nightly job's Nice=10. Its extractor is pure
// CPU (sentence shapes, mostly regexps) for seconds per day, and at the
// daemon's own priority it takes the cores that capture's requests wait
// for: on a loaded 2-core box a busy goroutine raised single writes' p95
// from ~1 ms to 8-14 ms, one at nice 19 on its own thread to 1.4-3 ms.
const backgroundNice = 10

// inBackground runs fn on an OS thread of its own at backgroundNice lower
// priority and waits for it. The thread stays locked to fn's goroutine,
// so it ends with fn and no other goroutine ever runs at its priority (the
// main thread, should fn's goroutine have started there, is parked for
// good instead: Go never ends it);
// the writes fn queues run on the store's writer at the usual priority,
// so the write lock is never held by a thread that waits for the CPU.
// Where the priority cannot be lowered, fn runs at the usual one. It
// waits for its turn first (backgroundTurn).
func inBackground(log *slog.Logger, fn func()) {
	if !backgroundTurn.TryLock() {
		log.Debug("waiting for the background consolidation running to end")
		backgroundTurn.Lock()
	}
	defer backgroundTurn.Unlock()
	defer extraP()()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: see above
		if err := lowerThreadPriority(backgroundNice); err != nil {
			log.Debug("background consolidation at the usual CPU priority", "err", err)
		}
		fn()
	}()
	<-done
}

// backgroundTurn lets one background job run at a time. A catch-up that
// gives way to capture lasts minutes beside busy capture, long enough for
// the backlog trigger to rebuild today meanwhile: the two would meet on
// the agent, and the catch-up, told ErrBusy, would leave the agent's
// other past days for the next night.
var backgroundTurn sync.Mutex

// background counts the background jobs running and remembers the
// GOMAXPROCS they found.
var background struct {
	sync.Mutex
	jobs, procs int
}

// extraP gives the scheduler one more P for as long as a background job
// runs, and returns the call that takes it back. The job's goroutine
// holds a P whenever it runs, so with GOMAXPROCS at the number of cores
// capture's requests would be left the other cores only, whatever the
// job's nice value: the kernel arbitrates between threads, but the
// runtime never runs more than GOMAXPROCS of them. One more P lets the
// requests' threads run beside the job's, and the kernel gives the cores
// to them first, as nice asks.
func extraP() func() {
	background.Lock()
	defer background.Unlock()
	if background.jobs == 0 {
		background.procs = runtime.GOMAXPROCS(0)
	}
	background.jobs++
	runtime.GOMAXPROCS(background.procs + background.jobs)
	return func() {
		background.Lock()
		defer background.Unlock()
		background.jobs--
		switch {
		case background.jobs > 0:
			runtime.GOMAXPROCS(background.procs + background.jobs)
		case os.Getenv("GOMAXPROCS") == "":
			runtime.SetDefaultGOMAXPROCS() // and the runtime follows the CPU limit again
		default:
			runtime.GOMAXPROCS(background.procs)
		}
	}
}
