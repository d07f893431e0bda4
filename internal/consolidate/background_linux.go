package consolidate

import (
	"fmt"
	"syscall"
	"time"
)

// lowerThreadPriority raises the calling thread's nice value by n (Linux
// keeps one per thread), capped at 19.
func lowerThreadPriority(n int) error {
	tid := syscall.Gettid()
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return fmt.Errorf("read the thread's priority: %w", err)
	}
	nice := min(20-prio+n, 19) // the raw system call answers 20 - nice
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, nice); err != nil {
		return fmt.Errorf("set the thread's nice value to %d: %w", nice, err)
	}
	return nil
}

// threadCPU is the CPU time the calling thread has used: background work
// runs on a thread of its own (inBackground), so this is its own.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rusageThread is Linux's RUSAGE_THREAD, which package syscall lacks.
const rusageThread = 1
