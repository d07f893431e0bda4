package extract

import "testing"

// TestShapesCompile: every sentence shape is a valid expression (compiled
// lazily, a bad one would otherwise panic only when a memory first reaches
// it). That none is compiled at start-up is internal/deps's
// TestInitAllocations.
func TestShapesCompile(t *testing.T) {
	if len(shapes) < 20 {
		t.Fatalf("%d shapes registered, want the package's regular expressions (25)", len(shapes))
	}
	for i, l := range shapes {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("shape %d does not compile: %v", i, r)
				}
			}()
			if l.compiled() == nil {
				t.Errorf("shape %d compiled to nil", i)
			}
		}()
	}
}
