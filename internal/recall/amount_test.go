package recall

import (
	"testing"
	"time"
)

// TestAsksAmount: "how much" with a word of paying, or right before "is"
// or "was", asks an amount; "how much" of anything else ("how much sleep",
// "how much do I earn") does not.
func TestAsksAmount(t *testing.T) {
	for q, want := range map[string]bool{
		"How much did we pay for the grandfather clock?":    true,
		"How much were the brake pads? What did they cost?": true,
		"How much does the window cleaner charge?":          true,
		"How much sleep did I get last night?":              false,
		"What did the clock cost?":                          false, // no "how much": not read
		"How much do I earn?":                               false,
		"How much was the oven repair?":                     true,
		"How much is the phone bill each month?":            true,
	} {
		if got := asksAmount(q); got != want {
			t.Errorf("asksAmount(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestLacksAmountAbstains: asked what something cost, a text naming it but
// no amount nor any word of paying is no answer; an amount in figures, in
// words, or a word of paying is.
func TestLacksAmountAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Our grandfather clock was repaired by Mr Ambrose in February.", nil},
		{day0.Add(time.Hour), "s2", "user", "The rocking chair was restored by the man at the market.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "The rocking chair cost us forty quid at the market.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "Paid 1,200 for the dining table in the sale.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectNothingFound(t, a, Query{Text: "How much did we pay for the grandfather clock?", AsOf: asOf})
	expectContext(t, a, Query{Text: "How much did the rocking chair cost?", AsOf: asOf}, []string{"forty quid"}, nil)
	expectContext(t, a, Query{Text: "How much did we pay for the dining table?", AsOf: asOf}, []string{"1,200"}, nil)
	// not asked an amount, the repair answers
	expectContext(t, a, Query{Text: "Who repaired the grandfather clock?", AsOf: asOf}, []string{"Ambrose"}, nil)
}

// TestCompoundNearMiss: another thing's possessive of the question's noun
// ("the soundbar's warranty" asked of the projector warranty), or a text
// holding only a word related to a compound's modifier ("shopping list"
// for "contents", "last winter" for "season"), is no answer; the thing's
// own possessive, or its head in other words, is.
func TestCompoundNearMiss(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "The soundbar's warranty runs out at the end of May.", nil},
		{day0.Add(time.Hour), "s2", "user", "Added lentils, kitchen roll and marmalade to the shopping list.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Found a tub of soup from last winter in the freezer.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "The kettle's guarantee ends in August.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, q := range []string{"When does the projector warranty end?", "Who is our contents insurance with?", "When does my season ticket renew?"} {
		expectNothingFound(t, a, Query{Text: q, AsOf: asOf})
	}
	expectContext(t, a, Query{Text: "When does the soundbar warranty end?", AsOf: asOf}, []string{"end of May"}, nil)
	expectContext(t, a, Query{Text: "When does the kettle warranty run out?", AsOf: asOf}, []string{"August"}, nil)
}

// TestAnotherRepairIsNoAnswer: "how much was the oven repair?" asks what
// it cost; the oven named without a price, or another thing's repair told
// by a related word ("fix the leaking shower valve"), is no answer; the
// oven's own price is.
func TestAnotherRepairIsNoAnswer(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "The plumber charged £95 to fix the leaking shower valve.", nil},
		{day0.Add(time.Hour), "s2", "user", "The oven door seal is starting to perish.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectNothingFound(t, a, Query{Text: "How much was the oven repair?", AsOf: asOf})
	expectContext(t, a, Query{Text: "How much did the plumber charge?", AsOf: asOf}, []string{"£95"}, nil)
	b := agentWith(t, []turn{
		{day0, "s1", "user", "The plumber charged £95 to fix the leaking shower valve.", nil},
		{day0.Add(time.Hour), "s2", "user", "The oven repair came to £120 in the end.", nil},
	})
	expectContext(t, b, Query{Text: "How much was the oven repair?", AsOf: asOf}, []string{"£120"}, nil)
}

// TestTimelessTextIsNoWhen: asked when something of the user's own is, a
// text naming it but no time ("topped up the screenwash in the car" for my
// car insurance, "the climbing wall membership is £38 a month" for when
// it runs out) is no answer; one telling a time ("the car cover renews in
// June", "it runs out at the end of March") is, and so is any text asked
// when something was.
func TestTimelessTextIsNoWhen(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Topped up the screenwash in the car.", nil},
		{day0.Add(time.Hour), "s2", "user", "The climbing wall membership is £38 a month.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectNothingFound(t, a, Query{Text: "When does my car insurance renew?", AsOf: asOf})
	expectNothingFound(t, a, Query{Text: "When does my climbing wall membership run out?", AsOf: asOf})
	expectContext(t, a, Query{Text: "How much is my climbing wall membership?", AsOf: asOf}, []string{"£38"}, nil)
	b := agentWith(t, []turn{
		{day0, "s1", "user", "Topped up the screenwash in the car.", nil},
		{day0.Add(time.Hour), "s2", "user", "The car cover renews in June.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "The climbing wall membership runs out at the end of March.", nil},
	})
	expectContext(t, b, Query{Text: "When does my car insurance renew?", AsOf: asOf}, []string{"June"}, nil)
	expectContext(t, b, Query{Text: "When does my climbing wall membership run out?", AsOf: asOf}, []string{"end of March"}, nil)
}

// TestAnotherJobsCostAbstains: asked what a job cost ("how much did the
// tyre fitting cost?", "how much was the drain unblocking?"), a price of
// another job ("the MOT on the van cost £54.85") is no answer; asked of
// that job, it is.
func TestAnotherJobsCostAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "The MOT on the van cost £54.85 this year.", nil},
		{day0.Add(time.Hour), "s2", "user", "The window cleaning came to £90 for the quarter.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"How much did the tyre fitting cost?", false},
		{"How much was the drain unblocking?", false},
		{"How much did the window cleaning cost?", true},
		{"How much did the MOT cost?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
}
