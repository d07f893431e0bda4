package when

import (
	"strings"
	"testing"
	"time"
)

// asOf is a Wednesday.
var asOf = time.Date(2026, 3, 11, 15, 30, 0, 0, time.UTC)

func d(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }

func TestParse(t *testing.T) {
	cases := []struct {
		q        string
		from, to time.Time
		latest   bool
		rest     string
	}{
		{"what happened on Feb 1 2026", d(2026, 2, 1), d(2026, 2, 2), false, "what happened"},
		{"what happened on Feb 1, 2026?", d(2026, 2, 1), d(2026, 2, 2), false, "what happened ?"},
		{"what did we decide on February 1st 2025", d(2025, 2, 1), d(2025, 2, 2), false, "what did we decide"},
		{"notes from 1 February", d(2026, 2, 1), d(2026, 2, 2), false, "notes"},
		{"what about the 1st of February 2024", d(2024, 2, 1), d(2024, 2, 2), false, "what about the"},
		{"meeting on 2026-02-01", d(2026, 2, 1), d(2026, 2, 2), false, "meeting"},
		{"Dec 25 plans", d(2025, 12, 25), d(2025, 12, 26), false, "plans"},
		{"on March 3", d(2026, 3, 3), d(2026, 3, 4), false, ""},
		{"on March 20", d(2025, 3, 20), d(2025, 3, 21), false, ""},
		{"what did I eat yesterday", d(2026, 3, 10), d(2026, 3, 11), false, "what did I eat"},
		{"what did I eat today", d(2026, 3, 11), d(2026, 3, 12), false, "what did I eat"},
		{"anything earlier today?", d(2026, 3, 11), d(2026, 3, 12), false, "anything ?"},
		{"what did I do this morning", d(2026, 3, 11), d(2026, 3, 12), false, "what did I do"},
		{"what happened last night", d(2026, 3, 10), d(2026, 3, 11), false, "what happened"},
		{"the day before yesterday", d(2026, 3, 9), d(2026, 3, 10), false, ""},
		{"what is planned for tomorrow", d(2026, 3, 12), d(2026, 3, 13), false, "what is planned for"},
		{"what did Bob say last week", d(2026, 3, 2), d(2026, 3, 9), false, "what did Bob say"},
		{"this week's tasks", d(2026, 3, 9), d(2026, 3, 12), false, "'s tasks"},
		{"over the past week", d(2026, 3, 4), d(2026, 3, 12), false, "over the"},
		{"last month", d(2026, 2, 1), d(2026, 3, 1), false, ""},
		{"this month", d(2026, 3, 1), d(2026, 3, 12), false, ""},
		{"last year", d(2025, 1, 1), d(2026, 1, 1), false, ""},
		{"this year", d(2026, 1, 1), d(2026, 3, 12), false, ""},
		{"last weekend", d(2026, 3, 7), d(2026, 3, 9), false, ""},
		{"what did we do the weekend before last?", d(2026, 2, 28), d(2026, 3, 2), false, "what did we do ?"},
		{"who rang the Friday before last", d(2026, 2, 27), d(2026, 2, 28), false, "who rang"},
		{"on the Wednesday before last", d(2026, 2, 25), d(2026, 2, 26), false, ""},
		{"the week before last", d(2026, 2, 23), d(2026, 3, 2), false, ""},
		{"bills from the month before last", d(2026, 1, 1), d(2026, 2, 1), false, "bills"},
		{"the year before last", d(2024, 1, 1), d(2025, 1, 1), false, ""},
		{"the week before last Tuesday", d(2026, 2, 28), d(2026, 3, 11), false, ""},
		{"what did we do two weekends ago", d(2026, 2, 28), d(2026, 3, 2), false, "what did we do"},
		{"3 weekends ago", d(2026, 2, 21), d(2026, 2, 23), false, ""},
		{"what happened in March", d(2026, 3, 1), d(2026, 4, 1), false, "what happened"},
		{"what happened in May", d(2025, 5, 1), d(2025, 6, 1), false, "what happened"},
		{"what happened last March", d(2025, 3, 1), d(2025, 4, 1), false, "what happened"},
		{"in March 2025", d(2025, 3, 1), d(2025, 4, 1), false, ""},
		{"trips in 2024", d(2024, 1, 1), d(2025, 1, 1), false, "trips"},
		{"what did we do last Tuesday", d(2026, 3, 10), d(2026, 3, 11), false, "what did we do"},
		{"last Wednesday", d(2026, 3, 4), d(2026, 3, 5), false, ""},
		{"on Wednesday", d(2026, 3, 11), d(2026, 3, 12), false, ""},
		{"on Friday", d(2026, 3, 6), d(2026, 3, 7), false, ""},
		// a plural part of the day makes the weekday every week's, no one date
		{"where do we go on Sunday afternoons", time.Time{}, time.Time{}, false, "where do we go on Sunday afternoons"},
		{"what is on Wednesday evenings?", time.Time{}, time.Time{}, false, "what is on Wednesday evenings?"},
		{"what did we do last Sunday evenings", d(2026, 3, 8), d(2026, 3, 9), false, "what did we do evenings"},
		{"3 days ago", d(2026, 3, 8), d(2026, 3, 9), false, ""},
		{"two days ago", d(2026, 3, 9), d(2026, 3, 10), false, ""},
		{"a couple of days ago", d(2026, 3, 9), d(2026, 3, 10), false, ""},
		{"a week ago", d(2026, 3, 1), d(2026, 3, 8), false, ""},
		{"two weeks ago", d(2026, 2, 22), d(2026, 3, 1), false, ""},
		{"a fortnight ago", d(2026, 2, 22), d(2026, 3, 1), false, ""},
		{"two fortnights ago", d(2026, 2, 8), d(2026, 2, 15), false, ""},
		{"a month ago", d(2026, 1, 27), d(2026, 2, 27), false, ""},
		{"in the last 3 days", d(2026, 3, 8), d(2026, 3, 12), false, ""},
		{"in the past two weeks", d(2026, 2, 25), d(2026, 3, 12), false, ""},
		{"what did I do in early March", d(2026, 3, 1), d(2026, 3, 11), false, "what did I do"},
		{"plans for mid-May 2025", d(2025, 5, 11), d(2025, 5, 21), false, "plans for"},
		{"at the end of June 2025", d(2025, 6, 21), d(2025, 7, 1), false, ""},
		{"the beginning of February", d(2026, 2, 1), d(2026, 2, 11), false, ""},
		{"where was she during the last week of August 2023?", d(2023, 8, 25), d(2023, 9, 1), false, "where was she ?"},
		{"the first week of February 2026", d(2026, 2, 1), d(2026, 2, 8), false, ""},
		{"what happened towards the end of summer 2023", d(2023, 8, 1), d(2023, 9, 1), false, "what happened towards"},
		{"trips in summer 2023", d(2023, 6, 1), d(2023, 9, 1), false, "trips"},
		{"in the summer of 2024", d(2024, 6, 1), d(2024, 9, 1), false, ""},
		{"last summer", d(2025, 6, 1), d(2025, 9, 1), false, ""},
		{"this winter", d(2025, 12, 1), d(2026, 3, 1), false, ""},
		{"last winter", d(2025, 12, 1), d(2026, 3, 1), false, ""}, // over by 11 March
		{"last summer, in the middle of it", d(2025, 6, 1), d(2025, 9, 1), false, "in the middle of it"},
		{"in the fall", d(2025, 9, 1), d(2025, 12, 1), false, ""},
		{"I took the fall for it", time.Time{}, time.Time{}, false, "I took the fall for it"},
		{"what are we planning for next summer", time.Time{}, time.Time{}, false, "what are we planning for next summer"},
		{"a spring in my step", time.Time{}, time.Time{}, false, "a spring in my step"},
		{"I'll ring you mid-week about the boiler", time.Time{}, time.Time{}, false, "I'll ring you mid-week about the boiler"},
		{"a mid-afternoon nap", time.Time{}, time.Time{}, false, "a mid-afternoon nap"},
		{"plans for mid-summer 2025", d(2025, 7, 1), d(2025, 8, 1), false, "plans for"},
		{"the last meeting with Bob", time.Time{}, time.Time{}, true, "meeting with Bob"},
		{"what was the most recent trip", time.Time{}, time.Time{}, true, "what was the trip"},
		{"tonight", d(2026, 3, 11), d(2026, 3, 12), false, ""},
		{"what about this afternoon", d(2026, 3, 11), d(2026, 3, 12), false, "what about"},
		{"previous week", d(2026, 3, 2), d(2026, 3, 9), false, ""},
		{"over the past month", d(2026, 2, 11), d(2026, 3, 12), false, "over the"},
		{"the past year", d(2025, 3, 11), d(2026, 3, 12), false, "the"},
		{"this weekend", d(2026, 3, 14), d(2026, 3, 16), false, ""},
		{"a few days ago", d(2026, 3, 8), d(2026, 3, 9), false, ""},
		{"couple weeks ago", d(2026, 2, 22), d(2026, 3, 1), false, ""},
		{"two years ago", d(2024, 1, 1), d(2025, 1, 1), false, ""},
		{"previous Friday", d(2026, 3, 6), d(2026, 3, 7), false, ""},
		{"this Wednesday", d(2026, 3, 11), d(2026, 3, 12), false, ""},
		{"during 2025", d(2025, 1, 1), d(2026, 1, 1), false, ""},
		{"notes from Dec 3, 2025", d(2025, 12, 3), d(2025, 12, 4), false, "notes"},
		{"late March", d(2026, 3, 21), d(2026, 4, 1), false, ""},
		{"the middle of May", d(2025, 5, 11), d(2025, 5, 21), false, ""},
		{"the second week of January", d(2026, 1, 8), d(2026, 1, 15), false, ""},
		// a relative time and the date it was said on: the date is the day asked of
		{"what did she finish last Friday on 23 January, 2025?", d(2025, 1, 23), d(2025, 1, 24), false, "what did she finish last Friday ?"},
		{"his writing issue last week, as mentioned on November 6, 2025", d(2025, 11, 6), d(2025, 11, 7), false, "his writing issue last week, as mentioned"},
		{"what did Bob say last week on Monday", d(2026, 3, 2), d(2026, 3, 9), false, "what did Bob say on Monday"},
		{"the latest report", time.Time{}, time.Time{}, true, "report"},
		{"what did I eat most recently", time.Time{}, time.Time{}, true, "what did I eat"},
		{"what may I eat", time.Time{}, time.Time{}, false, "what may I eat"},
		{"I march on", time.Time{}, time.Time{}, false, "I march on"},
		// a month's short form with a possessive is a name: Jan, Dec (short for Declan)
		{"what did Jan's husband make for the party?", time.Time{}, time.Time{}, false, "what did Jan's husband make for the party?"},
		{"where is Dec’s leaving do", time.Time{}, time.Time{}, false, "where is Dec’s leaving do"},
		{"what did we spend in Jan", d(2026, 1, 1), d(2026, 2, 1), false, "what did we spend"},
		{"what is my blood type", time.Time{}, time.Time{}, false, "what is my blood type"},
		{"", time.Time{}, time.Time{}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			r := Parse(c.q, asOf, nil)
			if r.Bounded() {
				t.Errorf("Parse(%q) bounds the question (since %s, until %s); want a range", c.q, r.Since, r.Until)
			}
			if !r.From.Equal(c.from) || !r.To.Equal(c.to) || r.Latest != c.latest || r.Rest != c.rest {
				t.Errorf("Parse(%q) = [%s, %s) latest=%v rest=%q (phrase %q); want [%s, %s) latest=%v rest=%q",
					c.q, r.From.Format(time.DateOnly), r.To.Format(time.DateOnly), r.Latest, r.Rest, r.Phrase,
					c.from.Format(time.DateOnly), c.to.Format(time.DateOnly), c.latest, c.rest)
			}
			if r.Found() != (!c.from.IsZero() || c.latest) {
				t.Errorf("Found() = %v", r.Found())
			}
		})
	}
}

