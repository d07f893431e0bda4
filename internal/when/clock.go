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

// behindSlack is how far the clock may be behind the last write before it
// counts as set back: clocks of two processes, and a file's timestamp
// rounding, differ by less.
const behindSlack = time.Minute

// Behind is how far now is behind last, the time of the newest write this
// device's clock dated (an agent file's modification time), when that is
// more than a minute; 0 otherwise. A Pi without a real-time clock boots
// after a power cut at a plausible but earlier time (systemd's saved clock,
// fake-hwclock's last save) until NTP sets it: what it stores meanwhile is
// dated before what it already holds.
func Behind(now, last time.Time) time.Duration {
	if d := last.Sub(now); d > behindSlack {
		return d
	}
	return 0
}
