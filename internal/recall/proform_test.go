package recall

import (
	"testing"
	"time"
)

// TestProFormCorrectionBeforeTheNight: a correction by a pro-form said in
// another session, before any night has read either, shares no word with
// the question; it still retires the claim it corrects and is offered in
// its place. As of before it, the old claim stands; a claim of another
// kind is left alone.
func TestProFormCorrectionBeforeTheNight(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "k1", role: "user", content: "I think I'll order the grey rucksack for the trip."},
		{at: day0.Add(time.Hour), session: "p1", role: "user", content: "The locksmith is booked for Tuesday to change the back door lock."},
		{at: day0.Add(6 * time.Hour), session: "k2", role: "user", content: "Changed my mind, the orange one."},
	})
	after, before := day0.Add(7*time.Hour), day0.Add(3*time.Hour)
	expectContext(t, a, Query{Text: "Which rucksack am I ordering?", AsOf: after}, []string{"orange one"}, []string{"grey"})
	expectContext(t, a, Query{Text: "Which rucksack am I ordering?", AsOf: before}, []string{"grey"}, []string{"orange"})
	expectContext(t, a, Query{Text: "When is the locksmith coming?", AsOf: after}, []string{"Tuesday"}, []string{"orange"})
}
