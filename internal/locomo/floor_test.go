package locomo_test

import (
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/locomo"
)

// devFloor is the development split's (samples 0-4) evidence recall as
// reported in the README, less 2 points: a change that loses more fails.
var devFloor = map[string]float64{"5": 0.698 - 0.02, "10": 0.793 - 0.02, "25": 0.861 - 0.02, "50": 0.894 - 0.02}

// TestLocomoDevFloor runs `bench locomo` on the development split over the
// daemon's parts with the default configuration (daemon.OpenBench). It
// reads the file dataPath finds and skips where there is none (it never
// downloads: `dormouse bench locomo` does). Under the race
// detector the wasm SQLite is too slow for it; make test runs it without.
func TestLocomoDevFloor(t *testing.T) {
	if locomo.RaceEnabled {
		t.Skip("skipped under -race (slow); make test runs it in a plain pass")
	}
	if testing.Short() {
		t.Skip("skipped with -short")
	}
	set, err := locomo.Load(locomo.DataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runBench(t, set, locomo.Options{Samples: []int{0, 1, 2, 3, 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall.N != 997 {
		t.Errorf("scored %d questions, want 997 (999 less 2 without usable evidence)", rep.Overall.N)
	}
	for k, floor := range devFloor {
		if got := rep.Overall.Recall[k]; got < floor {
			t.Errorf("dev R@%s = %.3f, below the floor %.3f", k, got, floor)
		}
	}
	if tok := rep.Overall.Tokens["10"]; tok > 1500 {
		t.Errorf("mean context at k=10 is %.0f tokens, over 1,500", tok)
	}
	t.Logf("dev: R@5 %.3f R@10 %.3f R@25 %.3f R@50 %.3f, %.0f tokens at k=10, %.1fs",
		rep.Overall.Recall["5"], rep.Overall.Recall["10"], rep.Overall.Recall["25"], rep.Overall.Recall["50"],
		rep.Overall.Tokens["10"], rep.Seconds)
}

// runBench runs the benchmark with o over the daemon's parts of the default
// configuration (daemon.OpenBench), the services changed by tune when set.
func runBench(t *testing.T, set []locomo.Sample, o locomo.Options, tune func(*daemon.Services)) (locomo.Report, error) {
	t.Helper()
	svc, err := daemon.OpenBench(t.Context(), config.Default(), nil)
	if err != nil {
		return locomo.Report{}, err
	}
	defer svc.Close()
	if tune != nil {
		tune(svc)
	}
	o.Store, o.Consolidate, o.Engine = svc.Store, svc.Consolidate, svc.Recall
	return locomo.Run(t.Context(), set, o)
}
