package recall

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// The candidate stages: what the question's words find, what related words
// and the kinds of thing they name find, the day records and facts, and
// for a question with no words and no date the most important recent.

// wordCandidates searches the question's words. Names that are speakers
// count as a speaker match rather than as words (a name in a turn is
// mostly the other speaker addressing them). Asked of a speaker, the noun
// of "what kind of" is searched too, for the turn asking in that form whose
// reply answers, but no item must hold it: it says nothing of what is asked.
func (r *ranker) wordCandidates(ctx context.Context) error {
	if !r.lexical() {
		return nil
	}
	o := r.base
	o.Terms, o.Limit = r.words, min(r.maxCand, coverageCands) // more could not pass the floor
	hits, err := r.s.SearchMemories(ctx, o)
	if err != nil {
		return err
	}
	r.speakers = speakerNames(r.names, hits)
	r.voices = voices(r.q.Text, r.names, r.speakers)
	if len(r.speakers) > 0 && !r.t.NoSpeaker {
		if rest := without(r.words, r.speakers); len(rest) > 0 {
			o.Terms = slices.Concat(rest, without(r.forms, rest))
			if hits, err = r.s.SearchMemories(ctx, o); err != nil {
				return err
			}
			r.words = rest
		}
	}
	r.memHits = hits
	r.take(hits, func(c *cand, rel float64) { c.ex.Relevance = max(c.ex.Relevance, rel) })
	if !r.t.NoSpeaker {
		markSpeakers(r.cands, r.voices)
	}
	return nil
}

// take makes candidates of memory hits and sets a part of each from its
// BM25 relative to the best hit's.
func (r *ranker) take(hits []store.MemoryHit, set func(c *cand, rel float64)) {
	for i, rel := range normBM25(len(hits), func(i int) float64 { return hits[i].BM25 }) {
		c := r.get(hits[i].Hit)
		c.entities = hits[i].Entities
		set(c, rel)
	}
}

// replaced makes candidates of the memories that replaced a superseded
// memory the question's words match: the new value stands where the old one
// was asked for, though it repeats none of those words ("my address is 14
// Elm Grove, use it for the grocery deliveries", then "we've moved, the new
// address is 7 Quarry Lane": where do the groceries go?).
func (r *ranker) replaced(ctx context.Context) error {
	if !r.lexical() {
		return nil
	}
	o := r.base
	o.Terms = r.words
	reps, err := r.s.ReplacedMatching(ctx, o)
	if err != nil {
		return err
	}
	for _, rep := range reps {
		c := r.standIn(rep)
		c.ex.Relevance = max(c.ex.Relevance, r.coverage(rep.Old.Text))
	}
	return r.replacedByKind(ctx)
}

// replacedByKind is replaced for a superseded memory that names a thing
// the question names by its kind: "start haemo Mon Wed Fri at 7am", then
// "I'm switched to twilights, 5pm", asked what time my dialysis is.
func (r *ranker) replacedByKind(ctx context.Context) error {
	if r.t.Kind <= 0 {
		return nil
	}
	o := r.base
	o.Terms = kinds.Named(without(r.words, slices.DeleteFunc(lowerAll(r.names), kinds.Listed)))
	o.Kinds = true
	if len(o.Terms) == 0 {
		return nil
	}
	reps, err := r.s.ReplacedMatching(ctx, o)
	if err != nil {
		return err
	}
	for _, rep := range reps {
		c := r.standIn(rep)
		c.ex.ByKind = max(c.ex.ByKind, r.coverage(rep.Old.Text+" "+r.kindsOf(rep.Old.Text)))
	}
	return nil
}

// standIn is the candidate of rep's successor, standing for what it replaced.
func (r *ranker) standIn(rep store.Replaced) *cand {
	c := r.get(rep.New.Hit)
	c.entities = rep.New.Entities
	if !slices.Contains(c.standsFor, rep.Old.Text) {
		c.standsFor = append(c.standsFor, rep.Old.Text)
	}
	return c
}

