package locomo

import (
	"os"
	"path/filepath"
	"testing"
)

// dataPath is the shared LoCoMo file ($DORMOUSE_LOCOMO, else ../shared beside
// the checkout); the test skips where it is absent.
func dataPath(t testing.TB) string {
	t.Helper()
	p := os.Getenv("DORMOUSE_LOCOMO")
	if p == "" {
		p = filepath.Join("..", "..", "..", "..", "shared", "data", "locomo", "locomo10.json")
		if _, err := os.Stat(p); err != nil {
			p = filepath.Join("..", "..", "..", "shared", "data", "locomo", "locomo10.json")
		}
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("LoCoMo data not found at %s (set DORMOUSE_LOCOMO to locomo10.json): skipping", p)
	}
	return p
}
