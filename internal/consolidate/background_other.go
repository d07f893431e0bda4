//go:build !linux

package consolidate

import (
	"errors"
	"time"
)

func lowerThreadPriority(int) error {
	return errors.New("per-thread priority is only set on Linux")
}

// threadCPU is 0 where a thread's CPU time is not read: no rest (pace).
func threadCPU() time.Duration { return 0 }
