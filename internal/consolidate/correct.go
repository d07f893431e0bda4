package consolidate

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Corrections are events: a memory of the day that corrects an earlier
// claim (capture.CorrectionIn) retires the memory that stated it, found by
// subject (the words both share), by the kind of value both state (a
// weekday, a time, a price, a date) and by session, newest first; with it
// go the facts and profile lines only retired memories stated
// (store.RetireCorrected). A correction that names the old value ("no
// longer eat meat") only retires a memory that holds it.

// Windows a correction looks back over for the claim it corrects: one that
// names the old value may reach further than one that does not.
const (
	correctionWindow = 365 * 24 * time.Hour
	namedWindow      = 3 * 365 * 24 * time.Hour
)

// retireCorrected retires, for each correction among the day's memories,
// the older memories it corrects.
func retireCorrected(ctx context.Context, a *store.Agent, mems []store.Memory) error {
	for _, m := range mems {
		if strings.EqualFold(m.Role, "assistant") {
			continue // the agent's own words echo a claim; they do not change it
		}
		c, ok := capture.CorrectionIn(m.Content)
		if !ok {
			continue
		}
		terms := capture.ClaimStems(m.Content)
		window := correctionWindow
		if st := c.OldStem(); st != "" {
			window = namedWindow
			if !slices.Contains(terms, st) {
				terms = append(terms, st)
			}
		}
		before := m.Timestamp.Add(-time.Millisecond)
		hits, err := a.SearchMemories(ctx, store.SearchOptions{Terms: terms, Since: m.Timestamp.Add(-window),
			Until: before, Limit: 40})
		if err != nil {
			return err
		}
		// The turns before it in its session are its context, whatever
		// their words: "actually, make it Thursday instead".
		turns, err := a.Neighbours(ctx, []int64{m.ID}, sessionTurns, store.SearchOptions{Until: before})
		if err != nil {
			return err
		}
		for _, t := range turns {
			if !slices.ContainsFunc(hits, func(h store.MemoryHit) bool { return h.ID == t.ID }) {
				hits = append(hits, t)
			}
		}
		old := corrected(m, c, hits)
		if len(old) > 0 {
			around, err := a.Neighbours(ctx, old, echoSpan, store.SearchOptions{Until: m.Timestamp.Add(-time.Millisecond)})
			if err != nil {
				return err
			}
			old = append(old, echoes(hits, old, around)...)
		}
		if err := a.RetireCorrected(ctx, old, m.ID); err != nil {
			return err
		}
	}
	return nil
}

// corrected is the ids of the memories among hits that correction c, said
// in memory m, corrects: the best scored (claimScore), newest first on a
// tie, and the others of its session that score (the agent's echo of it).
// Only the speaker's own memories are candidates; nothing scores without
// a word of the subject in common, nor, when c names the old value,
// without it.
func corrected(m store.Memory, c capture.Correction, hits []store.MemoryHit) []int64 {
	mine := capture.ClaimStems(m.Content)
	oldStem := c.OldStem()
	type scored struct {
		h     store.MemoryHit
		score int
	}
	var best []scored
	top := 0
	for _, h := range hits {
		if h.ID == m.ID || !h.Timestamp.Before(m.Timestamp) || !strings.EqualFold(h.Role, m.Role) {
			continue // a speaker corrects their own claims (the agent's echo of one goes with it: echoes)
		}
		theirs := capture.ClaimStems(h.Text)
		if oldStem != "" && !slices.Contains(theirs, oldStem) {
			continue
		}
		shared, besides := 0, 0
		for _, st := range mine {
			if slices.Contains(theirs, st) {
				shared++
				if st != oldStem {
					besides++
				}
			}
		}
		if besides == 0 && !(c.Ends && oldStem != "") && !(oldStem == "" && sameSession(m, h)) {
			continue // the old value alone is not the subject: "instead of March" is not every March
		}
		if c.Ends && oldStem == "" && shared < 2 && (h.SessionID == "" || h.SessionID != m.SessionID) {
			continue // "cancelled my gym membership" does not end every word of the gym
		}
		score, ok := claimScore(m, h, shared, oldStem != "" && !c.Ends || c.Ends && oldStem == "", c.Ends && oldStem != "")
		if !ok {
			continue
		}
		best = append(best, scored{h, score})
		top = max(top, score)
	}
	if len(best) == 0 {
		return nil
	}
	var lead *store.MemoryHit
	for i := range best {
		if best[i].score == top && (lead == nil || best[i].h.Timestamp.After(lead.Timestamp)) {
			lead = &best[i].h
		}
	}
	var ids []int64
	for _, b := range best {
		if b.h.ID == lead.ID || lead.SessionID != "" && b.h.SessionID == lead.SessionID {
			ids = append(ids, b.h.ID)
		}
	}
	return ids
}

