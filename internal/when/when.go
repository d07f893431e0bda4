// Package when finds the date or date range a question asks about ("on Feb
// 1 2026", "yesterday", "last week", "in March", "last Tuesday", "3 days
// ago"), relative to the time the question is asked, and the words left
// once that phrase is taken out.
package when

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Range is what a question says about time. From is inclusive, To
// exclusive; both zero when the question names no date. Latest is set for
// "the last meeting with Bob", "most recent", "latest": the newest match is
// wanted.
//
// A date that bounds the question instead of naming its time sets Since
// (inclusive) or Until (exclusive) and leaves From and To zero: "as of
// March", "by March", "until March" and "up to March" end at March's end;
// "before March" and "prior to March" at its start; "since March" starts at
// its start and "after March" at its end. "The week before March 3" names a
// time again: the seven days before it.
type Range struct {
	From, To     time.Time
	Since, Until time.Time
	Latest       bool
	Phrase       string // the words that said it, as found
	Rest         string // the question without them
}

// Found reports whether the question names a date, a range, a bound or
// "latest".
func (r Range) Found() bool {
	return !r.From.IsZero() || r.Latest || !r.Since.IsZero() || !r.Until.IsZero()
}

// AsksTime reports whether the question asks about a time: a date, a range
// or the latest. A bound alone ("as of March") narrows what may answer
// without asking about when.
func (r Range) AsksTime() bool { return !r.From.IsZero() || r.Latest }

// Bounded reports whether the question only bounds the time it asks about.
func (r Range) Bounded() bool { return !r.Since.IsZero() || !r.Until.IsZero() }

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
	"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
	"december": 12, "dec": 12,
}

var weekdays = map[string]time.Weekday{
	"sunday": 0, "sun": 0, "monday": 1, "mon": 1, "tuesday": 2, "tue": 2, "tues": 2,
	"wednesday": 3, "wed": 3, "thursday": 4, "thu": 4, "thur": 4, "thurs": 4, "friday": 5, "fri": 5,
	"saturday": 6, "sat": 6,
}

var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3,
}

type tok struct {
	w          string // lowercased, ordinal suffix and trailing punctuation removed
	start, end int    // byte offsets in the question
}

// toks are a question's words.
type toks []tok

// at is the i-th word, or "" before the first and after the last.
func (ts toks) at(i int) string {
	if i >= 0 && i < len(ts) {
		return ts[i].w
	}
	return ""
}

func tokens(q string) toks {
	var out toks
	start := -1
	flush := func(i int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(q[start:i])
		w = strings.TrimRight(w, ".,")
		out = append(out, tok{w: w, start: start, end: i})
		start = -1
	}
	for i, r := range q {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '/' || (r == '.' || r == ',') && start >= 0 {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(q))
	return out
}

// ordinal reads "1", "1st", "22nd", "3rd", "4th" as a day of the month.
func ordinal(w string) (int, bool) {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		w = strings.TrimSuffix(w, suf)
	}
	n, err := strconv.Atoi(w)
	if err != nil || n < 1 || n > 31 {
		return 0, false
	}
	return n, true
}

func year(w string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(w, "'"))
	if err != nil || len(w) != 4 || n < 1900 || n > 2200 {
		return 0, false
	}
	return n, true
}