// expansion searches words related to the question's and the kinds of
// thing its words name, then counts the coverage of what can still rank.
func (r *ranker) expansion(ctx context.Context) error {
	if !r.lexical() {
		return nil
	}
	// By kind first: a word some memory holds by kind is no vocabulary
	// gap, and needs no definition.
	if err := r.byKind(ctx); err != nil {
		return err
	}
	if err := r.topicMembers(ctx); err != nil {
		return err
	}
	if err := r.relatedWords(ctx); err != nil {
		return err
	}
	r.countCoverage()
	return nil
}

// relatedWords: concepts from the lexicon, the definitions of the words
// nothing stored holds, pseudo-relevance feedback from the best hits' own
// words, and the words of a plan's day.
func (r *ranker) relatedWords(ctx context.Context) error {
	var related []string
	if !r.t.NoExpansion {
		related = append(related, Expand(r.words)...)
		r.defs = gapDefinitions(r.words, r.gapCands())
		for _, d := range r.defs {
			related = append(related, d...)
		}
	}
	if !r.t.NoFeedback && r.t.FeedbackTerms > 0 {
		related = append(related, feedback(r.memHits, r.terms, r.words, r.speakers, r.t.FeedbackDocs, r.t.FeedbackTerms)...)
	}
	related = append(related, r.planWords()...)
	for _, alts := range r.aliases {
		related = append(related, alts...)
	}
	related = without(dedupe(related), r.words)
	// The memories that joined the subject's names: the join's citation.
	r.take(r.joinedBy, func(c *cand, rel float64) { c.ex.Expansion = max(c.ex.Expansion, rel) })
	if len(related) == 0 {
		return nil
	}
	o := r.narrow(related)
	o.Limit, o.MaxShare = min(o.Limit, relatedCands), relatedShare
	exp, err := r.s.SearchMemories(ctx, o)
	if err != nil {
		return err
	}
	r.take(exp, func(c *cand, rel float64) { c.ex.Expansion = max(c.ex.Expansion, rel) })
	return nil
}

// relatedShare: a related word more than a fifth of the memories hold
// (and more than the window) is one of the agent's own stop words, not
// searched. Its weight is small beside the question's words, yet its
// newest matches fill the window (tool logs of a hundred words: every one
// held by a fifth to two fifths of them). On LoCoMo's development split
// (under 1,000 memories a conversation) it changes no figure; without the
// window's condition a fifth ranked as well (R@5 69.8 against 69.6), a
// tenth lost 0.1 of multi-hop R@10, and the same share for kinds a point.
const relatedShare = 0.2

// relatedCands is how many of the related words' best matches become
// candidates. They weigh a quarter of the question's own words, so past
// the first few they rank below what the question's words found, yet each
// was a whole row read (at 100,000 memories a third of the rows a question
// read). Measured on LoCoMo's development split against 150: R@5 69.6 →
// 70.4, R@10 79.4 → 79.6, R@25 86.1, R@50 89.7 → 89.5, multi-hop R@10
// 50.5 → 51.4; 30 and 75 ranked alike.
const relatedCands = 50

// narrow is the search for terms that weigh less than the question's own
// words: a narrower window.
func (r *ranker) narrow(terms []string) store.SearchOptions {
	o := r.base
	o.Terms, o.Limit, o.Window = terms, min(r.maxCand, coverageCands), r.maxCand/2
	return o
}

// byKind searches the question's words against the kinds of thing the
// memories' words name ("which cities": "we drove to Chicago"); then, for
// the words nothing found holds, their related words that name kinds
// ("married": spouse, so "my wife Sofia"; "work": worker, so "I'm a
// nurse").
func (r *ranker) byKind(ctx context.Context) error {
	if r.t.Kind <= 0 {
		return nil
	}
	names := slices.DeleteFunc(lowerAll(r.names), kinds.Listed) // "the TV" is a thing: telly
	words := without(r.words, names)
	if err := r.searchKinds(ctx, kinds.Named(words)); err != nil {
		return err
	}
	if r.t.NoExpansion {
		return nil
	}
	r.relKinds = relatedKinds(gapWords(words, r.gapCands()))
	var kw []string
	for _, k := range r.relKinds {
		kw = append(kw, k...)
	}
	return r.searchKinds(ctx, kw)
}