// recentContext is how near a claim said in another session must be for a
// correction to count it as its context ("actually, make it Thursday").
const recentContext = 7 * 24 * time.Hour

// claimScore scores h as the claim m corrects, given the words of the
// subject both hold: the words, the kinds of value both state, and one
// more when h is of m's session or recent. A negation naming the habit it
// ends ("I don't drink coffee any more") needs only h to hold it; a
// correction naming the old value, or a cancellation ("the retreat is
// cancelled": its words are the subject), needs 2; one that names neither
// needs a kind of value and 3 (or its session: "actually, make it Thursday
// instead" after "book the roofer for Tuesday"), or 3 words in common.
func claimScore(m store.Memory, h store.MemoryHit, shared int, named, habit bool) (int, bool) {
	kinds := capture.SharedValueKinds(m.Content, h.Text)
	score := shared + kinds
	if sameSession(m, h) || m.Timestamp.Sub(h.Timestamp) < recentContext {
		score++
	}
	if named {
		return score, score >= 2
	}
	if habit {
		return score, true // "I don't drink coffee any more": coffee is the subject
	}
	return score, kinds > 0 && (score >= 3 || sameSession(m, h)) || shared >= 3
}

func sameSession(m store.Memory, h store.MemoryHit) bool {
	return h.SessionID != "" && h.SessionID == m.SessionID
}

// sessionTurns is how many turns before a correction are its context.
const sessionTurns = 4

// echoSpan is how many turns around a corrected memory its echo may be.
const echoSpan = 2

// echoes are the agent's turns among around that repeat a claim of old
// (ids among hits or around): "Noted: piano on Tuesdays at 4pm" after "the
// piano lesson is on Tuesday at 4pm" goes with it, though it shares no word
// with the correction.
func echoes(hits []store.MemoryHit, old []int64, around []store.MemoryHit) []int64 {
	var stems []string
	for _, h := range slices.Concat(hits, around) {
		if slices.Contains(old, h.ID) {
			stems = append(stems, capture.ClaimStems(h.Text)...)
		}
	}
	var out []int64
	for _, h := range around {
		if !strings.EqualFold(h.Role, "assistant") || slices.Contains(old, h.ID) {
			continue
		}
		if slices.ContainsFunc(capture.ClaimStems(h.Text), func(st string) bool { return slices.Contains(stems, st) }) &&
			capture.SharedValueKinds(h.Text, strings.Join(texts(hits, old), " ")) > 0 {
			out = append(out, h.ID)
		}
	}
	return out
}

// texts is the texts of the hits with the given ids.
func texts(hits []store.MemoryHit, ids []int64) []string {
	var out []string
	for _, h := range hits {
		if slices.Contains(ids, h.ID) {
			out = append(out, h.Text)
		}
	}
	return out
}

// statedBy is the facts with a source among mems, each citing only those.
func statedBy(facts []store.Fact, mems []store.Memory) []store.Fact {
	out := facts[:0:0]
	for _, f := range facts {
		f.SourceMemoryIDs = slices.DeleteFunc(slices.Clone(f.SourceMemoryIDs), func(id int64) bool {
			return !slices.ContainsFunc(mems, func(m store.Memory) bool { return m.ID == id })
		})
		if len(f.SourceMemoryIDs) > 0 {
			out = append(out, f)
		}
	}
	return out
}