// Parse finds the first date phrase in q, relative to asOf in loc (nil is
// asOf's own location).
func Parse(q string, asOf time.Time, loc *time.Location) Range {
	if loc == nil {
		loc = asOf.Location()
	}
	now := asOf.In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	day := func(t time.Time) (time.Time, time.Time) { return t, t.AddDate(0, 0, 1) }
	ts := tokens(q)
	at := ts.at
	done := func(i, j int, from, to time.Time, latest bool) Range {
		// Take a leading preposition with the phrase.
		for i > 0 && (at(i-1) == "on" || at(i-1) == "in" || at(i-1) == "during" || at(i-1) == "from" ||
			at(i-1) == "of" && at(i-2) != "as") {
			i--
		}
		r := Range{From: from, To: to, Latest: latest}
		i, r = bound(ts, i, r)
		s, e := ts[i].start, ts[j-1].end
		r.Phrase, r.Rest = q[s:e], strings.Join(strings.Fields(q[:s]+" "+q[e:]), " ")
		return r
	}
	// lastMonthNamed is the most recent month m that has begun by today
	// (this year's if it has, else last year's).
	lastMonthNamed := func(m time.Month, strictlyPast bool) time.Time {
		y := today.Year()
		if m > today.Month() || strictlyPast && m == today.Month() {
			y--
		}
		return time.Date(y, m, 1, 0, 0, 0, 0, loc)
	}
	// dayOfMonth resolves "Feb 1" without a year to the latest such date
	// not after today.
	dayOfMonth := func(m time.Month, d int) time.Time {
		t := time.Date(today.Year(), m, d, 0, 0, 0, 0, loc)
		if t.After(today) {
			t = t.AddDate(-1, 0, 0)
		}
		return t
	}
	weekStart := func(t time.Time) time.Time { // Monday
		off := (int(t.Weekday()) + 6) % 7
		return t.AddDate(0, 0, -off)
	}
	for i := 0; i < len(ts); i++ {
		w := at(i)
		switch {
		case w == "today" || w == "tonight" || w == "this" && (at(i+1) == "morning" || at(i+1) == "afternoon" || at(i+1) == "evening"):
			j := i + 1
			if w == "this" {
				j = i + 2
			}
			if w == "today" && i > 0 && at(i-1) == "earlier" {
				i--
			}
			f, t := day(today)
			return done(i, j, f, t, false)
		case w == "yesterday" || w == "last" && at(i+1) == "night":
			j := i + 1
			if w == "last" {
				j = i + 2
			}
			f, t := day(today.AddDate(0, 0, -1))
			return done(i, j, f, t, false)
		case w == "the" && at(i+1) == "day" && at(i+2) == "before" && at(i+3) == "yesterday":
			f, t := day(today.AddDate(0, 0, -2))
			return done(i, i+4, f, t, false)
		case w == "tomorrow":
			f, t := day(today.AddDate(0, 0, 1))
			return done(i, i+1, f, t, false)
		case (w == "last" || w == "past" || w == "previous") && (at(i+1) == "week" || at(i+1) == "month" || at(i+1) == "year" || at(i+1) == "weekend") && !isNoun(at(i+2)):
			switch at(i + 1) {
			case "week":
				f := weekStart(today).AddDate(0, 0, -7)
				if w == "past" {
					return done(i, i+2, today.AddDate(0, 0, -7), today.AddDate(0, 0, 1), false)
				}
				return done(i, i+2, f, f.AddDate(0, 0, 7), false)
			case "weekend":
				sat := weekStart(today).AddDate(0, 0, -2)
				return done(i, i+2, sat, sat.AddDate(0, 0, 2), false)
			case "month":
				f := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, loc).AddDate(0, -1, 0)
				if w == "past" {
					return done(i, i+2, today.AddDate(0, -1, 0), today.AddDate(0, 0, 1), false)
				}
				return done(i, i+2, f, f.AddDate(0, 1, 0), false)
			default:
				f := time.Date(today.Year()-1, 1, 1, 0, 0, 0, 0, loc)
				if w == "past" {
					return done(i, i+2, today.AddDate(-1, 0, 0), today.AddDate(0, 0, 1), false)
				}
				return done(i, i+2, f, f.AddDate(1, 0, 0), false)
			}
		case w == "this" && (at(i+1) == "week" || at(i+1) == "month" || at(i+1) == "year" || at(i+1) == "weekend"):
			end := today.AddDate(0, 0, 1)
			switch at(i + 1) {
			case "week":
				return done(i, i+2, weekStart(today), end, false)
			case "weekend":
				sat := weekStart(today).AddDate(0, 0, 5)
				return done(i, i+2, sat, sat.AddDate(0, 0, 2), false)
			case "month":
				return done(i, i+2, time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, loc), end, false)
			default:
				return done(i, i+2, time.Date(today.Year(), 1, 1, 0, 0, 0, 0, loc), end, false)
			}
		case (w == "last" || w == "past" || w == "previous") && isCount(at(i+1)) && isUnit(at(i+2)):
			n := count(at(i + 1))
			from := back(today, n, at(i+2))
			j := i + 3
			if i > 0 && at(i-1) == "the" {
				i--
				if i > 0 && at(i-1) == "in" || i > 0 && at(i-1) == "over" || i > 0 && at(i-1) == "during" {
					i--
				}
			}
			return done(i, j, from, today.AddDate(0, 0, 1), false)
		case isCount(w) && isUnit(at(i+1)) && at(i+2) == "ago",
			w == "a" && at(i+1) == "couple" && at(i+2) == "of" && isUnit(at(i+3)) && at(i+4) == "ago",
			w == "a" && at(i+1) == "few" && isUnit(at(i+2)) && at(i+3) == "ago":
			n, unit, j := count(w), at(i+1), i+3
			if at(i+1) == "couple" {
				n, unit, j = 2, at(i+3), i+5
			} else if w == "a" && at(i+1) == "few" {
				n, unit, j = 3, at(i+2), i+4
			}
			t := back(today, n, unit)
			switch singular(unit) {
			case "day":
				f, e := day(t)
				return done(i, j, f, e, false)
			case "week":
				return done(i, j, t.AddDate(0, 0, -3), t.AddDate(0, 0, 4), false)
			case "month":
				return done(i, j, t.AddDate(0, 0, -15), t.AddDate(0, 0, 16), false)
			default:
				return done(i, j, time.Date(t.Year(), 1, 1, 0, 0, 0, 0, loc), time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, loc), false)
			}
		case w == "early" || w == "mid" || w == "late" || strings.HasPrefix(w, "mid-") || w == "the" && at(i+2) == "of" && partOf(at(i+1)) != "",
			w == "the" && at(i+2) == "week" && at(i+3) == "of" && weekOf(at(i+1)) > 0:
			if r, ok := partOfMonth(q, ts, i, asOf, loc); ok {
				return r
			}
		case season(w) != 0 && seasonCue(at(i-2), at(i-1), at(i+1), at(i+2)) && !(w == "fall" && isWeekday(at(i+1))):
			r := seasonRange(w, at(i-1), at(i+1), at(i+2), today, loc)
			i0, j := i, i+1
			if at(i-1) == "last" || at(i-1) == "this" || at(i-1) == "the" || at(i-1) == "past" {
				i0 = i - 1
			}
			if isYear(at(i + 1)) {
				j = i + 2
			} else if at(i+1) == "of" && isYear(at(i+2)) {
				j = i + 3
			}
			return done(i0, j, r.From, r.To, false)
		case isWeekday(w):
			if r, ok := weekdayFrom(q, ts, i, asOf, loc); ok {
				return r
			}
			wd := weekdays[w]
			i0 := i
			strict := false
			if i > 0 && (at(i-1) == "last" || at(i-1) == "past" || at(i-1) == "previous") {
				i0, strict = i-1, true
			}
			if i > 0 && at(i-1) == "this" {
				i0 = i - 1
			}
			back := (int(today.Weekday()) - int(wd) + 7) % 7
			if back == 0 && strict {
				back = 7
			}
			f, t := day(today.AddDate(0, 0, -back))
			return done(i0, i+1, f, t, false)
		case isMonth(w, at(i+1)) || months[w] != 0 && (at(i-1) == "in" || at(i-1) == "last" || at(i-1) == "during" ||
			boundWord(at(i-1)) || at(i-1) == "of" && at(i-2) == "as"):
			m := months[w]
			// "Feb 1 2026", "February 1st, 2026", "Feb 1"
			if d, ok := ordinal(at(i + 1)); ok {
				if y, ok := year(at(i + 2)); ok {
					f, t := day(time.Date(y, m, d, 0, 0, 0, 0, loc))
					return done(i, i+3, f, t, false)
				}
				f, t := day(dayOfMonth(m, d))
				return done(i, i+2, f, t, false)
			}
			// "March 2025"
			if y, ok := year(at(i + 1)); ok {
				f := time.Date(y, m, 1, 0, 0, 0, 0, loc)
				return done(i, i+2, f, f.AddDate(0, 1, 0), false)
			}
			// "last March", "in March", "March"
			i0, strict := i, false
			if i > 0 && at(i-1) == "last" {
				i0, strict = i-1, true
			}
			f := lastMonthNamed(m, strict)
			return done(i0, i+1, f, f.AddDate(0, 1, 0), false)
		case ordinalOK(w) && (isMonth(at(i+1), at(i+2)) || at(i+1) == "of" && isMonth(at(i+2), at(i+3))):
			// "1 February", "1st of February 2026"
			d, _ := ordinal(w)
			mi := i + 1
			if at(i+1) == "of" {
				mi = i + 2
			}
			m := months[at(mi)]
			if y, ok := year(at(mi + 1)); ok {
				f, t := day(time.Date(y, m, d, 0, 0, 0, 0, loc))
				return done(i, mi+2, f, t, false)
			}
			f, t := day(dayOfMonth(m, d))
			return done(i, mi+1, f, t, false)
		case isISODate(w):
			t, _ := time.ParseInLocation(time.DateOnly, w, loc)
			f, e := day(t)
			return done(i, i+1, f, e, false)
		case isYear(w) && (at(i-1) == "in" || at(i-1) == "during" || at(i-1) == "of" || boundWord(at(i-1))):
			y, _ := year(w)
			f := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
			return done(i, i+1, f, f.AddDate(1, 0, 0), false)
		case (w == "last" || w == "latest" || w == "recent" || w == "newest") && i > 0 && at(i-1) == "the" && isNoun(at(i+1)),
			w == "most" && at(i+1) == "recent" && isNoun(at(i+2)),
			w == "most" && at(i+1) == "recently":
			// "the last meeting with Bob": keep the noun in the question.
			j := i + 1
			if w == "most" {
				j = i + 2
			}
			s, e := ts[i].start, ts[j-1].end
			if w != "most" {
				s = ts[i-1].start
			}
			rest := strings.Join(strings.Fields(q[:s]+" "+q[e:]), " ")
			return Range{Latest: true, Phrase: q[s:e], Rest: rest}
		}
	}
	return Range{Rest: q}
}