// TestParseBounds: a date that bounds the question ("as of March") is not
// the time it asks about.
func TestParseBounds(t *testing.T) {
	cases := []struct {
		q            string
		since, until time.Time
		rest         string
	}{
		{"How many pets did Andrew have, as of September 2023?", time.Time{}, d(2023, 10, 1), "How many pets did Andrew have, ?"},
		{"how many pets as of December", time.Time{}, d(2026, 1, 1), "how many pets"},
		{"what had we decided by Feb 1", time.Time{}, d(2026, 2, 2), "what had we decided"},
		{"what did I read until last week", time.Time{}, d(2026, 3, 9), "what did I read"},
		{"everything up to yesterday", time.Time{}, d(2026, 3, 11), "everything"},
		{"where did I live before 2024", time.Time{}, d(2024, 1, 1), "where did I live"},
		{"what happened before March 2025", time.Time{}, d(2025, 3, 1), "what happened"},
		{"prior to February 2026", time.Time{}, d(2026, 2, 1), ""},
		{"what changed since March 2025", d(2025, 3, 1), time.Time{}, "what changed"},
		{"what changed since Monday", d(2026, 3, 9), time.Time{}, "what changed"},
		{"anything after last week", d(2026, 3, 9), time.Time{}, "anything"},
		{"trips after 2024", d(2025, 1, 1), time.Time{}, "trips"},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			r := Parse(c.q, asOf, nil)
			if !r.Since.Equal(c.since) || !r.Until.Equal(c.until) || !r.From.IsZero() || !r.To.IsZero() || r.Rest != c.rest {
				t.Errorf("Parse(%q) = since %s until %s range [%s, %s) rest %q; want since %s until %s rest %q",
					c.q, r.Since, r.Until, r.From, r.To, r.Rest, c.since, c.until, c.rest)
			}
			if !r.Found() || !r.Bounded() {
				t.Errorf("Found() = %v, Bounded() = %v; want both", r.Found(), r.Bounded())
			}
		})
	}
	// "The week before" a date names a time again, reaching on to the
	// date: what happened is often told then.
	for _, c := range []struct {
		q        string
		from, to time.Time
	}{
		{"Where was Tim in the week before 16 November 2025?", d(2025, 11, 6), d(2025, 11, 17)},
		{"the puppy she got two weeks before August 11, 2025", d(2025, 7, 25), d(2025, 8, 12)},
		{"what she did the weekend before 4th October, 2025", d(2025, 9, 24), d(2025, 10, 5)},
		{"the day after Feb 1 2026", d(2026, 2, 1), d(2026, 2, 3)},
		{"what was shown on the Sunday before October 25, 2022?", d(2022, 10, 23), d(2022, 10, 24)},
		{"the Friday after 1 March 2026", d(2026, 3, 6), d(2026, 3, 7)},
		{"the Friday before yesterday", d(2026, 3, 6), d(2026, 3, 7)},
		{"two days after Feb 1 2026", d(2026, 2, 1), d(2026, 2, 4)},
		{"the month before March 2025", d(2025, 1, 17), d(2025, 4, 1)},
	} {
		r := Parse(c.q, asOf, nil)
		if !r.From.Equal(c.from) || !r.To.Equal(c.to) || r.Bounded() {
			t.Errorf("Parse(%q) = [%s, %s) since %s until %s; want [%s, %s)", c.q, r.From, r.To, r.Since, r.Until, c.from, c.to)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"on Feb 1 2026", "last 3 weeks", "the last meeting", "1st of", "in 2025", "3 days ago",
		"should I book the vet for Thursday?", "by the end of next month", "what did we eat on the 31st", "see you mid-week"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		r := Parse(q, asOf, nil)
		if !r.From.IsZero() && !r.To.After(r.From) {
			t.Fatalf("Parse(%q): empty range [%s, %s)", q, r.From, r.To)
		}
		if r.Bounded() && (!r.From.IsZero() || !r.Since.IsZero() && !r.Until.IsZero()) {
			t.Fatalf("Parse(%q): both a range and a bound: %+v", q, r)
		}
		if len(r.Rest) > len(q) {
			t.Fatalf("Parse(%q): rest %q longer than the question", q, r.Rest)
		}
		if (r.Role == Bounds) != r.Bounded() || r.Role == Plan && (r.From.IsZero() || r.AsksTime()) {
			t.Fatalf("Parse(%q): role %s does not fit %+v", q, r.Role, r)
		}
	})
}

