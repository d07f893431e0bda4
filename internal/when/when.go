// Package when finds the date or date range a question asks about ("on Feb
// 1 2026", "yesterday", "last week", "in March", "last Tuesday", "3 days
// ago"), relative to the time the question is asked, and the words left
// once that phrase is taken out.
package when

import (
	"maps"
	"slices"
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
//
// Role says what the phrase does (see roleOf): the time asked about, a
// bound, or the day of a plan ("can I book the vet for Thursday?"), whose
// From and To are that day, read ahead of the question ("Thursday" is the
// coming one), and which asks about no time.
type Range struct {
	From, To     time.Time
	Since, Until time.Time
	Latest       bool
	Role         Role
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
// without asking about when, and a plan's day is when something will be
// done, not when what answers was said.
func (r Range) AsksTime() bool { return !r.From.IsZero() && r.Role != Plan || r.Latest }

// Bounded reports whether the question only bounds the time it asks about.
func (r Range) Bounded() bool { return !r.Since.IsZero() || !r.Until.IsZero() }

// months and weekdays are the names Parse reads, full (as the time package
// spells them, lowercase) and short; capture reads the same tables.
var (
	monthAbbreviations = map[string]time.Month{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
		"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	}
	weekdayAbbreviations = map[string]time.Weekday{
		"sun": 0, "mon": 1, "tue": 2, "tues": 2, "wed": 3, "thu": 4, "thur": 4, "thurs": 4, "fri": 5, "sat": 6,
	}
	months   = withFullNames(monthAbbreviations, time.January, time.December)
	weekdays = withFullNames(weekdayAbbreviations, time.Sunday, time.Saturday)
)

// withFullNames is short, with the full name of every value from first to
// last added.
func withFullNames[V calendarName](short map[string]V, first, last V) map[string]V {
	m := maps.Clone(short)
	for v := first; v <= last; v++ {
		m[strings.ToLower(v.String())] = v
	}
	return m
}

// calendarName is a month or a weekday: a number the time package names.
type calendarName interface {
	time.Month | time.Weekday
	String() string
}

// MonthNames are the months' full names, lowercase, January first.
func MonthNames() []string { return fullNames(time.January, time.December) }

// WeekdayNames are the weekdays' full names, lowercase, Sunday first.
func WeekdayNames() []string { return fullNames(time.Sunday, time.Saturday) }

// MonthAbbreviations are the short month names Parse reads, sorted ("may" is
// a full name, so not among them).
func MonthAbbreviations() []string { return slices.Sorted(maps.Keys(monthAbbreviations)) }

func fullNames[V calendarName](first, last V) []string {
	var out []string
	for v := first; v <= last; v++ {
		out = append(out, strings.ToLower(v.String()))
	}
	return out
}

var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3,
}

type tok struct {
	w          string // lowercased, ordinal suffix and trailing punctuation removed
	start, end int    // byte offsets in the question
	runsOn     bool   // the next word follows with no punctuation between
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
		if strings.IndexFunc(w, isWordRune) >= 0 { // a lone "-" is punctuation
			out = append(out, tok{w: w, start: start, end: i})
		}
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
	for k := 1; k < len(out); k++ {
		prev := out[k-1]
		gap := q[prev.end:out[k].start]
		out[k-1].runsOn = strings.Trim(gap, " '’") == "" && !strings.ContainsAny(q[prev.end-1:prev.end], ".,")
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// next is the word after word i in the same clause: "" when punctuation
// ends the phrase there ("next month, flights booked" has no "month flights").
func (ts toks) next(i int) string {
	if i >= 0 && i < len(ts) && ts[i].runsOn {
		return ts.at(i + 1)
	}
	return ""
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
// asOf's own location), and the role it plays (see Role).
func Parse(q string, asOf time.Time, loc *time.Location) Range {
	p := newParser(q, asOf, loc)
	i, r, ok := p.first()
	if !ok {
		return Range{Rest: q}
	}
	if j, d, ok := p.onDateAfter(i, r); ok {
		i, r = j, d
	}
	return p.withRole(i, r)
}

// onDateAfter is the day of the calendar (a date: it holds a number)
// said "on" after r, a time relative to today: "what did she finish last Friday on 23
// January?", "his writing issue last week, as mentioned on November 6"
// ask of that day, not of the Friday or the week before today.
func (p *parser) onDateAfter(i int, r Range) (int, Range, bool) {
	if r.Calendar() || r.From.IsZero() {
		return 0, Range{}, false
	}
	for j := i + 1; j < len(p.ts); j++ {
		if p.at(j-1) != "on" {
			continue
		}
		if d, ok := p.readAt(j); ok && strings.ContainsAny(d.Phrase, "0123456789") && d.To.Sub(d.From) <= 24*time.Hour {
			return j, d, true
		}
	}
	return 0, Range{}, false
}

// first is the first date phrase of the question, read at word i.
func (p *parser) first() (i int, r Range, ok bool) {
	for i := range p.ts {
		if r, ok := p.readAt(i); ok {
			return i, r, true
		}
	}
	return 0, Range{}, false
}

// sub reads the first date phrase of q, a part of p's question ("the end
// of" reads what follows it), as p reads: from the same day, in the same
// direction, its role left to the whole question's.
func (p *parser) sub(q string) Range {
	sp := newParser(q, p.asOf, p.loc)
	sp.ahead = p.ahead
	if _, r, ok := sp.first(); ok {
		return r
	}
	return Range{Rest: q}
}

// withRole is r, the phrase read at word i, with its role; a plan, and a
// bound in a question about what is to come ("what must I send by
// Friday?"), read again ahead.
func (p *parser) withRole(i int, r Range) Range {
	k0 := firstWord(p.ts, i, p.q, r.Phrase)
	k1 := k0 + len(tokens(r.Phrase))
	ahead := func() Range { return p.readAhead(i, r) }
	role := p.roleOf(r, ahead, k0, k1)
	if !p.ahead && (role == Plan || role == Bounds && p.questionTense(k0, k1) == future) {
		r = ahead()
	}
	r.Role = role
	return r
}

// readAhead is the phrase at word i read ahead of today, or r, as read,
// when it no longer reads.
func (p *parser) readAhead(i int, r Range) Range {
	was := p.ahead
	p.ahead = true
	defer func() { p.ahead = was }()
	if again, ok := p.readAt(i); ok {
		return again
	}
	return r
}

// firstWord is the index of the word phrase starts at, found from word i
// back (a phrase takes the preposition or bound before the word it was
// read at).
func firstWord(ts toks, i int, q, phrase string) int {
	for k := min(i, len(ts)-1); k >= 0; k-- {
		if strings.HasPrefix(q[ts[k].start:], phrase) {
			return k
		}
	}
	return i
}

// readAt reads a date phrase starting at word i: the kinds of phrase are
// tried in this order, and the first that reads one wins.
func (p *parser) readAt(i int) (Range, bool) {
	for _, read := range [...]func(p *parser, i int) (Range, bool){
		(*parser).namedDay,
		(*parser).holiday,
		(*parser).beforeLast,
		(*parser).lastPeriod,
		(*parser).thisPeriod,
		(*parser).nextPeriod,
		(*parser).lastCount,
		(*parser).ago,
		(*parser).partOfMonth,
		(*parser).season,
		(*parser).weekday,
		(*parser).month,
		(*parser).dayThenMonth,
		(*parser).theOrdinal,
		(*parser).isoDate,
		(*parser).bareYear,
		(*parser).latest,
	} {
		if r, ok := read(p, i); ok {
			return r, true
		}
	}
	return Range{}, false
}

// parser is one question being read, with the day it is asked on.
type parser struct {
	q     string
	ts    toks
	asOf  time.Time
	loc   *time.Location
	today time.Time // midnight of asOf's day in loc
	ahead bool      // read an unmarked day or month ahead of today (a plan's)
}

func newParser(q string, asOf time.Time, loc *time.Location) *parser {
	if loc == nil {
		loc = asOf.Location()
	}
	now := asOf.In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	return &parser{q: q, ts: tokens(q), asOf: asOf, loc: loc, today: today}
}

func (p *parser) at(i int) string { return p.ts.at(i) }

// next is the word after word i in the same clause.
func (p *parser) next(i int) string { return p.ts.next(i) }

// spells reports whether the words from i on are words.
func (p *parser) spells(i int, words ...string) bool {
	for k, w := range words {
		if p.at(i+k) != w {
			return false
		}
	}
	return true
}

func (p *parser) date(y int, m time.Month, d int) time.Time {
	return time.Date(y, m, d, 0, 0, 0, 0, p.loc)
}

// done is the phrase of words i to j naming [from, to), taking a leading
// preposition with it and reading the words before as a bound.
func (p *parser) done(i, j int, from, to time.Time) (Range, bool) {
	for i > 0 && (p.at(i-1) == "on" || p.at(i-1) == "in" || p.at(i-1) == "during" || p.at(i-1) == "from" ||
		p.at(i-1) == "of" && p.at(i-2) != "as") {
		i--
	}
	i, r := bound(p.ts, i, Range{From: from, To: to})
	s, e := p.ts[i].start, p.ts[j-1].end
	r.Phrase, r.Rest = p.q[s:e], without(p.q, s, e)
	return r, true
}

// oneDay is done for the day that starts at t.
func (p *parser) oneDay(i, j int, t time.Time) (Range, bool) {
	return p.done(i, j, t, t.AddDate(0, 0, 1))
}

// without is q with q[s:e] taken out and its spaces made single.
func without(q string, s, e int) string {
	return strings.Join(strings.Fields(q[:s]+" "+q[e:]), " ")
}

// namedDays are the phrases that name a day by how far it is from today.
var namedDays = []struct {
	words  []string
	offset int
}{
	{[]string{"today"}, 0}, {[]string{"earlier", "today"}, 0}, {[]string{"tonight"}, 0},
	{[]string{"this", "morning"}, 0}, {[]string{"this", "afternoon"}, 0}, {[]string{"this", "evening"}, 0},
	{[]string{"yesterday"}, -1}, {[]string{"last", "night"}, -1},
	{[]string{"the", "day", "before", "yesterday"}, -2}, {[]string{"tomorrow"}, 1},
}

// namedDay reads "today", "last night", "the day before yesterday" and the
// rest of namedDays.
func (p *parser) namedDay(i int) (Range, bool) {
	for _, d := range namedDays {
		if p.spells(i, d.words...) {
			return p.oneDay(i, i+len(d.words), p.today.AddDate(0, 0, d.offset))
		}
	}
	return Range{}, false
}

// period is a calendar unit "this" and "last" name: where the current one
// starts, and how to move a time by n of them.
type period struct {
	start func(today time.Time) time.Time
	step  func(t time.Time, n int) time.Time
}

var periods = map[string]period{
	"week":    {weekStart, func(t time.Time, n int) time.Time { return t.AddDate(0, 0, 7*n) }},
	"weekend": {func(t time.Time) time.Time { return weekStart(t).AddDate(0, 0, 5) }, nil},
	"month": {func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location()) },
		func(t time.Time, n int) time.Time { return t.AddDate(0, n, 0) }},
	"year": {func(t time.Time) time.Time { return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, t.Location()) },
		func(t time.Time, n int) time.Time { return t.AddDate(n, 0, 0) }},
}

// weekStart is the Monday of t's week.
func weekStart(t time.Time) time.Time {
	off := (int(t.Weekday()) + 6) % 7
	return t.AddDate(0, 0, -off)
}

// lastPeriod reads "last week" (the calendar week before this one), "past
// month" (the month up to today), "previous year" and "last weekend".
func (p *parser) lastPeriod(i int) (Range, bool) {
	w, unit := p.at(i), p.at(i+1)
	pd, ok := periods[unit]
	if !isLast(w) || !ok || p.nounAfter(i+1) {
		return Range{}, false
	}
	start := pd.start(p.today)
	switch {
	case unit == "weekend":
		sat := start.AddDate(0, 0, -7)
		return p.done(i, i+2, sat, sat.AddDate(0, 0, 2))
	case w == "past":
		return p.done(i, i+2, pd.step(p.today, -1), p.today.AddDate(0, 0, 1))
	}
	return p.done(i, i+2, pd.step(start, -1), start)
}

// beforeLast reads "the weekend before last", "the week before last", "the
// month before last", "the year before last" and "the Friday before last":
// the one before the last one. "The week before last Tuesday" is left to
// bound, as "last Tuesday" reads as a date.
func (p *parser) beforeLast(i int) (Range, bool) {
	w := p.at(i)
	pd, isPeriod := periods[w]
	if !isPeriod && !isWeekday(w) || !p.spells(i+1, "before", "last") {
		return Range{}, false
	}
	tail := p.q[p.ts[i+2].start:]
	if r := p.sub(tail); r.Phrase != "" && strings.HasPrefix(tail, r.Phrase) {
		return Range{}, false
	}
	last := p.sub("last " + w)
	if last.From.IsZero() {
		return Range{}, false
	}
	from, to := last.From.AddDate(0, 0, -7), last.To.AddDate(0, 0, -7)
	if isPeriod && pd.step != nil {
		from, to = pd.step(last.From, -1), last.From
	}
	i0 := i
	if p.at(i-1) == "the" {
		i0 = i - 1
	}
	return p.done(i0, i+3, from, to)
}

// thisPeriod reads "this week", "this month" and "this year" (up to today;
// read ahead, the whole of it) and "this weekend".
func (p *parser) thisPeriod(i int) (Range, bool) {
	pd, ok := periods[p.at(i+1)]
	if p.at(i) != "this" || !ok {
		return Range{}, false
	}
	start := pd.start(p.today)
	switch {
	case p.at(i+1) == "weekend":
		return p.done(i, i+2, start, start.AddDate(0, 0, 2))
	case p.ahead:
		return p.done(i, i+2, start, pd.step(start, 1))
	}
	return p.done(i, i+2, start, p.today.AddDate(0, 0, 1))
}

// nextPeriod reads "next week", "next weekend", "next month" and "next
// year": the calendar one after this one.
func (p *parser) nextPeriod(i int) (Range, bool) {
	unit := p.at(i + 1)
	pd, ok := periods[unit]
	if p.at(i) != "next" || !ok || p.nounAfter(i+1) {
		return Range{}, false
	}
	if unit == "weekend" {
		sat := pd.start(p.today).AddDate(0, 0, 7)
		return p.done(i, i+2, sat, sat.AddDate(0, 0, 2))
	}
	from := pd.step(pd.start(p.today), 1)
	return p.done(i, i+2, from, pd.step(from, 1))
}

// lastCount reads "(in) the last 3 days", "past two weeks": up to today.
func (p *parser) lastCount(i int) (Range, bool) {
	if !isLast(p.at(i)) || !isCount(p.at(i+1)) || !isUnit(p.at(i+2)) {
		return Range{}, false
	}
	from, j := back(p.today, count(p.at(i+1)), p.at(i+2)), i+3
	if p.at(i-1) == "the" {
		i--
		if p.at(i-1) == "in" || p.at(i-1) == "over" || p.at(i-1) == "during" {
			i--
		}
	}
	return p.done(i, j, from, p.today.AddDate(0, 0, 1))
}

// ago reads "3 days ago", "a couple of weeks ago" and "a few months ago":
// that day, or a span around the date as loose as the unit (slack), or that
// calendar year.
func (p *parser) ago(i int) (Range, bool) {
	var n, j int
	var unit string
	switch w := p.at(i); {
	case isCount(w) && isUnit(p.at(i+1)) && p.at(i+2) == "ago":
		n, unit, j = count(w), p.at(i+1), i+3
	case p.spells(i, "a", "couple", "of") && isUnit(p.at(i+3)) && p.at(i+4) == "ago":
		n, unit, j = 2, p.at(i+3), i+5
	case p.spells(i, "a", "few") && isUnit(p.at(i+2)) && p.at(i+3) == "ago":
		n, unit, j = 3, p.at(i+2), i+4
	case (w == "a" || isCount(w)) && singular(p.at(i+1)) == "fortnight" && p.at(i+2) == "ago":
		n, unit, j = 2*max(1, count(w)), "weeks", i+3 // "a fortnight ago": two weeks
	case isCount(w) && singular(p.at(i+1)) == "weekend" && p.at(i+2) == "ago":
		// "two weekends ago": that weekend, counted back from the last one
		sat := periods["weekend"].start(p.today).AddDate(0, 0, -7*count(w))
		return p.done(i, i+3, sat, sat.AddDate(0, 0, 2))
	default:
		return Range{}, false
	}
	t := back(p.today, n, unit)
	if singular(unit) == "year" {
		return p.done(i, j, p.date(t.Year(), 1, 1), p.date(t.Year()+1, 1, 1))
	}
	s := slack(unit)
	return p.done(i, j, t.AddDate(0, 0, -s), t.AddDate(0, 0, s+1))
}

// season reads "summer 2023", "the summer of 2024", "last winter" and "in the
// fall" (see seasonRange), when the words around make it a time.
func (p *parser) season(i int) (Range, bool) {
	w := p.at(i)
	if season(w) == 0 || !seasonCue(p.at(i-2), p.at(i-1), p.at(i+1), p.at(i+2)) || w == "fall" && isWeekday(p.at(i+1)) {
		return Range{}, false
	}
	r := seasonRange(w, p.at(i-1), p.at(i+1), p.at(i+2), p.today, p.loc)
	named := isYear(p.at(i+1)) || p.at(i+1) == "of" && isYear(p.at(i+2))
	if p.ahead && !named && p.at(i-1) != "last" && !r.To.After(p.today) {
		// Read ahead, "this summer" is the next one not yet over.
		r.From, r.To = r.From.AddDate(1, 0, 0), r.To.AddDate(1, 0, 0)
	}
	i0, j := i, i+1
	switch p.at(i - 1) {
	case "last", "this", "the", "past":
		i0 = i - 1
	}
	if isYear(p.at(i + 1)) {
		j = i + 2
	} else if p.at(i+1) == "of" && isYear(p.at(i+2)) {
		j = i + 3
	}
	return p.done(i0, j, r.From, r.To)
}

// weekday reads "the Friday after 1 March" (weekdayFrom), else "Tuesday",
// "this Tuesday" (the latest one, today included; read ahead, the next
// one, today included), "last Tuesday" (today not included) and "next
// Tuesday" or "this coming Tuesday" (nextWeekday).
func (p *parser) weekday(i int) (Range, bool) {
	w := p.at(i)
	if !isWeekday(w) {
		return Range{}, false
	}
	if r, ok := p.weekdayFrom(i); ok {
		return r, true
	}
	if r, ok := p.nextWeekday(i); ok {
		return r, true
	}
	if everyDayPart[p.at(i+1)] && !isLast(p.at(i-1)) && p.at(i-1) != "this" {
		return Range{}, false // "on Thursday nights": every Thursday, no one day
	}
	i0, strict := i, false
	if isLast(p.at(i - 1)) {
		i0, strict = i-1, true
	}
	if p.at(i-1) == "this" {
		i0 = i - 1
	}
	if p.ahead && !strict {
		return p.oneDay(i0, i+1, p.today.AddDate(0, 0, daysUntil(p.today, weekdays[w])))
	}
	back := (int(p.today.Weekday()) - int(weekdays[w]) + 7) % 7
	if back == 0 && strict {
		back = 7
	}
	return p.oneDay(i0, i+1, p.today.AddDate(0, 0, -back))
}

// everyDayPart are the plural parts of a day: after a weekday, the day of
// every week ("Sunday mornings", "Thursday nights").
var everyDayPart = map[string]bool{"mornings": true, "afternoons": true, "evenings": true, "nights": true, "lunchtimes": true}

// nextWeekday reads "next Tuesday" (the Tuesday of next week, as "next
// week" is the calendar week after this one) and "this coming Tuesday" or
// "the coming Tuesday" (the next one after today).
func (p *parser) nextWeekday(i int) (Range, bool) {
	wd := weekdays[p.at(i)]
	switch {
	case p.at(i-1) == "next":
		monday := weekStart(p.today).AddDate(0, 0, 7)
		return p.oneDay(i-1, i+1, monday.AddDate(0, 0, (int(wd)+6)%7))
	case p.at(i-1) == "coming":
		i0 := i - 1
		if p.at(i-2) == "this" || p.at(i-2) == "the" {
			i0 = i - 2
		}
		return p.oneDay(i0, i+1, p.today.AddDate(0, 0, 1+daysUntil(p.today.AddDate(0, 0, 1), wd)))
	}
	return Range{}, false
}

// daysUntil is how many days from t the next wd is, 0 when t is one.
func daysUntil(t time.Time, wd time.Weekday) int {
	return (int(wd) - int(t.Weekday()) + 7) % 7
}

// month reads "Feb 1 2026", "February 1st, 2026", "Feb 1" (the latest not
// after today), "March 2025", and "last March", "in March" (see
// lastMonthNamed).
func (p *parser) month(i int) (Range, bool) {
	w, prev := p.at(i), p.at(i-1)
	m := months[w]
	cued := m != 0 && (prev == "in" || prev == "last" || prev == "during" || boundWord(prev) || prev == "of" && p.at(i-2) == "as")
	if !isMonth(w, p.next(i)) && !cued || !cued && p.shortNameOwns(i) {
		return Range{}, false
	}
	if d, ok := ordinal(p.next(i)); ok {
		if y, ok := year(p.at(i + 2)); ok {
			return p.oneDay(i, i+3, p.date(y, m, d))
		}
		return p.oneDay(i, i+2, p.dayOfMonth(m, d))
	}
	if y, ok := year(p.at(i + 1)); ok {
		f := p.date(y, m, 1)
		return p.done(i, i+2, f, f.AddDate(0, 1, 0))
	}
	i0, strict := i, false
	if prev == "last" {
		i0, strict = i-1, true
	}
	f := p.lastMonthNamed(m, strict)
	return p.done(i0, i+1, f, f.AddDate(0, 1, 0))
}

// shortNameOwns reports whether word i is a month's short form with a
// possessive (OwnerNotMonth).
func (p *parser) shortNameOwns(i int) bool {
	return OwnerNotMonth(p.q[p.ts[i].start:])
}

// OwnerNotMonth reports whether s opens with a month's short form and a
// possessive: a name ("Jan's husband", "Dec's leaving do"), as a time is
// not said so ("January's bill" is).
func OwnerNotMonth(s string) bool {
	i := strings.IndexAny(s, "'’")
	if i < 0 {
		return false
	}
	_, short := monthAbbreviations[strings.ToLower(s[:i])]
	return short && (strings.HasPrefix(s[i:], "'s") || strings.HasPrefix(s[i:], "’s"))
}

// dayThenMonth reads "1 February" and "1st of February 2026".
func (p *parser) dayThenMonth(i int) (Range, bool) {
	d, ok := ordinal(p.at(i))
	mi := i + 1
	if p.next(i) == "of" {
		mi = i + 2
	}
	if !ok || p.next(mi-1) == "" || !isMonth(p.at(mi), p.at(mi+1)) {
		return Range{}, false
	}
	m := months[p.at(mi)]
	if y, ok := year(p.at(mi + 1)); ok {
		return p.oneDay(i, mi+2, p.date(y, m, d))
	}
	return p.oneDay(i, mi+1, p.dayOfMonth(m, d))
}

// theOrdinal reads "the 14th" and "on the 3rd" alone: that day of this
// month, or of last month when it is still to come (read ahead, the next
// such day, today included). The suffix is needed: "the 3 of us" is no date.
func (p *parser) theOrdinal(i int) (Range, bool) {
	w := p.at(i)
	d, ok := ordinal(w)
	if !ok || p.at(i-1) != "the" || isDigits(w) || p.next(i) == "of" || months[p.next(i)] != 0 {
		return Range{}, false
	}
	step, t := -1, p.date(p.today.Year(), p.today.Month(), 1)
	if p.ahead {
		step = 1
	}
	for range 13 { // a 31st is at most a few months away
		day := t.AddDate(0, 0, d-1)
		if day.Day() == d && (p.ahead && !day.Before(p.today) || !p.ahead && !day.After(p.today)) {
			return p.oneDay(i-1, i+1, day)
		}
		t = t.AddDate(0, step, 0)
	}
	return Range{}, false
}

func isDigits(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// isoDate reads "2026-02-01".
func (p *parser) isoDate(i int) (Range, bool) {
	t, err := time.ParseInLocation(time.DateOnly, p.at(i), p.loc)
	if err != nil {
		return Range{}, false
	}
	return p.oneDay(i, i+1, t)
}

// bareYear reads "in 2024", "during 2024", "before 2024": a year alone is a
// date only after such a word.
func (p *parser) bareYear(i int) (Range, bool) {
	y, ok := year(p.at(i))
	prev := p.at(i - 1)
	if !ok || !(prev == "in" || prev == "during" || prev == "of" || boundWord(prev)) {
		return Range{}, false
	}
	f := p.date(y, 1, 1)
	return p.done(i, i+1, f, f.AddDate(1, 0, 0))
}

// latest reads "the last meeting with Bob", "the most recent trip" and "most
// recently": the newest match is wanted, and the noun stays in the question.
func (p *parser) latest(i int) (Range, bool) {
	w := p.at(i)
	var s, j int
	switch {
	case (w == "last" || w == "latest" || w == "recent" || w == "newest") && p.at(i-1) == "the" && isNoun(p.next(i)):
		s, j = p.ts[i-1].start, i+1
	case w == "most" && (p.at(i+1) == "recent" && isNoun(p.next(i+1)) || p.at(i+1) == "recently"):
		s, j = p.ts[i].start, i+2
	default:
		return Range{}, false
	}
	e := p.ts[j-1].end
	return Range{Latest: true, Phrase: p.q[s:e], Rest: without(p.q, s, e)}, true
}

// lastMonthNamed is the most recent month m that has begun by today (this
// year's if it has, else last year's); strictlyPast skips this month. Read
// ahead, it is the next month m not yet over.
func (p *parser) lastMonthNamed(m time.Month, strictlyPast bool) time.Time {
	y := p.today.Year()
	switch {
	case p.ahead && !strictlyPast:
		if m < p.today.Month() {
			y++
		}
	case m > p.today.Month() || strictlyPast && m == p.today.Month():
		y--
	}
	return p.date(y, m, 1)
}

// dayOfMonth resolves "Feb 1" without a year to the latest such date not
// after today (read ahead, the next not before today).
func (p *parser) dayOfMonth(m time.Month, d int) time.Time {
	t := p.date(p.today.Year(), m, d)
	switch {
	case p.ahead && t.Before(p.today):
		t = t.AddDate(1, 0, 0)
	case !p.ahead && t.After(p.today):
		t = t.AddDate(-1, 0, 0)
	}
	return t
}

// isLast is a word that turns "week" or "Tuesday" into the one before.
func isLast(w string) bool { return w == "last" || w == "past" || w == "previous" }

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
func (p *parser) partOfMonth(i int) (Range, bool) {
	q, ts, at := p.q, p.ts, p.at
	w := at(i)
	cued := w == "early" || w == "mid" || w == "late" || strings.HasPrefix(w, "mid-") ||
		w == "the" && at(i+2) == "of" && partOf(at(i+1)) != "" ||
		w == "the" && at(i+2) == "week" && at(i+3) == "of" && weekOf(at(i+1)) > 0
	if !cued {
		return Range{}, false
	}
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
	if strings.HasPrefix(at(i), "mid-") {
		// "mid-May" is one token. The tail must lose "mid-" whatever follows:
		// "mid-week" read again as "in mid-week …" recursed until the stack
		// overflowed (a fatal error, not a panic), on any text saying it.
		part, tail = "mid", q[ts[i].start+len("mid-"):]
	}
	// Read as "in March" ("March" alone may be a verb).
	r := p.sub("in " + tail)
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
	e := len(q) - len(tail) + len(r.Phrase) - len("in ")
	// "By the end of June" bounds the question as "by June" does.
	k, out := bound(ts, i, Range{From: from, To: end})
	s := ts[k].start
	for _, p := range []string{"in ", "In ", "during ", "at "} {
		if k == i && strings.HasSuffix(q[:s], p) {
			s -= len(p)
		}
	}
	out.Phrase, out.Rest = q[s:e], without(q, s, e)
	return out, true
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
func (p *parser) weekdayFrom(i int) (Range, bool) {
	q, ts, at := p.q, p.ts, p.at
	if at(i+1) != "before" && at(i+1) != "after" || i+2 >= len(ts) {
		return Range{}, false
	}
	tail := q[ts[i+2].start:]
	r := p.sub(tail)
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
	return Range{From: t, To: t.AddDate(0, 0, 1), Phrase: q[s:e], Rest: without(q, s, e)}, true
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
// not a time unit or a function word ("last week she went", "next month's
// trip" start no noun phrase).
func isNoun(w string) bool {
	return w != "" && !isUnit(w) && w != "night" && !functionWords[w]
}

// functionWords are pronouns, determiners, auxiliaries, conjunctions and
// adverbs: words that follow a time phrase in a clause of its own. "before",
// "after", "since" and "until" are not: "last weekend before 10 April" is
// one phrase (bound reads it).
var functionWords = setOf(strings.Fields(`of to and or in on at for with by from about as than
	i me we us you he him she her it they them my our your his its their one s
	the a an this that these those some no every all each both
	am is are was were be been being do does did has have had will would can could should must may might shall
	so but then when while because if though although again too already also just now only
	there here not never still`)...)

// nounAfter says whether word i is followed, in its clause, by a noun of
// its own phrase ("last week meeting"); a capitalised word is a name that
// starts the next clause ("last month Bob got engaged").
func (p *parser) nounAfter(i int) bool {
	w := p.next(i)
	if w == "" || unicode.IsUpper([]rune(p.q[p.ts[i+1].start:])[0]) {
		return false
	}
	return isNoun(w)
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

// Calendar reports whether the phrase names its time by the calendar or by
// a count back: a month ("in June", "March 2025") or "three weeks ago".
// Such a time is meant as said; a weekday alone ("on Friday") may be said
// loosely of the coming one or the last.
func (r Range) Calendar() bool {
	for _, w := range strings.Fields(strings.ToLower(r.Phrase)) {
		if _, ok := months[w]; ok || w == "ago" {
			return true
		}
	}
	return false
}