// partOf names the part of a month "the beginning of" and its kin ask for.
func partOf(w string) string {
	switch w {
	case "beginning", "start", "early":
		return "early"
	case "middle", "mid":
		return "mid"
	case "end", "late":
		return "late"
	}
	return ""
}

// weekOf numbers "the first week of" (1 to 4; 5 is the last).
func weekOf(w string) int {
	switch w {
	case "first", "1st":
		return 1
	case "second", "2nd":
		return 2
	case "third", "3rd":
		return 3
	case "fourth", "4th":
		return 4
	case "last", "final":
		return 5
	}
	return 0
}

// partOfMonth reads "early March", "mid-May 2025" (a month's thirds: days
// 1-10, 11-20, 21 on; a season's months), "the end of June", "the first week of
// August 2023" and "the last week of August": the month is whatever Parse
// makes of the words after.
func partOfMonth(q string, ts toks, i int, asOf time.Time, loc *time.Location) (Range, bool) {
	at := ts.at
	part, week, k := "", 0, i+1
	switch {
	case strings.HasPrefix(at(i), "mid-"):
		k = i
	case at(i) == "the" && at(i+2) == "week":
		week, k = weekOf(at(i+1)), i+4
	case at(i) == "the":
		part, k = partOf(at(i+1)), i+3
	default:
		part = at(i)
	}
	if k >= len(ts) {
		return Range{}, false
	}
	tail := q[ts[k].start:]
	if m, ok := strings.CutPrefix(at(i), "mid-"); ok && months[m] != 0 {
		part, tail = "mid", q[ts[i].start+len("mid-"):] // "mid-May" is one token
	}
	// Read as "in March" ("March" alone may be a verb).
	r := Parse("in "+tail, asOf, loc)
	if r.From.IsZero() || !strings.HasPrefix("in "+tail, r.Phrase) || len(r.Phrase) <= len("in ") ||
		r.To.Sub(r.From) < 27*24*time.Hour {
		return Range{}, false
	}
	from, end := r.From, r.To
	step := func(t time.Time, n int) time.Time { return t.AddDate(0, 0, 10*n) } // a month's thirds
	if end.Sub(from) > 60*24*time.Hour {
		step = func(t time.Time, n int) time.Time { return t.AddDate(0, n, 0) } // a season's months
	}
	switch {
	case week == 5:
		from = end.AddDate(0, 0, -7)
	case week > 0:
		from = from.AddDate(0, 0, 7*(week-1))
		end = from.AddDate(0, 0, 7)
	case part == "early":
		end = step(from, 1)
	case part == "mid":
		from, end = step(from, 1), step(from, 2)
	default:
		from = step(from, 2)
	}
	s, e := ts[i].start, len(q)-len(tail)+len(r.Phrase)-len("in ")
	for _, p := range []string{"in ", "In ", "during ", "at "} {
		if strings.HasSuffix(q[:s], p) {
			s -= len(p)
		}
	}
	return Range{From: from, To: end, Phrase: q[s:e], Rest: strings.Join(strings.Fields(q[:s]+" "+q[e:]), " ")}, true
}