// gapCands are the hits gapWords reads: the first gapHits of the hits by
// word, then by kind. Not a copy of them all: a recall has hundreds.
func (r *ranker) gapCands() []store.MemoryHit {
	n := min(len(r.memHits), gapHits)
	first := r.memHits[:n:n] // appending copies, never writes into memHits
	return append(first, r.kindHits[:min(len(r.kindHits), gapHits-n)]...)
}

// searchKinds searches kw against the memories' kinds.
func (r *ranker) searchKinds(ctx context.Context, kw []string) error {
	if len(kw) == 0 {
		return nil
	}
	o := r.narrow(dedupe(kw))
	o.Kinds = true
	kh, err := r.s.SearchMemories(ctx, o)
	if err != nil {
		return err
	}
	for _, h := range kh {
		if len(r.memHits)+len(r.kindHits) >= gapHits {
			break // the gap check reads no further, and kinds.Of costs
		}
		// What the gap check reads: the text with the kinds it holds.
		h.Text += " " + r.kindsOf(h.Text)
		r.kindHits = append(r.kindHits, h)
	}
	r.take(kh, func(c *cand, rel float64) { c.ex.ByKind = max(c.ex.ByKind, rel) })
	return nil
}

// relatedBreadth is the most words a related word's kind may take in:
// "kid" (a hundred or so) says what "children" asks for, "activity"
// (thousands) says nothing ("what is my job?": occupation, business,
// line, activity, and "the plumber is coming to look at the boiler" is an
// activity). Measured on LoCoMo's development split, 600 keeps multi-hop
// R@10 at 50.5 where 200 gave 49.8.
const relatedBreadth = 600

// relatedKinds maps each of words to its related words that name narrow
// kinds. A light verb is left out ("what insulin do I take?"): its related
// words are verbs' ("take": act, move), and a thing of a kind spelt alike
// ("a jab" is a move) is no answer to it.
func relatedKinds(words []string) map[string][]string {
	var out map[string][]string
	for _, w := range words {
		if lightVerbs[w] {
			continue
		}
		k := slices.DeleteFunc(kinds.Named(without(dedupe(Expand([]string{w})), words)),
			func(k string) bool { return kinds.Breadth(k) > relatedBreadth })
		if len(k) > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[w] = k
		}
	}
	return out
}

// lightVerbs say little of what is asked: "what do I take", "what have I
// got".
var lightVerbs = map[string]bool{"take": true, "takes": true, "taking": true, "took": true, "have": true, "has": true,
	"had": true, "get": true, "gets": true, "got": true, "make": true, "makes": true, "made": true, "do": true, "does": true,
	"did": true, "give": true, "gave": true, "put": true, "keep": true, "use": true, "used": true}

// lightOnly reports whether of words, have holds only light verbs (by
// word, definition or related kind), and words has others: the verb says
// little of what is asked.
func (r *ranker) lightOnly(have stemList) bool {
	var light, other []string
	for _, w := range r.words {
		if lightVerbs[w] {
			light = append(light, w)
		} else {
			other = append(other, w)
		}
	}
	return r.self && len(other) > 0 && heldShare(light, have, nil) > 0 &&
		heldShare(other, have, r.defs) == 0 && heldShare(other, have, r.relKinds) == 0
}

