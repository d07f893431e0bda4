package when

import (
	"testing"
	"time"
)

// saturday is a Saturday, for "this Friday" the day after one.
var saturday = time.Date(2026, 3, 14, 11, 0, 0, 0, time.UTC)

// TestRole: each date phrase is the time asked about, a bound, or a plan's
// day, from the words around it and the tense. asOf is Wednesday 11 March
// 2026; a plan's day is read ahead of it, the time asked about back.
func TestRole(t *testing.T) {
	cases := []struct {
		q        string
		asOf     time.Time
		role     Role
		from, to time.Time // the range (plans, asked) or since/until (bounds)
	}{
		// Plans: a modal, future or imperative verb, "for" the day, the present
		// about a day, or a day after the question's.
		{"Is it all right to book the vet for Thursday?", asOf, Plan, d(2026, 3, 12), d(2026, 3, 13)},
		{"What do I need for the dinner party on Friday?", asOf, Plan, d(2026, 3, 13), d(2026, 3, 14)},
		{"can I schedule the plumber next week?", asOf, Plan, d(2026, 3, 16), d(2026, 3, 23)},
		{"should I bring anything this Saturday?", asOf, Plan, d(2026, 3, 14), d(2026, 3, 15)},
		{"what should I wear to the wedding on the 14th?", asOf, Plan, d(2026, 3, 14), d(2026, 3, 15)},
		{"remind me what to bring on Monday", asOf, Plan, d(2026, 3, 16), d(2026, 3, 17)},
		{"will it be OK to visit on Sunday?", asOf, Plan, d(2026, 3, 15), d(2026, 3, 16)},
		// What was planned for a day was stored before it: no filter.
		{"what did I plan for Friday?", asOf, Plan, d(2026, 3, 13), d(2026, 3, 14)},
		{"did I book the vet for Thursday?", asOf, Plan, d(2026, 3, 12), d(2026, 3, 13)},
		{"Am I free on Friday?", asOf, Plan, d(2026, 3, 13), d(2026, 3, 14)},
		{"What's on this Friday?", asOf, Plan, d(2026, 3, 13), d(2026, 3, 14)},
		{"Is the plumber booked for Thursday?", asOf, Plan, d(2026, 3, 12), d(2026, 3, 13)},
		{"what time is the dentist on Monday", asOf, Plan, d(2026, 3, 16), d(2026, 3, 17)},
		{"Book a table at Nopi on Saturday", asOf, Plan, d(2026, 3, 14), d(2026, 3, 15)},
		{"What am I doing next Friday?", asOf, Plan, d(2026, 3, 20), d(2026, 3, 21)},
		{"could we host the book club on Wednesday?", asOf, Plan, d(2026, 3, 11), d(2026, 3, 12)},
		{"Are we going to the cinema tomorrow?", asOf, Plan, d(2026, 3, 12), d(2026, 3, 13)},
		{"I'm planning a picnic this weekend, any rules?", asOf, Plan, d(2026, 3, 14), d(2026, 3, 16)},
		{"what should I cook for the guests on the 2nd?", asOf, Plan, d(2026, 4, 2), d(2026, 4, 3)},
		{"do I need an umbrella for the trip in April?", asOf, Plan, d(2026, 4, 1), d(2026, 5, 1)},
		{"What will the weather be like on Saturday?", asOf, Plan, d(2026, 3, 14), d(2026, 3, 15)},
		{"shall we invite Tom on Sunday?", asOf, Plan, d(2026, 3, 15), d(2026, 3, 16)},
		{"can I move the standup to Thursday?", asOf, Plan, d(2026, 3, 12), d(2026, 3, 13)},
		{"What are we doing on March 20?", asOf, Plan, d(2026, 3, 20), d(2026, 3, 21)},
		{"what happens on March 20 2026?", asOf, Plan, d(2026, 3, 20), d(2026, 3, 21)},
		{"is there anything this coming Monday?", asOf, Plan, d(2026, 3, 16), d(2026, 3, 17)},
		{"what are we cooking next month", asOf, Plan, d(2026, 4, 1), d(2026, 5, 1)},
		{"Should I bring anything this Friday?", saturday, Plan, d(2026, 3, 20), d(2026, 3, 21)},
		// A month or season in the present: a plan when it lies ahead.
		{"What are we doing in August?", asOf, Plan, d(2026, 8, 1), d(2026, 9, 1)},
		{"Where are we going this summer?", asOf, Plan, d(2026, 6, 1), d(2026, 9, 1)},
		{"what should we plant this spring", asOf, Plan, d(2026, 3, 1), d(2026, 6, 1)},
		{"Got a ferry to Bilbao in February, what do I need?", asOf, Plan, d(2027, 2, 1), d(2027, 3, 1)},
		{"we've got the Lyon conference in January, any rules?", asOf, Plan, d(2027, 1, 1), d(2027, 2, 1)},
		{"I got a ferry to Bilbao in February", asOf, Asked, d(2026, 2, 1), d(2026, 3, 1)},
		{"what is happening in March", asOf, Asked, d(2026, 3, 1), d(2026, 4, 1)},
		{"where did we go this summer", asOf, Asked, d(2025, 6, 1), d(2025, 9, 1)},
		// The time asked about: a past verb, or the phrase's own "last", "ago".
		{"what did I do last Saturday?", asOf, Asked, d(2026, 3, 7), d(2026, 3, 8)},
		{"who did I meet on Monday?", asOf, Asked, d(2026, 3, 9), d(2026, 3, 10)},
		{"what happened on March 2", asOf, Asked, d(2026, 3, 2), d(2026, 3, 3)},
		{"last Friday", asOf, Asked, d(2026, 3, 6), d(2026, 3, 7)},
		{"Where was I on Tuesday?", asOf, Asked, d(2026, 3, 10), d(2026, 3, 11)},
		{"Who called on Monday?", asOf, Asked, d(2026, 3, 9), d(2026, 3, 10)},
		{"can you tell me what I did on Monday?", asOf, Asked, d(2026, 3, 9), d(2026, 3, 10)},
		{"Remind me who I met on Monday", asOf, Asked, d(2026, 3, 9), d(2026, 3, 10)},
		{"What did I book last Thursday?", asOf, Asked, d(2026, 3, 5), d(2026, 3, 6)},
		{"what should I have done last Thursday?", asOf, Asked, d(2026, 3, 5), d(2026, 3, 6)},
		{"what did I have for dinner yesterday", asOf, Asked, d(2026, 3, 10), d(2026, 3, 11)},
		{"notes from 1 February", asOf, Asked, d(2026, 2, 1), d(2026, 2, 2)},
		{"what did we eat on the 3rd?", asOf, Asked, d(2026, 3, 3), d(2026, 3, 4)},
		{"I went to see the physio on Monday, what did she say?", asOf, Asked, d(2026, 3, 9), d(2026, 3, 10)},
		{"What was decided at the meeting on Monday?", asOf, Asked, d(2026, 3, 9), d(2026, 3, 10)},
		{"Were there any deliveries on Friday?", asOf, Asked, d(2026, 3, 6), d(2026, 3, 7)},
		{"what trips did I take in April", asOf, Asked, d(2025, 4, 1), d(2025, 5, 1)},
		// A past date with its year was no plan's, whatever the verbs.
		{"What is Nate creating for YouTube on 9 November, 2022?", asOf, Asked, d(2022, 11, 9), d(2022, 11, 10)},
		{"What did Maria plan to do on the evening of 7 July, 2023?", asOf, Asked, d(2023, 7, 7), d(2023, 7, 8)},
		{"what did I do this Friday", saturday, Asked, d(2026, 3, 13), d(2026, 3, 14)},
		{"this Friday", saturday, Asked, d(2026, 3, 13), d(2026, 3, 14)},
		{"what did I get done in the last 3 days", asOf, Asked, d(2026, 3, 8), d(2026, 3, 12)},
		{"what is the name of the cafe we went to two weeks ago", asOf, Asked, d(2026, 2, 22), d(2026, 3, 1)},
		// Bounds, ahead in a question about what is to come.
		{"where did Bob live as of March", asOf, Bounds, time.Time{}, d(2026, 4, 1)},
		{"what changed since Monday", asOf, Bounds, d(2026, 3, 9), time.Time{}},
		{"what had we decided by the end of February", asOf, Bounds, time.Time{}, d(2026, 3, 1)},
		{"what did we spend before the 1st?", asOf, Bounds, time.Time{}, d(2026, 3, 1)},
		{"what must I send by Friday?", asOf, Bounds, time.Time{}, d(2026, 3, 14)},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			r := Parse(c.q, c.asOf, nil)
			from, to := r.From, r.To
			if c.role == Bounds {
				from, to = r.Since, r.Until
			}
			if r.Role != c.role || !from.Equal(c.from) || !to.Equal(c.to) {
				t.Errorf("Parse(%q) = %s [%s, %s) (phrase %q); want %s [%s, %s)", c.q, r.Role,
					from.Format(time.DateOnly), to.Format(time.DateOnly), r.Phrase,
					c.role, c.from.Format(time.DateOnly), c.to.Format(time.DateOnly))
			}
			if r.AsksTime() != (c.role == Asked) {
				t.Errorf("Parse(%q).AsksTime() = %v with role %s", c.q, r.AsksTime(), r.Role)
			}
		})
	}
}

func TestAsksPast(t *testing.T) {
	for q, want := range map[string]bool{
		"What tattoo did I get done on my wrist?":  true,
		"Which climbing wall have I been to?":      true,
		"Where was the wedding fair held?":         true,
		"Who painted the hallway?":                 true,
		"What tattoo do I want next?":              false,
		"Which climbing wall should I try?":        false,
		"Where is the wedding fair?":               false,
		"Can you tell me what I bought yesterday?": true,
	} {
		if got := AsksPast(q); got != want {
			t.Errorf("AsksPast(%q) = %v, want %v", q, got, want)
		}
	}
}