// season numbers the seasons (meteorological, northern hemisphere: winter
// is December to February).
func season(w string) int {
	switch w {
	case "spring":
		return 3
	case "summer":
		return 6
	case "autumn", "fall":
		return 9
	case "winter":
		return 12
	}
	return 0
}

// seasonCue says whether the words around a season's name make it a time:
// a year after it, or "last", "this", "in", "during" before it ("the fall"
// alone may be a tumble).
func seasonCue(before2, before, next, next2 string) bool {
	switch {
	case isYear(next), next == "of" && isYear(next2):
		return true
	case before == "last" || before == "this" || before == "in" || before == "during" || before == "past":
		return true
	case before == "the":
		return before2 == "in" || before2 == "during" || before2 == "over" || before2 == "all"
	}
	return false
}

// seasonRange resolves "summer 2023", "the summer of 2023", "last winter",
// "this spring" and "in the fall": with a year, that year's (winter 2023 is
// the one that begins in December 2023); "last", the latest one over before
// today; otherwise the latest one begun by today.
func seasonRange(w, before, next, next2 string, today time.Time, loc *time.Location) Range {
	m := time.Month(season(w))
	start := func(y int) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, loc) }
	if y, ok := year(next); ok {
		return Range{From: start(y), To: start(y).AddDate(0, 3, 0)}
	}
	if y, ok := year(next2); ok && next == "of" {
		return Range{From: start(y), To: start(y).AddDate(0, 3, 0)}
	}
	f := start(today.Year())
	for f.After(today) {
		f = f.AddDate(-1, 0, 0)
	}
	if before == "last" && !f.AddDate(0, 3, 0).Before(today) {
		f = f.AddDate(-1, 0, 0)
	}
	return Range{From: f, To: f.AddDate(0, 3, 0)}
}

