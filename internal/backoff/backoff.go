// Package backoff says how long to wait before calling a server again: a
// wait that doubles with each failure, and what the server's Retry-After asks.
package backoff

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Exp is first doubled once per attempt already failed, at most most; it
// never overflows, however many attempts. A first of zero or less is most:
// retrying at once is never what was meant.
func Exp(first, most time.Duration, attempt int) time.Duration {
	if first <= 0 {
		return most
	}
	d := first
	for range attempt {
		if d > most/2 {
			return most
		}
		d *= 2
	}
	return min(d, most)
}

// RetryAfter reads a Retry-After header, seconds or an HTTP date, as the wait
// from now; ok is false when there is none or it cannot be read.
func RetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
