package web

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// The activity picture: an agent's memories per day over the last weeks,
// consolidated and waiting, with the day's consolidation runs marked below,
// drawn on the server as SVG (the page runs no script) and told again in
// words and in a table for a screen reader.

// activityWeeks is how far back the picture looks unless ?weeks= says;
// maxActivityWeeks bounds what a link may ask for.
const (
	activityWeeks    = 12
	maxActivityWeeks = 53
)

// The picture's geometry, in SVG user units: one column per day.
const (
	dayWidth   = 10
	barWidth   = 8
	barsTop    = 4
	barsHeight = 96
	chartH     = 120
)

type activityPicture struct {
	Weeks      int
	From, To   string
	Width      int // the viewBox's
	Height     int
	Days       []activityDay // every day of the range, oldest first
	Busiest    store.DayActivity
	Memories   int
	Waiting    int // of the range's memories
	Runs       int
	Failed     int
	ActiveDays int
	Backlog    int64 // every memory waiting, whatever its day
}

// activityDay is one column: the consolidated part of its bar (Done*), the
// waiting part on top (Wait*), and a mark for its runs.
type activityDay struct {
	store.DayActivity
	X, DoneY, DoneH, WaitY, WaitH float64
	Mark                          string // "ok", "failed" or "" (no run)
}

// activity reads and lays out the picture for the weeks up to today.
func (h *Handler) activity(ctx context.Context, a *store.Agent, weeks int, backlog int64) (activityPicture, error) {
	today := h.opts.Now().In(h.opts.Location)
	first := today.AddDate(0, 0, 1-7*weeks)
	p := activityPicture{Weeks: weeks, From: first.Format(time.DateOnly), To: today.Format(time.DateOnly), Backlog: backlog}
	rows, err := a.Activity(ctx, p.From, p.To)
	if err != nil {
		return p, err
	}
	byDay := make(map[string]store.DayActivity, len(rows))
	for _, r := range rows {
		byDay[r.Day] = r
		p.add(r)
	}
	for d := first; d.Format(time.DateOnly) <= p.To; d = d.AddDate(0, 0, 1) {
		day := d.Format(time.DateOnly)
		row, ok := byDay[day]
		if !ok {
			row = store.DayActivity{Day: day}
		}
		p.Days = append(p.Days, p.column(len(p.Days), row))
	}
	p.Width, p.Height = len(p.Days)*dayWidth, chartH
	return p, nil
}

// add counts one day's row into the totals.
func (p *activityPicture) add(r store.DayActivity) {
	p.Memories += r.Memories
	p.Waiting += r.Waiting
	p.Runs += r.Runs
	p.Failed += r.Failed
	if r.Memories > 0 {
		p.ActiveDays++
	}
	if r.Memories > p.Busiest.Memories {
		p.Busiest = r
	}
}

// column lays out day i, its bar scaled to the busiest day.
func (p *activityPicture) column(i int, r store.DayActivity) activityDay {
	c := activityDay{DayActivity: r, X: float64(i*dayWidth + (dayWidth-barWidth)/2)}
	if most := p.Busiest.Memories; most > 0 {
		unit := float64(barsHeight) / float64(most)
		c.WaitH = float64(r.Waiting) * unit
		c.DoneH = float64(r.Memories-r.Waiting) * unit
		c.DoneY = barsTop + barsHeight - c.DoneH
		c.WaitY = c.DoneY - c.WaitH
	}
	switch {
	case r.Failed > 0:
		c.Mark = "failed"
	case r.Runs > 0:
		c.Mark = "ok"
	}
	return c
}

// Summary is the picture in one sentence: its text equivalent.
func (p activityPicture) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "From %s to %s: %s on %s", p.From, p.To, plural(p.Memories, "memory", "memories"), plural(p.ActiveDays, "day", "days"))
	if p.Busiest.Memories > 0 {
		fmt.Fprintf(&b, ", the busiest %s with %d", p.Busiest.Day, p.Busiest.Memories)
	}
	fmt.Fprintf(&b, "; %s waiting for consolidation. %s", strconv.Itoa(p.Waiting), plural(p.Runs, "consolidation run", "consolidation runs"))
	if p.Failed > 0 {
		fmt.Fprintf(&b, ", %d of them failed", p.Failed)
	}
	fmt.Fprintf(&b, ". Backlog: %s waiting in all.", plural(int(p.Backlog), "memory", "memories"))
	return b.String()
}

// plural is n with its noun: "1 memory", "3 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// activityWeeksParam reads ?weeks=, keeping it to 1…maxActivityWeeks.
func activityWeeksParam(s string) (int, error) {
	if s == "" {
		return activityWeeks, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxActivityWeeks {
		return 0, fmt.Errorf("weeks must be a whole number from 1 to %d, got %q", maxActivityWeeks, s)
	}
	return n, nil
}
