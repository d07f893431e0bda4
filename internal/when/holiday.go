package when

import "time"

// holidays are the feasts a question may bound or place a time by ("since
// Easter", "the weekend before Christmas", "last Halloween"): each name's
// words and its days in a year.
var holidays = []struct {
	words []string
	days  func(y int, loc *time.Location) (from, to time.Time)
}{
	{[]string{"good", "friday"}, easterDays(-2, -1)},
	{[]string{"easter", "sunday"}, easterDays(0, 1)},
	{[]string{"easter", "monday"}, easterDays(1, 2)},
	{[]string{"easter"}, easterDays(-2, 2)}, // the long weekend, Good Friday to Easter Monday
	{[]string{"christmas", "eve"}, fixedDays(12, 24, 1)},
	{[]string{"christmas", "day"}, fixedDays(12, 25, 1)},
	{[]string{"christmas"}, fixedDays(12, 24, 3)},
	{[]string{"boxing", "day"}, fixedDays(12, 26, 1)},
	{[]string{"new", "year", "s", "eve"}, fixedDays(12, 31, 1)},
	{[]string{"new", "year", "s", "day"}, fixedDays(1, 1, 1)},
	{[]string{"new", "year"}, fixedDays(1, 1, 1)},
	{[]string{"halloween"}, fixedDays(10, 31, 1)},
	{[]string{"bonfire", "night"}, fixedDays(11, 5, 1)},
	{[]string{"valentine", "s", "day"}, fixedDays(2, 14, 1)},
	{[]string{"thanksgiving"}, thanksgiving},
}

// holidayCue is a word before a feast's name that makes it a time: a bound
// ("since Easter"), "last" or "this", "over" or "at". "During Thanksgiving"
// asks of a habit more often than of a date, and a bare name is a topic
// ("what did Tim say about Halloween?").
func holidayCue(w string) bool {
	switch w {
	case "last", "this", "over", "at":
		return true
	}
	return boundWord(w)
}

// holiday reads a feast's name after a cue word: the latest one begun by
// today ("last", one over before today); read ahead, the next not yet over.
func (p *parser) holiday(i int) (Range, bool) {
	k := i
	if p.at(k) == "the" {
		k++
	}
	if !holidayCue(p.at(i - 1)) {
		return Range{}, false
	}
	for _, h := range holidays {
		if !p.spells(k, h.words...) {
			continue
		}
		from, to := p.latestHoliday(h.days, p.at(i-1) == "last")
		i0 := i
		if p.at(i-1) == "last" || p.at(i-1) == "this" {
			i0 = i - 1
		}
		return p.done(i0, k+len(h.words), from, to)
	}
	return Range{}, false
}

// latestHoliday is the days of the feast nearest today in the direction
// read: begun by today (strictly over, when strict), or, read ahead, not
// yet over.
func (p *parser) latestHoliday(days func(int, *time.Location) (time.Time, time.Time), strict bool) (time.Time, time.Time) {
	if p.ahead && !strict {
		for y := p.today.Year() - 1; ; y++ {
			if from, to := days(y, p.loc); to.After(p.today) {
				return from, to
			}
		}
	}
	for y := p.today.Year() + 1; ; y-- {
		if from, to := days(y, p.loc); !from.After(p.today) && (!strict || !to.After(p.today)) {
			return from, to
		}
	}
}

// fixedDays is a feast on the same date every year, n days long.
func fixedDays(m time.Month, d, n int) func(int, *time.Location) (time.Time, time.Time) {
	return func(y int, loc *time.Location) (time.Time, time.Time) {
		from := time.Date(y, m, d, 0, 0, 0, 0, loc)
		return from, from.AddDate(0, 0, n)
	}
}

// easterDays is the days from Easter Sunday's offset from to offset to.
func easterDays(from, to int) func(int, *time.Location) (time.Time, time.Time) {
	return func(y int, loc *time.Location) (time.Time, time.Time) {
		e := easterSunday(y, loc)
		return e.AddDate(0, 0, from), e.AddDate(0, 0, to)
	}
}

// easterSunday is the Western Easter of year y (the anonymous Gregorian
// computus).
func easterSunday(y int, loc *time.Location) time.Time {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Date(y, time.Month(month), day, 0, 0, 0, 0, loc)
}

// thanksgiving is the fourth Thursday of November (the American one).
func thanksgiving(y int, loc *time.Location) (time.Time, time.Time) {
	t := time.Date(y, 11, 1, 0, 0, 0, 0, loc)
	t = t.AddDate(0, 0, daysUntil(t, time.Thursday)+21)
	return t, t.AddDate(0, 0, 1)
}
