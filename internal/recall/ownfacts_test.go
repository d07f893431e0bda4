package recall

import (
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestListKeepsOutOthersFacts: a list question of the user's own is not
// answered by a fact whose statement is someone else's visit or a plan,
// as the memory that stated it is not; the user's own facts stay.
func TestListKeepsOutOthersFacts(t *testing.T) {
	turns := []turn{
		{at: day0, session: "w1", role: "user", content: "On holiday in Cumbria; we walked up to Aira Force today."},
		{at: day0.Add(time.Hour), session: "w2", role: "user", content: "Tamsin says she saw Stock Ghyll waterfall on her trip last spring."},
		{at: day0.Add(2 * time.Hour), session: "w3", role: "user", content: "We should do Scale Force next time, it looked amazing."},
	}
	a := agentWith(t, turns)
	for _, f := range []store.Fact{
		{Entity: "stock ghyll trip", Attribute: "note", Value: "Tamsin saw Stock Ghyll",
			Content: "Tamsin says she saw Stock Ghyll waterfall on her trip last spring", Confidence: 0.6,
			SourceMemoryIDs: []int64{2}, ValidFrom: turns[1].at},
		{Entity: "scale force", Attribute: "note", Value: "plan",
			Content: "We should do Scale Force next time, it looked amazing", Confidence: 0.6,
			SourceMemoryIDs: []int64{3}, ValidFrom: turns[2].at},
	} {
		if _, err := a.PutFact(t.Context(), f); err != nil {
			t.Fatal(err)
		}
	}
	expectContext(t, a, Query{Text: "Which waterfalls did we see on holiday?", AsOf: day0.Add(72 * time.Hour)},
		[]string{"Aira Force"}, []string{"Stock Ghyll", "Scale Force"})
}
