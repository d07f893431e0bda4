package consolidate

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/extract"
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
		terms := append(capture.SearchStems(m.Content), capture.UnitsIn(m.Content)...)
		if c.Shape == "switched to" || c.Shape == "switched kind" {
			terms = append(terms, capture.LinkedWords(m.Content)...) // "switched to the pool": the claim may say "swim"
		}
		window := correctionWindow
		if st := c.OldStem(); st != "" {
			window = namedWindow
			for _, w := range append([]string{st}, capture.BaseForms(st)...) {
				if !slices.Contains(terms, w) {
					terms = append(terms, w)
				}
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
		said := store.Hit{Kind: "memory", ID: m.ID, SessionID: m.SessionID, Timestamp: m.Timestamp, Role: m.Role, Text: m.Content}
		topic := capture.SessionContext(said, hitsOf(turns))
		if capture.Anaphoric(m.Content) || c.SaysSuccessor() {
			// "changed my mind, the blue one" said next day, "stopped the
			// running plan, doing aqua aerobics instead": the recent
			// claims are its context, whatever their words.
			recent, err := a.RecentMemories(ctx, store.SearchOptions{Since: m.Timestamp.Add(-capture.RecentContext), Until: before, Limit: capture.RecentClaims})
			if err != nil {
				return err
			}
			turns = append(turns, recent...)
		}
		for _, t := range turns {
			if !slices.ContainsFunc(hits, func(h store.MemoryHit) bool { return h.ID == t.ID }) {
				hits = append(hits, t)
			}
		}
		ofKind, byKind, err := kindSearch(ctx, a, c, m.Timestamp.Add(-window), before)
		if err != nil {
			return err
		}
		if rk := capture.RivalKinds(m.Content); c.Shape == "switched to" && len(rk) > 0 {
			rivals, err := a.SearchMemories(ctx, store.SearchOptions{Terms: rk, Kinds: true,
				Since: m.Timestamp.Add(-window), Until: before, Limit: 20})
			if err != nil {
				return err
			}
			byKind = append(byKind, rivals...) // "switched to Octopus": the claim may name only EDF
		}
		for _, k := range byKind {
			if !slices.ContainsFunc(hits, func(h store.MemoryHit) bool { return h.ID == k.ID }) {
				hits = append(hits, k)
			}
		}
		old := capture.Corrected(said, c, hitsOf(hits), ofKind)
		if len(old) == 0 && capture.Anaphoric(m.Content) {
			if old, err = proFormReferent(ctx, a, said, topic); err != nil {
				return err
			}
		}
		if !c.Ends {
			old = withoutRepeats(m, old, hits)
		}
		if len(old) > 0 {
			around, err := a.Neighbours(ctx, old, echoSpan, store.SearchOptions{Until: m.Timestamp.Add(-time.Millisecond)})
			if err != nil {
				return err
			}
			old = append(old, capture.Echoes(hitsOf(hits), old, hitsOf(around))...)
		}
		naming := ""
		if c.Shape == "left" {
			naming = c.Old // "I left Arup": the employer ends, the job title stays
		}
		if err := a.RetireCorrectedNaming(ctx, old, m.ID, naming); err != nil {
			return err
		}
	}
	return nil
}

// kindSearch is the memories of since..until whose kinds (the store's
// kinds index) hold what negation c names, and capture.OfKind of them:
// "we haven't got a car any more" ends "my runaround is a red Mazda", which
// never says car. Nil for a correction that ends nothing or names nothing.
// A cancellation's other words are kinds too ("cancelled the magazine
// subscription" ends "the Economist comes on Fridays").
func kindSearch(ctx context.Context, a *store.Agent, c capture.Correction, since, until time.Time) (capture.OfKind, []store.MemoryHit, error) {
	kinds := []string{c.OldStem()}
	if !c.Ends || kinds[0] == "" {
		return nil, nil, nil
	}
	if c.Shape == "cancelled" {
		for _, st := range capture.ClaimStems(c.Old) {
			if !slices.Contains(kinds, st) {
				kinds = append(kinds, st)
			}
		}
	}
	byKind := map[string][]int64{}
	var all []store.MemoryHit
	for _, kind := range kinds {
		hits, err := a.SearchMemories(ctx, store.SearchOptions{Terms: []string{kind}, Kinds: true, Since: since, Until: until, Limit: 20})
		if err != nil {
			return nil, nil, err
		}
		for _, h := range hits {
			byKind[kind] = append(byKind[kind], h.ID)
			if !slices.ContainsFunc(all, func(m store.MemoryHit) bool { return m.ID == h.ID }) {
				all = append(all, h)
			}
		}
	}
	if len(all) == 0 {
		return nil, nil, nil
	}
	ofKind := func(h store.Hit, k string) bool { return slices.Contains(byKind[k], h.ID) }
	return ofKind, all, nil
}

// proFormReferent is the claim a correction by a pro-form corrects when
// its recent context holds none (capture.ProFormReferent): the speaker's
// older memories are read newest first, a page at a time, back to
// correctionWindow and at most referentReach of them.
func proFormReferent(ctx context.Context, a *store.Agent, said store.Hit, topic []string) ([]int64, error) {
	until := said.Timestamp.Add(-time.Millisecond)
	since := said.Timestamp.Add(-correctionWindow)
	for read := 0; read < referentReach && until.After(since); {
		page, err := a.RecentMemories(ctx, store.SearchOptions{Role: said.Role, Since: since, Until: until, Limit: referentPage})
		if err != nil || len(page) == 0 {
			return nil, err
		}
		hits := hitsOf(page[:min(len(page), referentPage)]) // the newest, in order; the important ones after them come again
		if id, done := capture.ProFormReferent(said, hits, topic); done {
			if id == 0 {
				return nil, nil
			}
			return []int64{id}, nil
		}
		read += len(hits)
		until = hits[len(hits)-1].Timestamp.Add(-time.Millisecond)
	}
	return nil, nil
}

// referentPage and referentReach bound the read for a pro-form's
// referent: a page of memories, and how many in all.
const (
	referentPage  = 100
	referentReach = 500
)

// sessionTurns is how many turns before a correction are its context.
const sessionTurns = 4

// echoSpan is how many turns around a corrected memory its echo may be.
const echoSpan = 2

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

// withoutRepeats is old without the memories among hits whose claims m
// states again (extract.Restates): a repeat reinforces, it retires nothing.
func withoutRepeats(m store.Memory, old []int64, hits []store.MemoryHit) []int64 {
	return slices.DeleteFunc(old, func(id int64) bool {
		i := slices.IndexFunc(hits, func(h store.MemoryHit) bool { return h.ID == id })
		return i >= 0 && extract.Restates(m.Content, hits[i].Text, m.Role)
	})
}

// hitsOf is the hits of memory hits.
func hitsOf(ms []store.MemoryHit) []store.Hit {
	out := make([]store.Hit, len(ms))
	for i, m := range ms {
		out[i] = m.Hit
	}
	return out
}
