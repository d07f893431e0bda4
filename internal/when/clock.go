package when

import (
	"errors"
	"fmt"
	"time"
)

// ErrImplausibleClock means the clock is before EarliestPlausible: a Pi
// without a real-time clock, before NTP has set it (after a power cut, say).
var ErrImplausibleClock = errors.New("the system clock is not plausible")

// EarliestPlausible is the earliest time the clock may say. Before it, no
// day is consolidated (which day ended cannot be known) and no memory is
// dated by the clock.
var EarliestPlausible = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// CheckClock refuses a clock before EarliestPlausible.
func CheckClock(now time.Time) error {
	if now.Before(EarliestPlausible) {
		return fmt.Errorf("%w: it says %s, before %s (is NTP synchronised? see timedatectl)",
			ErrImplausibleClock, now.UTC().Format(time.RFC3339), EarliestPlausible.Format(time.DateOnly))
	}
	return nil
}
