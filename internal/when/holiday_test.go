package when

import (
	"testing"
	"time"
)

func TestEasterSunday(t *testing.T) {
	for y, want := range map[int]time.Time{
		2024: d(2024, 3, 31), 2025: d(2025, 4, 20), 2026: d(2026, 4, 5), 2027: d(2027, 3, 28),
		2038: d(2038, 4, 25), 2285: d(2285, 3, 22), 1818: d(1818, 3, 22),
	} {
		if got := easterSunday(y, time.UTC); !got.Equal(want) {
			t.Errorf("easterSunday(%d) = %s, want %s", y, got, want)
		}
	}
}

// TestHolidays: a feast's name after a cue is a time or a bound, the
// latest one begun by the question's day; alone, or after "during", it is
// a word.
func TestHolidays(t *testing.T) {
	may := time.Date(2026, 5, 14, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		q                   string
		at                  time.Time
		from, to, since, un time.Time
	}{
		{"what have I spent on the car since Easter?", may, time.Time{}, time.Time{}, d(2026, 4, 3), time.Time{}},
		{"what have I spent on the car since Easter?", asOf, time.Time{}, time.Time{}, d(2025, 4, 18), time.Time{}},
		{"anything booked since Good Friday", may, time.Time{}, time.Time{}, d(2026, 4, 3), time.Time{}},
		{"what did we do over Christmas?", asOf, d(2025, 12, 24), d(2025, 12, 27), time.Time{}, time.Time{}},
		{"who came round on Boxing Day last year", asOf, d(2025, 1, 1), d(2026, 1, 1), time.Time{}, time.Time{}}, // "on" is no cue
		{"what did we do the weekend before Christmas?", asOf, d(2025, 12, 14), d(2025, 12, 27), time.Time{}, time.Time{}},
		{"what costume did Ola wear last Halloween?", asOf, d(2025, 10, 31), d(2025, 11, 1), time.Time{}, time.Time{}},
		{"how much have we saved since the new year?", asOf, time.Time{}, time.Time{}, d(2026, 1, 1), time.Time{}},
		{"what did I buy before Christmas Eve?", asOf, time.Time{}, time.Time{}, time.Time{}, d(2025, 12, 24)},
		{"what tradition does Tim love during Halloween?", asOf, time.Time{}, time.Time{}, time.Time{}, time.Time{}},
		{"what did John say about Easter?", asOf, time.Time{}, time.Time{}, time.Time{}, time.Time{}},
	}
	for _, c := range cases {
		r := Parse(c.q, c.at, nil)
		if !r.From.Equal(c.from) || !r.To.Equal(c.to) || !r.Since.Equal(c.since) || !r.Until.Equal(c.un) {
			t.Errorf("Parse(%q) at %s = [%s, %s) since %s until %s; want [%s, %s) since %s until %s",
				c.q, c.at.Format(time.DateOnly), r.From, r.To, r.Since, r.Until, c.from, c.to, c.since, c.un)
		}
	}
	// Read ahead, a plan's feast is the next one.
	if r := Parse("what should we cook this Christmas?", asOf, nil); r.Role != Plan || !r.From.Equal(d(2026, 12, 24)) {
		t.Errorf("this Christmas, planned: role %s [%s, %s); want a plan from 2026-12-24", r.Role, r.From, r.To)
	}
}