// weekdayFrom reads "the Sunday before October 25, 2022" and "the Friday
// after 1 March": that weekday, counted from the date that follows.
func weekdayFrom(q string, ts toks, i int, asOf time.Time, loc *time.Location) (Range, bool) {
	at := ts.at
	if at(i+1) != "before" && at(i+1) != "after" || i+2 >= len(ts) {
		return Range{}, false
	}
	tail := q[ts[i+2].start:]
	r := Parse(tail, asOf, loc)
	if r.From.IsZero() || r.Phrase == "" || !strings.HasPrefix(tail, r.Phrase) {
		return Range{}, false
	}
	wd, step, t := weekdays[at(i)], -1, r.From
	if at(i+1) == "after" {
		step, t = 1, r.To.AddDate(0, 0, -1)
	}
	t = t.AddDate(0, 0, step)
	for t.Weekday() != wd {
		t = t.AddDate(0, 0, step)
	}
	s := ts[i].start
	if at(i-1) == "the" {
		s = ts[i-1].start
	}
	for _, p := range []string{"on ", "On "} {
		if strings.HasSuffix(q[:s], p) {
			s -= len(p)
		}
	}
	e := ts[i+2].start + len(r.Phrase)
	return Range{From: t, To: t.AddDate(0, 0, 1), Phrase: q[s:e], Rest: strings.Join(strings.Fields(q[:s]+" "+q[e:]), " ")}, true
}

