package recall

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestTodaysMemoryRetiresTheFact: a memory of today stating a new value of
// a one-valued attribute ("new number: ...") retires, before the night
// supersedes it, the current fact and the older memory holding the old
// value; a question asked before the new memory still gets the old one.
func TestTodaysMemoryRetiresTheFact(t *testing.T) {
	turns := []turn{
		{time.Date(2026, 1, 14, 10, 0, 0, 0, time.UTC), "s1", "user", "My phone number is 0612 448 731, the courier can ring it.", nil},
		{time.Date(2026, 5, 3, 8, 0, 0, 0, time.UTC), "s2", "user", "new number: 0687 220 915, the old SIM is dead.", nil},
	}
	a := agentWith(t, turns)
	if _, err := a.PutFact(t.Context(), store.Fact{Entity: "user", Attribute: "phone", Value: "0612 448 731",
		Content: "My phone number is 0612 448 731, the courier can ring it", Confidence: 0.6,
		SourceMemoryIDs: []int64{1}, ValidFrom: turns[0].at}); err != nil {
		t.Fatal(err)
	}
	claims := func(content, role string) []Claim { // as the consolidation keys them
		switch {
		case strings.Contains(content, "0612 448 731"):
			return []Claim{{"user", "phone", "0612 448 731"}}
		case strings.Contains(content, "0687 220 915"):
			return []Claim{{"user", "phone", "0687 220 915"}}
		}
		return nil
	}
	e := &Engine{Claims: claims}
	ask := func(at time.Time) string {
		res, err := e.Recall(t.Context(), a, Query{Text: "Which phone number should the courier ring?", AsOf: at})
		if err != nil {
			t.Fatal(err)
		}
		return res.Context
	}
	if got := ask(time.Date(2026, 5, 3, 12, 0, 0, 0, time.UTC)); !strings.Contains(got, "0687 220 915") || strings.Contains(got, "0612") {
		t.Errorf("today the context must hold the new number only:\n%s", got)
	}
	if got := ask(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)); !strings.Contains(got, "0612 448 731") {
		t.Errorf("as of March the old number was current:\n%s", got)
	}
}