// TestNames: the names handed to capture are the ones Parse reads, each as
// the month or weekday it names.
func TestNames(t *testing.T) {
	months := MonthNames()
	if len(months) != 12 {
		t.Fatalf("MonthNames() = %q; want 12", months)
	}
	for k, name := range months {
		if r := Parse("in "+name+" 2025", asOf, nil); r.From.Month() != time.Month(k+1) {
			t.Errorf("MonthNames()[%d] = %q reads as [%s, %s)", k, name, r.From, r.To)
		}
	}
	for _, abbr := range MonthAbbreviations() {
		r := Parse("in "+abbr+" 2025", asOf, nil)
		if r.From.IsZero() || abbr == "may" || !strings.HasPrefix(strings.ToLower(r.From.Month().String()), abbr[:3]) {
			t.Errorf("abbreviation %q reads as [%s, %s)", abbr, r.From, r.To)
		}
	}
	days := WeekdayNames()
	if len(days) != 7 {
		t.Fatalf("WeekdayNames() = %q; want 7", days)
	}
	for k, name := range days {
		if r := Parse("last "+name, asOf, nil); r.From.Weekday() != time.Weekday(k) {
			t.Errorf("WeekdayNames()[%d] = %q reads as %s", k, name, r.From)
		}
	}
}