// bound reads the words before a date phrase that starts at ts[i]: a date
// that bounds the question rather than naming its time ("as of March",
// "before 2024", "since Monday"; see Range) becomes Since or Until, and the
// phrase then starts at those words.
func bound(ts toks, i int, r Range) (int, Range) {
	at := ts.at
	from, to := r.From, r.To
	if from.IsZero() {
		return i, r
	}
	until := func(k int, t time.Time) (int, Range) { return k, Range{Until: t} }
	since := func(k int, t time.Time) (int, Range) { return k, Range{Since: t} }
	switch w := at(i - 1); {
	case w == "of" && at(i-2) == "as", w == "to" && at(i-2) == "up":
		return until(i-2, to)
	case w == "to" && at(i-2) == "prior":
		return until(i-2, from)
	case w == "by" || w == "until" || w == "till" || w == "through":
		return until(i-1, to)
	case w == "before" && (isUnit(at(i-2)) || at(i-2) == "weekend") &&
		(isCount(at(i-3)) || at(i-3) == "the" || at(i-3) == "last" || at(i-3) == "that"):
		// "two weeks before 11 August", "the weekend before 4 October": a
		// time again, reaching on to the date itself, when what happened
		// then is often told.
		n, unit := 1, at(i-2)
		if isCount(at(i - 3)) {
			n = count(at(i - 3))
		}
		if unit == "weekend" {
			unit = "week"
		}
		return i - 3, Range{From: back(from, n, unit).AddDate(0, 0, -slack(unit)), To: to}
	case w == "after" && isUnit(at(i-2)) && (isCount(at(i-3)) || at(i-3) == "the" || at(i-3) == "a"):
		// "the week after 3 March", "two days after 3 March".
		n := 1
		if isCount(at(i - 3)) {
			n = count(at(i - 3))
		}
		return i - 3, Range{From: from, To: back(to, -n, at(i-2)).AddDate(0, 0, slack(at(i-2)))}
	case w == "before":
		return until(i-1, from)
	case w == "since":
		return since(i-1, from)
	case w == "after":
		return since(i-1, to)
	}
	return i, r
}

// slack is how far either side of a date counted back in unit ("two weeks
// before") its event may lie, as for "two weeks ago".
func slack(unit string) int {
	switch singular(unit) {
	case "day":
		return 0
	case "week":
		return 3
	case "month":
		return 15
	}
	return 183
}

// boundWord is a word that can bound a bare year ("before 2024").
func boundWord(w string) bool {
	switch w {
	case "by", "until", "till", "through", "before", "after", "since":
		return true
	}
	return false
}

func ordinalOK(w string) bool { _, ok := ordinal(w); return ok }

func isYear(w string) bool { _, ok := year(w); return ok }

func isISODate(w string) bool {
	_, err := time.Parse(time.DateOnly, w)
	return err == nil
}

// isMonth says whether w names a month; "may" and "march" only when what
// follows makes them dates ("May 3", "March 2025", end of question) or when
// capitalised words were lost (we see lowercase): "may" as a verb is common,
// so it needs a day or year after it.
func isMonth(w, next string) bool {
	m, ok := months[w]
	if !ok {
		return false
	}
	if w == "may" || w == "mar" || w == "march" {
		return ordinalOK(next) || isYear(next)
	}
	return m != 0
}

func isWeekday(w string) bool {
	_, ok := weekdays[w]
	return ok && len(w) > 3
}

func isCount(w string) bool {
	if _, ok := numberWords[w]; ok {
		return true
	}
	n, err := strconv.Atoi(w)
	return err == nil && n > 0 && n < 10000
}

func count(w string) int {
	if n, ok := numberWords[w]; ok {
		return n
	}
	n, _ := strconv.Atoi(w)
	return n
}

func singular(u string) string { return strings.TrimSuffix(u, "s") }

func isUnit(w string) bool {
	switch singular(w) {
	case "day", "week", "month", "year":
		return true
	}
	return false
}

// isNoun is a guess that w is the noun of "the last meeting": a word that is
// not a time unit or a function word.
func isNoun(w string) bool {
	if w == "" || isUnit(w) || w == "night" {
		return false
	}
	switch w {
	case "of", "to", "and", "or", "in", "on", "at", "for", "with", "is", "was", "i", "we", "you", "one":
		return false
	}
	return true
}

func back(today time.Time, n int, unit string) time.Time {
	switch singular(unit) {
	case "day":
		return today.AddDate(0, 0, -n)
	case "week":
		return today.AddDate(0, 0, -7*n)
	case "month":
		return today.AddDate(0, -n, 0)
	default:
		return today.AddDate(-n, 0, 0)
	}
}