// countCoverage sets the coverage of the candidates that can still rank
// (the floor drops the rest), best preliminary score first. A word the
// item names only by kind counts as held. Of a question ending in why it
// is asked, the item's share of the asked words alone counts when it is
// more (askedWords).
func (r *ranker) countCoverage() {
	asked := r.askedWords()
	for _, c := range bestCands(r.cands, coverageCands, r.t) {
		have := r.withMembers(c, r.candStems(c))
		c.ex.Coverage = r.heldBy(c, have, r.words)
		if asked != nil {
			c.ex.Coverage = max(c.ex.Coverage, r.heldBy(c, have, asked))
		}
		if r.lightOnly(have) {
			c.ex.Coverage = 0 // "which blood thinner am I taking?" is not answered by "started taking vitamin D"
		}
		r.suitedCoverage(c)
		if c.ex.Speaker > 0 {
			// The speaker is part of what the question asks for.
			c.ex.Coverage = min(1, c.ex.Coverage+1/float64(len(r.words)+1))
		}
	}
}

// heldBy is the share of words c holds (have: its stems), a word it holds
// by a definition or a related word's kind counting in part.
func (r *ranker) heldBy(c *cand, have stemList, words []string) float64 {
	held := heldShare(words, have, nil)
	if len(r.defs) > 0 && c.ex.Expansion > 0 {
		held = heldShare(words, have, r.defs)
	}
	if len(r.relKinds) > 0 && c.ex.ByKind > 0 {
		held = max(held, heldShare(words, have, r.relKinds))
	}
	return held
}

// candStems is the set of the stems of c's text, with the text of the
// memories it stands for and, found by kind, the kinds it holds.
func (r *ranker) candStems(c *cand) stemList {
	if len(c.standsFor) == 0 && c.ex.ByKind <= 0 {
		return r.stems(c.hit.Text)
	}
	txt := c.hit.Text
	for _, old := range c.standsFor {
		txt += " " + old
	}
	if c.ex.ByKind > 0 {
		txt += " " + r.kindsOf(txt)
	}
	return r.stems(txt)
}

// layers adds the day records and current facts, unless the question
// filters on what only memories have.
func (r *ranker) layers(ctx context.Context) error {
	if r.q.memoriesOnly() {
		return nil
	}
	if err := r.dayRecords(ctx); err != nil {
		return err
	}
	return r.facts(ctx)
}

// dayRecords adds the day records the words match or, for a date, every
// record in its range; a matching record lends its memories a little.
func (r *ranker) dayRecords(ctx context.Context) error {
	o := store.SearchOptions{Terms: r.words, Since: r.since, Until: r.until, Limit: layerCandidates}
	if r.hasRange() {
		// The date names the records: every day record in the range.
		o.Since, o.Until = maxTime(r.since, r.intent.From), minTime(r.until, r.intent.To.Add(-time.Millisecond))
		if !r.lexical() {
			o.Terms = nil // the date is the whole question: every record then
		}
	}
	if len(o.Terms) == 0 && !r.intent.AsksTime() {
		return nil
	}
	days, err := r.s.SearchDayRecords(ctx, o)
	if err != nil {
		return err
	}
	best := 0.0
	for _, d := range days {
		best = math.Min(best, d.BM25)
	}
	byID := map[int64]float64{}
	var known map[string]bool
	if len(r.people) > 0 {
		known = r.knownNames()
	}
	for _, d := range days {
		rel := 1.0
		if best < 0 {
			rel = d.BM25 / best
		}
		byID[d.ID] = rel
		if r.t.DayRecords {
			r.dayRecord(d, rel, known)
		}
	}
	for _, d := range days {
		for _, id := range d.SourceIDs {
			if c := r.cands[fmt.Sprintf("memory:%d", id)]; c != nil {
				c.ex.DayRecord = max(c.ex.DayRecord, byID[d.ID])
			}
		}
	}
	return nil
}

// dayRecord makes a candidate of the day record d, offered by the
// sentences the question bears on (daySentences).
func (r *ranker) dayRecord(d store.ConsolidationHit, rel float64, known map[string]bool) {
	txt := r.daySentences(d.Text, known)
	if txt == "" {
		return
	}
	c := r.get(d.Hit)
	c.hit.Text = txt
	c.day, c.srcIDs = d.Date, d.SourceIDs
	c.ex.Relevance = rel
	c.ex.Coverage = r.coverage(txt)
	if r.intent.AsksTime() {
		c.ex.InRange, c.ex.Coverage = 1, max(c.ex.Coverage, 0.5)
	}
}

