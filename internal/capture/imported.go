package capture

import (
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// CheckImported holds a memory read back from an export to the rules a new
// one meets (validate's: content, the labels' control characters, the
// timestamp's years and future skew), so an import stores nothing capture
// would have refused.
func (l Limits) CheckImported(m store.Memory, now time.Time) error {
	importance := m.Importance
	in := Input{
		Content: m.Content, SessionID: m.SessionID, Role: m.Role, InteractionType: m.InteractionType,
		Context: m.Context, Importance: &importance, Source: m.Source,
		Timestamp: m.Timestamp.UTC().Format(time.RFC3339Nano),
	}
	_, err := validate(in, l, now)
	return err
}
