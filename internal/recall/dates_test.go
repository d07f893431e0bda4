package recall

import (
	"strings"
	"testing"
	"time"
)

// A plan's weekday ("book the vet for Thursday") filters nothing: the
// standing instruction stored weeks before is offered, though last
// Thursday's notes share the question's words. A question about that
// Thursday still filters.
func TestPlanDayFiltersNothing(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.DateTime, s); return tm }
	a := agentWith(t, []turn{
		{at("2026-02-02 19:10:00"), "pets", "user", "Never book Biscuit in at the vet on a Thursday, that is Dr Marsh's day.", nil},
		{at("2026-03-12 08:40:00"), "day", "user", "Booked the car in at Kwik Fit for a service.", nil},
		{at("2026-03-12 18:15:00"), "day", "user", "Biscuit had his dinner late tonight.", nil},
	})
	asOf := at("2026-03-16 09:00:00") // a Monday
	for _, c := range []struct {
		q           string
		want, never []string
	}{
		{"Is it all right to book Biscuit in at the vet for Thursday?", []string{"Dr Marsh"}, nil},
		{"Should I book Biscuit in at the vet on Thursday?", []string{"Dr Marsh"}, nil},
		{"What did I book on Thursday?", []string{"Kwik Fit"}, []string{"Dr Marsh"}},
	} {
		expectContext(t, a, Query{Text: c.q, AsOf: asOf}, c.want, c.never)
	}
}

// expectContext recalls q from a with the default engine and checks that
// the context holds each of want and none of never.
func expectContext(t *testing.T, a Searcher, q Query, want, never []string) {
	t.Helper()
	res, err := (&Engine{}).Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(res.Context, w) {
			t.Errorf("%q: context lacks %q:\n%s", q.Text, w, res.Context)
		}
	}
	for _, w := range never {
		if strings.Contains(res.Context, w) {
			t.Errorf("%q: context holds %q:\n%s", q.Text, w, res.Context)
		}
	}
}

// A memory naming a plan's day ranks above one that does not and is
// otherwise as good, newer though that one is.
func TestPlanDayLendsScore(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.DateTime, s); return tm }
	a := agentWith(t, []turn{
		{at("2026-02-02 19:10:00"), "pets", "user", "The vet cannot see Biscuit on Thursdays, book another day.", nil},
		{at("2026-02-20 19:10:00"), "pets", "user", "The vet cannot see Biscuit after six, book early.", nil},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "Can I book the vet for Thursday?", AsOf: at("2026-03-16 09:00:00")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) < 2 || res.Items[0].ID != "memory:1" {
		t.Errorf("items %v; want memory:1 (names Thursday) first:\n%s", ids(res.Items), res.Context)
	}
}

// A month means that month and "N weeks ago" a window around that day:
// what was said after the range is inside only when it tells of a time
// within it ("last week we went…").
func TestRangeReachesOnlyByWhatIsToldOfIt(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.DateTime, s); return tm }
	a := agentWith(t, []turn{
		{at("2026-06-03 19:00:00"), "a", "user", "Went to the open-air concert in the park with the choir.", nil},
		{at("2026-06-24 19:00:00"), "b", "user", "The jazz concert at the Lantern was loud but fun.", nil},
		{at("2026-07-02 19:00:00"), "c", "user", "Booked tickets and went to a concert at the cathedral tonight.", nil},
		{at("2026-07-03 09:00:00"), "d", "user", "Last week we saw a brass band concert on the pier, 27 June.", nil},
		{at("2026-07-20 18:00:00"), "e", "user", "Went to the folk concert at the town hall.", nil},
		{at("2026-07-30 18:00:00"), "f", "user", "Went to a choir concert at the school.", nil},
	})
	expectContext(t, a, Query{Text: "Which concerts did I go to in June?", AsOf: at("2026-08-10 09:00:00")},
		[]string{"open-air", "jazz", "brass band"}, []string{"cathedral", "folk", "school"})
	// 10 August less three weeks is 20 July, give or take three days.
	expectContext(t, a, Query{Text: "Which concert did I go to three weeks ago?", AsOf: at("2026-08-10 09:00:00")},
		[]string{"folk"}, []string{"school", "cathedral"})
}

// A time named by the calendar or a count back is meant as said: when
// something was said then, an item from another time that shares the
// question's words is left out, though nothing said then holds them ("saw"
// is not "see"); a weekday, said loosely, leaves them in.
func TestCalendarRangeHeldLeavesOtherTimesOut(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.DateTime, s); return tm }
	a := agentWith(t, []turn{
		{at("2026-09-10 20:00:00"), "a", "user", "Went to see a musical at the Palace, long but good.", nil},
		{at("2026-10-15 21:00:00"), "b", "user", "Saw Conclave at the Picturehouse with Dorothea.", nil},
		{at("2026-11-12 20:30:00"), "c", "user", "Went to see The Brutalist at the Curzon, needed the interval.", nil},
	})
	asOf := at("2026-11-20 09:00:00")
	expectContext(t, a, Query{Text: "What did I go to see five weeks ago?", AsOf: asOf},
		[]string{"Conclave"}, []string{"Brutalist", "musical"})
	expectContext(t, a, Query{Text: "What did I go to see in October?", AsOf: asOf},
		[]string{"Conclave"}, []string{"Brutalist", "musical"})
	expectContext(t, a, Query{Text: "What did I go to see on Thursday?", AsOf: asOf},
		[]string{"Brutalist"}, nil)
}

