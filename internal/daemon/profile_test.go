package daemon_test

import (
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
)

// TestRecallEngineTakesProfileTokens: recall.profile_tokens reaches the
// engine as configured, 0 (the profile off) included.
func TestRecallEngineTakesProfileTokens(t *testing.T) {
	for _, n := range []int{0, 120, 400} {
		cfg := config.Default()
		cfg.Recall.ProfileTokens = n
		if got := daemon.RecallEngine(cfg).Tuning.ProfileTokens; got != n {
			t.Errorf("profile_tokens %d: the engine has %d", n, got)
		}
	}
}
