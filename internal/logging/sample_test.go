package logging

import (
	"testing"
	"time"
)

// TestSampleLetsOneLinePerInterval: the first line goes out, the rest of
// the interval is held back and counted, and the next line after it goes
// out with the count.
func TestSampleLetsOneLinePerInterval(t *testing.T) {
	s := Sample{Every: 10 * time.Second}
	t0 := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	if ok, held := s.Allow(t0); !ok || held != 0 {
		t.Fatalf("the first line: %v, %d; want it out, none held", ok, held)
	}
	for i := 1; i <= 3; i++ {
		if ok, _ := s.Allow(t0.Add(time.Duration(i) * time.Second)); ok {
			t.Fatalf("a line %ds after the first went out", i)
		}
	}
	if ok, held := s.Allow(t0.Add(10 * time.Second)); !ok || held != 3 {
		t.Errorf("the line an interval later: %v, %d; want it out with 3 held", ok, held)
	}
	if ok, _ := s.Allow(t0.Add(11 * time.Second)); ok {
		t.Errorf("the interval restarts at the last line out")
	}
}