// What was said before the range is inside when it tells of a time
// within it ("planning a camping trip next month", said in August, is
// September's); what was merely said then, or after, is not.
func TestRangeReachesWhatWasPlannedForIt(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.DateTime, s); return tm }
	a := agentWith(t, []turn{
		{at("2026-08-04 19:00:00"), "a", "Tim", "Went on a trip to the coast with the cycling club.", nil},
		{at("2026-08-28 19:00:00"), "b", "Tim", "Planning a camping trip to the lakes next month.", nil},
		{at("2026-09-12 19:00:00"), "c", "Tim", "Back from a work trip, the car needs its MOT.", nil},
		{at("2026-10-20 19:00:00"), "d", "Tim", "Thinking about a trip to the mountains next year.", nil},
	})
	for _, q := range []string{"Which trips was Tim on in September?", "Where was Tim's trip in September?"} {
		expectContext(t, a, Query{Text: q, AsOf: at("2026-11-10 09:00:00")},
			[]string{"camping", "work trip"}, []string{"coast", "mountains"})
	}
}

// TestWeekdayWithPluralDayPart: "Sunday mornings" is every Sunday, not
// the last one: the memory naming the day is found, whenever it was said,
// and the last Sunday's other news is not the answer.
func TestWeekdayWithPluralDayPart(t *testing.T) {
	day0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC) // a Wednesday
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "The Sunday car boot sale at the racecourse is my weekly treat."},
		{at: day0.Add(24 * time.Hour), session: "s3", role: "user", content: "The loft hatch sticks in the damp."},
		{at: day0.Add(48 * time.Hour), session: "s4", role: "user", content: "Magda comes on Wednesday mornings now to do the hoovering."},
		{at: day0.Add(72 * time.Hour), session: "s5", role: "user", content: "Booked a villa in Menorca for July."},
		{at: day0.Add(96 * time.Hour), session: "s2", role: "user", content: "Repainted the garden bench sage green."},
		{at: day0.Add(120 * time.Hour), session: "s6", role: "user", content: "The post office queue was out of the door at lunchtime."},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "What do I do on Sunday mornings?", AsOf: day0.Add(8 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || !strings.Contains(res.Context, "car boot") || strings.Contains(res.Context, "bench") {
		t.Errorf("found=%v context=%q; want the car boot sale alone", res.Found, res.Context)
	}
}

// TestPlanForLaterIsNotThatMonths: asked what I did in a month, a plan
// made that month for a later one ("booked tickets for … in June") is no
// answer; asked of a named person, what they were getting ready for then
// is kept.
func TestPlanForLaterIsNotThatMonths(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "c1", role: "user", content: "Saw Idles at the Roundhouse, loud and brilliant concert."},
		{at: day0.Add(7 * 24 * time.Hour), session: "c2", role: "user", content: "Got tickets to see Sleaford Mods in concert in June."},
		{at: day0.Add(40 * 24 * time.Hour), session: "c3", role: "user", content: "Cleared the gutters before the rain."},
	})
	asOf := day0.Add(50 * 24 * time.Hour)
	expectContext(t, a, Query{Text: "Which concerts did I go to in March?", AsOf: asOf}, []string{"Idles"}, []string{"Sleaford"})
	b := agentWith(t, []turn{
		{at: day0.Add(7 * 24 * time.Hour), session: "c4", role: "Ola", content: "Got tickets to see Sleaford Mods in concert in June."},
	})
	expectContext(t, b, Query{Text: "What concert was Ola getting tickets for in March?", AsOf: asOf}, []string{"Sleaford"}, nil)
}

// A question about what someone told may repeat their own relative time:
// "what did Priya finish yesterday?" asks of the day before she said
// "yesterday I finished…", so her turn holding the phrase is inside the
// range, and so is her answer to the other speaker's question about such
// a turn. Asked of the user's own, "yesterday" is the day before the
// question, whatever an old memory says.
func TestSpeakersOwnRelativeTimeIsInside(t *testing.T) {
	at := func(s string) time.Time { tm, _ := time.Parse(time.DateTime, s); return tm }
	a := agentWith(t, []turn{
		{at("2026-03-10 19:00:00"), "s1", "Priya", "Yesterday I finally finished the pottery course and fired a vase!", nil},
		{at("2026-03-10 19:01:00"), "s1", "Tomasz", "Nice one! I got my bike back from the shop.", nil},
		{at("2026-03-10 19:02:00"), "s1", "Priya", "Last summer we drove a camper van around the Highlands on a trip.", nil},
		{at("2026-03-10 19:03:00"), "s1", "Tomasz", "Where did you stop on the way?", nil},
		{at("2026-03-10 19:04:00"), "s1", "Priya", "Skye, the Cairngorms and a week in Applecross.", nil},
		{at("2026-07-14 19:00:00"), "s2", "Priya", "A short work trip to Leeds, nothing to report.", nil},
		{at("2026-11-09 19:00:00"), "s3", "Priya", "I finished the quarterly report at work, what a relief.", nil},
		{at("2026-11-09 19:01:00"), "s3", "Tomasz", "Well done, time for a holiday.", nil},
	})
	asOf := at("2026-11-10 09:00:00")
	expectContext(t, a, Query{Text: "What did Priya finish yesterday?", AsOf: asOf}, []string{"pottery"}, nil)
	expectContext(t, a, Query{Text: "Where did Priya stop on a trip last summer?", AsOf: asOf}, []string{"Applecross"}, nil)

	own := agentWith(t, []turn{
		{at("2026-03-10 19:00:00"), "s1", "user", "Yesterday I finally finished the pottery course and fired a vase!", nil},
		{at("2026-11-09 19:00:00"), "s3", "user", "I finished the quarterly report at work, what a relief.", nil},
	})
	expectContext(t, own, Query{Text: "What did I finish yesterday?", AsOf: asOf}, []string{"quarterly"}, []string{"pottery"})
}