// TestCalendar: a month or a count back names its time as said; a weekday
// or a relative word alone does not.
func TestCalendar(t *testing.T) {
	for q, want := range map[string]bool{
		"which galleries did I visit in February?":  true,
		"what did we cook in March 2025":            true,
		"what film did I see about five weeks ago?": true,
		"what did I do a couple of days ago":        true,
		"find me a train on Friday":                 false,
		"what did Bob say last week":                false,
		"what did I eat yesterday":                  false,
		"how is the garden":                         false,
	} {
		if got := Parse(q, asOf, nil).Calendar(); got != want {
			t.Errorf("Parse(%q).Calendar() = %v, want %v", q, got, want)
		}
	}
}

// TestParseEndsAtTheClause: a time phrase followed by punctuation or by a
// clause of its own is read; the word after it is no noun of its phrase
// and no day of its month.
func TestParseEndsAtTheClause(t *testing.T) {
	cases := []struct {
		q        string
		from, to time.Time
	}{
		{"cousin's wedding in Porto next month, hotel sorted.", d(2026, 4, 1), d(2026, 5, 1)},
		{"dentist next week; appointment confirmed", d(2026, 3, 16), d(2026, 3, 23)},
		{"new boiler last month - engineer was quick", d(2026, 2, 1), d(2026, 3, 1)},
		{"half marathon last weekend. Legs sore", d(2026, 3, 7), d(2026, 3, 9)},
		{"a leak last week: plumber came round", d(2026, 3, 2), d(2026, 3, 9)},
		{"skiing last year (never again)", d(2025, 1, 1), d(2026, 1, 1)},
		{"next week the kitchen fitters arrive", d(2026, 3, 16), d(2026, 3, 23)},
		{"last month our landlord raised the rent", d(2026, 2, 1), d(2026, 3, 1)},
		{"last year Priya ran the London marathon", d(2025, 1, 1), d(2026, 1, 1)},
		{"last year's tax return", d(2025, 1, 1), d(2026, 1, 1)},
		{"we are away next weekend so the cat needs feeding", d(2026, 3, 21), d(2026, 3, 23)},
		{"moved flats in October, 4 of us sharing", d(2025, 10, 1), d(2025, 11, 1)},
		{"on the 3rd, October was wet", d(2026, 3, 3), d(2026, 3, 4)},
		{"she flew out on October 4, 2025", d(2025, 10, 4), d(2025, 10, 5)},
		{"the weekend before 10 April", d(2025, 3, 31), d(2025, 4, 11)},
	}
	for _, c := range cases {
		r := Parse(c.q, asOf, time.UTC)
		if !r.From.Equal(c.from) || !r.To.Equal(c.to) {
			t.Errorf("Parse(%q) = [%s, %s) %q, want [%s, %s)", c.q, r.From.Format(time.DateOnly), r.To.Format(time.DateOnly), r.Phrase,
				c.from.Format(time.DateOnly), c.to.Format(time.DateOnly))
		}
	}
	// A noun of the phrase's own still keeps it from reading as a date.
	for _, q := range []string{"the last week meeting notes", "next year budget"} {
		if r := Parse(q, asOf, time.UTC); !r.From.IsZero() {
			t.Errorf("Parse(%q) read %q as a date", q, r.Phrase)
		}
	}
}
