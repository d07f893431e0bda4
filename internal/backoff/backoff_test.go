package backoff

import (
	"net/http"
	"testing"
	"time"
)

func TestExp(t *testing.T) {
	for _, tc := range []struct {
		first, most time.Duration
		attempt     int
		want        time.Duration
	}{
		{time.Second, time.Minute, 0, time.Second},
		{time.Second, time.Minute, 1, 2 * time.Second},
		{time.Second, time.Minute, 5, 32 * time.Second},
		{time.Second, time.Minute, 6, time.Minute},
		{time.Second, 5 * time.Second, 2, 4 * time.Second},
		{time.Second, 5 * time.Second, 3, 5 * time.Second},
		{time.Second, time.Minute, 200, time.Minute}, // first<<200 would overflow
		{time.Hour, time.Minute, 0, time.Minute},     // a first wait over the cap is capped
		{0, time.Minute, 3, time.Minute},
	} {
		if got := Exp(tc.first, tc.most, tc.attempt); got != tc.want {
			t.Errorf("Exp(%s, %s, %d) = %s, want %s", tc.first, tc.most, tc.attempt, got, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"7", 7 * time.Second, true},
		{" 0 ", 0, true},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{"soon", 0, false},
		{"-3", 0, false},
		{"", 0, false},
	} {
		got, ok := RetryAfter(tc.v, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%q) = %s, %v; want %s, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}
