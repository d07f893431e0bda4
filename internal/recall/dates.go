package recall

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// The date stages: the memories of the question's date range, the day a
// question about the latest means, and which items its time leaves out.

// hasRange reports whether the question asks about a date range.
func (r *ranker) hasRange() bool { return r.intent.AsksTime() && !r.intent.From.IsZero() }

// planWords are the words of a plan's day ("for Thursday", "next week"):
// no filter (what answers was said before the day, often weeks before),
// but a memory that names the day ("never on a Thursday") weighs as one
// holding a related word does.
func (r *ranker) planWords() []string {
	if r.intent.Role != when.Plan {
		return nil
	}
	return append(text.Terms(r.intent.Phrase), partOfWeek(r.intent)...)
}

// partOfWeek are the words for the part of the week a one-day range falls
// in: a Saturday is at the weekend ("nothing early at weekends"), a
// Tuesday on a weekday.
func partOfWeek(day when.Range) []string {
	if day.From.IsZero() || day.To.Sub(day.From) > 24*time.Hour {
		return nil
	}
	switch day.From.Weekday() {
	case time.Saturday, time.Sunday:
		return []string{"weekend", "weekends"}
	}
	return []string{"weekday", "weekdays"}
}

// dateCandidates takes the memories of the question's date range, most
// important first.
func (r *ranker) dateCandidates(ctx context.Context) error {
	if !r.hasRange() {
		return nil
	}
	o := r.base
	o.Since, o.Until = maxTime(r.since, r.intent.From), minTime(r.until, r.intent.To)
	o.Limit = max(r.k*3, 30)
	hits, err := r.s.MemoriesInRange(ctx, o)
	if err != nil {
		return err
	}
	if len(hits) == 0 && !r.t.NoStrictDates {
		// Nothing stored then: what happened is often told soon after
		// ("yesterday I went bowling"), so the range reaches on by its own
		// length (a week at most), as it does in strictRange when it holds
		// something.
		to := r.intent.To.Add(min(r.intent.To.Sub(r.intent.From), 7*24*time.Hour))
		o.Until = minTime(r.until, to)
		if hits, err = r.s.MemoriesInRange(ctx, o); err != nil {
			return err
		}
		if len(hits) > 0 {
			r.intent.To = to
		}
	}
	if len(hits) == 0 {
		// Nothing then: the phrase was probably not a date to search by
		// ("friends for 4 years"); its words count as words.
		r.intent = when.Range{Rest: r.q.Text}
		r.words = text.Terms(r.q.Text)
	}
	for _, h := range hits {
		c := r.get(h.Hit)
		c.entities = h.Entities
		if !r.lexical() {
			c.ex.Coverage = 1 // the date is the whole question
		}
	}
	return nil
}

// markSpeakersAndRange marks the memories said by a name the question uses
// and those inside its date range.
func (r *ranker) markSpeakersAndRange(context.Context) error {
	if !r.t.NoSpeaker {
		markSpeakers(r.cands, r.voices)
	}
	if !r.hasRange() {
		return nil
	}
	for _, c := range r.cands {
		if r.inRange(c) || r.echoesPhrase(c) {
			c.ex.InRange = 1
		}
	}
	return nil
}

// inRange reports whether c is a memory inside the question's date range.
func (r *ranker) inRange(c *cand) bool {
	return c.hit.Kind == "memory" && !c.hit.Timestamp.Before(r.intent.From) && c.hit.Timestamp.Before(r.intent.To)
}

// latest: for "the last meeting with Bob", the newest memory that matches
// the question's words and names is the one meant; its day is the range.
func (r *ranker) latest(context.Context) error {
	if !r.intent.Latest || !r.intent.From.IsZero() || !r.lexical() || r.t.NoStrictDates {
		return nil
	}
	var newest *cand
	for _, c := range r.cands {
		if c.hit.Kind != "memory" || c.ex.Relevance == 0 || c.ex.Coverage < r.t.MinCoverage {
			continue
		}
		if len(r.names) > 0 && c.ex.Entity == 0 && c.ex.Speaker == 0 && !namesAny(c.hit.Text, r.names) {
			continue
		}
		if newest == nil || c.hit.Timestamp.After(newest.hit.Timestamp) {
			newest = c
		}
	}
	if newest != nil {
		r.intent.From = dayStart(newest.hit.Timestamp, r.asOf.Location())
		r.intent.To = r.intent.From.AddDate(0, 0, 1)
		for _, c := range r.cands {
			c.ex.InRange = 0
			if r.inRange(c) {
				c.ex.InRange = 1
			}
		}
	}
	return nil
}

