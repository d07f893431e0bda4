package capture

import (
	"errors"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestCheckImported: an imported memory meets capture's rules, field by
// field, and a good one passes.
func TestCheckImported(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lim := Limits{MaxContent: 1000}
	good := store.Memory{Content: "Alice moved", Role: "user", Timestamp: now.Add(-time.Hour), Importance: 0.5}
	if err := lim.CheckImported(good, now); err != nil {
		t.Fatalf("a good memory: %v", err)
	}
	cases := map[string]func(*store.Memory){
		"control character in role": func(m *store.Memory) { m.Role = "us\u202eer" },
		"newline in session":        func(m *store.Memory) { m.SessionID = "a\nb" },
		"blank content":             func(m *store.Memory) { m.Content = "  " },
		"dated next year":           func(m *store.Memory) { m.Timestamp = now.AddDate(1, 0, 0) },
		"importance above 1":        func(m *store.Memory) { m.Importance = 2 },
		"context not an object":     func(m *store.Memory) { m.Context = []byte(`[1]`) },
	}
	for name, spoil := range cases {
		m := good
		spoil(&m)
		var ie *InputError
		if err := lim.CheckImported(m, now); !errors.As(err, &ie) {
			t.Errorf("%s: err = %v, want an InputError", name, err)
		}
	}
}
