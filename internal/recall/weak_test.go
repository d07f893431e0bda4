package recall

import (
	"testing"
	"time"
)

// TestSharesOnlyWeakAbstains: texts sharing only "last" and "new" with a
// question about glasses are no answer (and someone else's glasses are
// left out); a text naming the glasses, in their word or a related one,
// is; and a question of only weak words is read as before.
func TestSharesOnlyWeakAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Spent the evening untangling the fairy lights from last year.", nil},
		{day0.Add(time.Hour), "s2", "user", "Tried a new route on my walk, past the old water tower.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "My wife Rosamund picked up her new glasses, the prescription went up again.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectNothingFound(t, a, Query{Text: "When did I last get new glasses?", AsOf: asOf})
	expectContext(t, a, Query{Text: "Did I try anything new?", AsOf: asOf}, []string{"new route"}, nil)
	b := agentWith(t, []turn{
		{day0, "s1", "user", "Spent the evening untangling the fairy lights from last year.", nil},
		{day0.Add(time.Hour), "s2", "user", "Picked up my new spectacles from the optician.", nil},
	})
	expectContext(t, b, Query{Text: "When did I last get new glasses?", AsOf: asOf}, []string{"spectacles"}, nil)
}

// TestSharesOnlyWeakKeepsTheDay: a day the question names is no weak word:
// a rule naming that day answers a question holding no weak word at all.
func TestSharesOnlyWeakKeepsTheDay(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "On Tuesdays nobody is home until after 2pm.", nil},
	})
	expectContext(t, a, Query{Text: "Can the fridge be delivered next Tuesday?", AsOf: day0.Add(48 * time.Hour)}, []string{"after 2pm"}, nil)
}