// strictRange: a question about a time is answered from that time when
// anything stored then answers it: items from other times are left out
// ("what trips did I take in April" is not answered by February's, nor by
// 1 May's). What happened is often told afterwards ("last week I went
// to…"), so a memory of the range's own length after its end is inside
// when its own date phrase, read from its time, falls in the range; one
// that names no such time is not ("restaurants in May" is not answered by
// 1 June's dinner, "three weeks ago" not by last week). What was to come
// is told before: a memory said before the range is inside when its date
// phrase falls in it ("a trip there next month", said in August, for
// September). Nil keeps every item.
func (r *ranker) strictRange() func(c *cand) bool {
	if !r.hasRange() || r.t.NoStrictDates {
		return nil
	}
	loc := r.asOf.Location()
	from, to := r.intent.From, r.intent.To
	reach := to.Add(to.Sub(from))
	inside := func(c *cand) bool {
		if c.day != "" {
			d, err := time.ParseInLocation(time.DateOnly, c.day, loc)
			return err == nil && !d.Before(dayStart(from, loc)) && d.Before(to)
		}
		ts := c.hit.Timestamp
		if !ts.Before(reach) {
			return false
		}
		return !ts.Before(from) && ts.Before(to) && !r.plansLater(c) || r.toldOfRange(c) || r.echoesPhrase(c) ||
			r.answersToldOfRange(c)
	}
	for _, c := range r.cands {
		if c.hit.Kind == "memory" && inside(c) && (!r.lexical() || c.ex.Relevance > 0 || c.ex.Expansion > 0 || c.ex.ByKind > 0) {
			return inside
		}
	}
	if r.windowHeld() {
		return inside
	}
	return nil
}

// toldOfRange reports whether c, said outside the question's range, tells
// of a time within it: its own date phrase, read from when it was said,
// overlaps the range. Said after it, what happened then ("yesterday",
// "last week", "on the 3rd"); said before it, what was to come then
// ("planning a trip there next month" said in August is September's).
// Read once a candidate: the floor asks it of each candidate more than once.
func (r *ranker) toldOfRange(c *cand) bool {
	r.readTold(c)
	return c.toldOf == 1
}

// answersToldOfRange reports whether c replies to a turn that tells of
// the question's range, or answers the other speaker's question about one
// ("a road trip we took last year" / "Where did you go?" / "the coast"):
// it tells of the same time, though it names none.
func (r *ranker) answersToldOfRange(c *cand) bool {
	if c.hit.Kind != "memory" {
		return false
	}
	told := func(p *cand) bool { return r.toldOfRange(p) || r.echoesPhrase(p) }
	q, said := r.cands[memoryKey(c.hit.ID-1)], r.cands[memoryKey(c.hit.ID-2)]
	if q == nil || q.hit.SessionID != c.hit.SessionID || !nearInTime(q.hit.Timestamp, c.hit.Timestamp) {
		return false
	}
	if strings.HasSuffix(strings.TrimSpace(q.hit.Text), "?") && told(q) {
		return true
	}
	return said != nil && followsUp(said.hit, q.hit, c.hit) && told(said)
}

// memoryKey is a memory's key among the candidates.
func memoryKey(id int64) string { return "memory:" + strconv.FormatInt(id, 10) }

// echoesPhrase reports whether c, said before the question's range, holds
// its relative date phrase word for word, asked of people who speak in the
// store: a question about what someone told ("what did Joanna write
// yesterday?") repeats their own "yesterday", which meant the day before
// they said it, not before the question. Never of the user's own; a phrase
// with a number or a month names its time outright.
func (r *ranker) echoesPhrase(c *cand) bool {
	if len(r.speakers) == 0 || r.self || c.hit.Kind != "memory" || !c.hit.Timestamp.Before(r.intent.From) ||
		r.intent.Calendar() || strings.ContainsAny(r.intent.Phrase, "0123456789") {
		return false
	}
	phrase, words := text.Words(r.intent.Phrase), r.analysed(c.hit.Text).words
	for i := 0; len(phrase) > 0 && i+len(phrase) <= len(words); i++ {
		if slices.Equal(words[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// plansLater reports whether c, said within the question's range, plans
// for a time after it, asked of the user's own doings: "got tickets for
// Wet Leg in May", said in March, is no gig I went to in March. Asked of a
// named person, what they were getting ready for then is kept.
func (r *ranker) plansLater(c *cand) bool {
	if !r.self {
		return false
	}
	r.readTold(c)
	return c.toldOf == 2
}

// readTold reads, once a candidate, the time c's own date phrase tells of
// against the question's range (toldOf).
func (r *ranker) readTold(c *cand) {
	if c.toldOf != 0 {
		return
	}
	told := when.Parse(c.hit.Text, c.hit.Timestamp, r.asOf.Location())
	before := c.hit.Timestamp.Before(r.intent.From)
	c.toldOf = -1
	switch {
	case told.From.IsZero():
	case (before || told.Role != when.Plan) && told.From.Before(r.intent.To) && told.To.After(r.intent.From):
		c.toldOf = 1
	case told.Role == when.Plan && !told.From.Before(r.intent.To) && !before:
		c.toldOf = 2
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.IsZero() || b.After(a) {
		return b
	}
	return a
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// dayStart is the midnight that starts t's day in loc.
func dayStart(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
}

// windowHeld reports whether the question names its time by the calendar
// or a count back (when.Range.Calendar) and anything was said then: that
// time is what it asks about, and an item from another that shares its
// words is about another occasion ("what film did I see five weeks ago?"
// is not answered by last week's film, "in June" not by July's), even when
// nothing said then holds the words.
func (r *ranker) windowHeld() bool {
	if !r.intent.Calendar() {
		return false
	}
	for _, c := range r.cands {
		if r.inRange(c) {
			return true
		}
	}
	return false
}