// facts adds the current facts the words match.
func (r *ranker) facts(ctx context.Context) error {
	if !r.lexical() {
		return nil
	}
	facts, err := r.s.SearchCurrentFacts(ctx, store.SearchOptions{Terms: r.words, Until: r.until, Limit: layerCandidates})
	if err != nil {
		return err
	}
	for i, rel := range normBM25(len(facts), func(i int) float64 { return facts[i].BM25 }) {
		c := r.get(facts[i].Hit)
		c.fact, c.srcIDs = &facts[i], facts[i].SourceMemoryIDs
		c.ex.Relevance = max(c.ex.Relevance, rel)
		c.ex.Use = min(1, math.Log2(1+float64(facts[i].AccessCount))/5)
	}
	for _, c := range r.cands {
		if c.fact != nil {
			c.ex.Coverage = r.coverage(c.hit.Text)
		}
	}
	return nil
}

// importantRecent answers a question with no words to search and no date:
// the newest and the most important memories within every filter, and the
// newest day records and surest current facts where the filters allow
// them, by importance and recency alone. Nothing there matches or misses
// the question, so there is no floor to pass and no profile to pin.
func (r *ranker) importantRecent(ctx context.Context) (Result, error) {
	o := r.base
	o.Limit = max(r.k*5, 50)
	mems, err := r.s.RecentMemories(ctx, o)
	if err != nil {
		return Result{}, err
	}
	for _, m := range mems {
		r.get(m.Hit)
	}
	if !r.q.memoriesOnly() {
		if err := r.newestLayers(ctx); err != nil {
			return Result{}, err
		}
	}
	items := make([]Item, 0, len(r.cands))
	for id, c := range r.cands {
		r.baseParts(c)
		c.ex.Total = r.t.WordlessImportance*c.ex.Importance + r.t.WordlessRecency*c.ex.Recency
		items = append(items, r.item(id, c))
	}
	sortItems(items)
	res := pack(items, r.budget, r.k)
	res.Found = len(res.Items) > 0
	return res, nil
}

// newestLayers adds the newest day records and the surest current facts.
func (r *ranker) newestLayers(ctx context.Context) error {
	o := store.SearchOptions{Since: r.since, Until: r.until, Limit: layerCandidates}
	days, err := r.s.SearchDayRecords(ctx, o)
	if err != nil {
		return err
	}
	facts, err := r.s.SearchCurrentFacts(ctx, o)
	if err != nil {
		return err
	}
	for _, d := range days {
		r.get(d.Hit)
	}
	for _, f := range facts {
		r.get(f.Hit)
	}
	return nil
}

// unknownName returns the first of names when no memory and no current
// fact stored by until contains any of them, or "". One known name is
// enough to go on: a capitalised word may be a concept worded otherwise
// ("Thanksgiving" beside a known "Caroline").
func unknownName(ctx context.Context, s Searcher, names []string, until time.Time) (string, error) {
	for _, n := range names {
		// A name is known by its short or full forms too: "Betty says …"
		// makes Elizabeth known.
		o := store.SearchOptions{Terms: append([]string{n}, otherForms(n)...), Until: until, Limit: 1}
		if stored, err := s.MatchesMemories(ctx, o); err != nil || stored {
			return "", err
		}
		facts, err := s.SearchCurrentFacts(ctx, o)
		if err != nil {
			return "", err
		}
		if len(facts) > 0 {
			return "", nil
		}
		// A speaker whom nothing names ("What is Ann's dog called?" with
		// Ann's own turns only) is known too.
		if ok, err := s.Speaks(ctx, n, until); err != nil || ok {
			return "", err
		}
		// So is one whose claim a correction retired ("Maya's lesson is on
		// Tuesday", then "actually, Friday instead").
		if reps, err := s.ReplacedMatching(ctx, o); err != nil || len(reps) > 0 {
			return "", err
		}
	}
	if len(names) == 0 {
		return "", nil
	}
	return names[0], nil
}
