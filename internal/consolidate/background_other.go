//go:build !linux

package consolidate

import "errors"

func lowerThreadPriority(int) error {
	return errors.New("per-thread priority is only set on Linux")
}
