package recall

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Searcher is what recall needs from an agent's storage; a *store.Agent
// provides it.
type Searcher interface {
	SearchMemories(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	RecentMemories(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	MemoriesInRange(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	Neighbours(ctx context.Context, ids []int64, span int, o store.SearchOptions) ([]store.MemoryHit, error)
	SearchDayRecords(ctx context.Context, o store.SearchOptions) ([]store.ConsolidationHit, error)
	SearchCurrentFacts(ctx context.Context, o store.SearchOptions) ([]store.FactHit, error)
	FactsAbout(ctx context.Context, entity, attribute string, asOf time.Time) ([]store.FactHit, error)
	ImportantMemories(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	Speaks(ctx context.Context, name string, until time.Time) (bool, error)
}

// Explain is why an item ranked where it did: the parts of its score.
type Explain struct {
	Relevance   float64 `json:"relevance"`             // BM25 against the query's words, relative to the best match
	Expansion   float64 `json:"expansion,omitempty"`   // BM25 against related words (concepts, feedback)
	ByKind      float64 `json:"by_kind,omitempty"`     // BM25 of the question's words against the kinds of thing its words name
	Coverage    float64 `json:"coverage"`              // share of the query's words the item holds
	Importance  float64 `json:"importance"`            // as stored (confidence for facts)
	Use         float64 `json:"use,omitempty"`         // how often a fact was offered before: log2(1+count)/5, at most 1
	Recency     float64 `json:"recency"`               // 1 now, 0.5 one half-life ago
	Speaker     float64 `json:"speaker,omitempty"`     // the question names who said it
	Entity      float64 `json:"entity,omitempty"`      // the item names an entity the question names
	InRange     float64 `json:"in_range,omitempty"`    // inside the question's date range
	Neighbour   float64 `json:"neighbour,omitempty"`   // score passed on from an adjacent turn
	DayRecord   float64 `json:"day_record,omitempty"`  // its day's record matched the question
	Context     float64 `json:"context,omitempty"`     // relevance of the turns beside it
	Semantic    float64 `json:"semantic,omitempty"`    // similarity of its embedding to the question's (optional arm)
	Informative float64 `json:"informative,omitempty"` // how likely its text states something rather than chats (memories)
	Pinned      bool    `json:"pinned,omitempty"`      // offered as a critical memory
	Total       float64 `json:"total"`
}

// Tuning holds the ranker's weights. The zero value means the defaults
// (measured on LoCoMo's development split; see the package README).
type Tuning struct {
	Relevance, Expansion, Importance, Recency float64
	Kind                                      float64 // weight of a match by kind ("cities": Chicago)
	Use                                       float64 // weight of a fact's use (access count)
	Informative                               float64 // weight of a memory's informativeness (see informative)
	Speaker, Entity, InRange, Neighbour       float64
	DayRecord, Coverage, Reply, Context       float64
	Context2                                  float64 // share of Context two turns away
	NeighbourSpan, NeighbourFrom              int
	FeedbackDocs, FeedbackTerms               int
	// MinCoverage is the precision floor: an item holding less than this
	// share of the query's (weighted) words is not offered, and when no
	// item reaches it the result is empty with Found false.
	MinCoverage float64
	// PinImportance: the memories at least this important (a profile:
	// "I am allergic to penicillin") are offered after the ranked items,
	// whatever the words, when the question found something and the
	// budget allows; at most PinMax of them. Above 1 disables.
	PinImportance float64
	PinMax        int
	// DayRecords: offer day records (consolidations) as items.
	DayRecords bool
	// NoFeedback, NoNeighbours, NoSpeaker switch parts off (for measuring).
	NoFeedback, NoNeighbours, NoSpeaker, NoExpansion bool
	// NoStrictDates keeps items from outside the question's date range
	// (ranked lower) instead of leaving them out.
	NoStrictDates bool
	// Semantic weighs the embedding similarity (Explain.Semantic) when the
	// engine has a QueryEmbedder (0 there: DefaultSemantic); MinSimilarity
	// is the cosine below which it counts as none (0: DefaultMinSimilarity).
	// A memory above it is offered even when it holds none of the words.
	Semantic, MinSimilarity float64
}

// DefaultTuning is the ranker's defaults.
var DefaultTuning = Tuning{
	Relevance: 1.0, Expansion: 0.25, Importance: 0.08, Recency: 0.04,
	Speaker: 0.25, Entity: 0.1, InRange: 0.5, Neighbour: 0.2, Reply: 0.8, DayRecord: 0.1, Context: 0.5,
	NeighbourSpan: 2, NeighbourFrom: 20, Context2: 0.5, FeedbackDocs: 5, FeedbackTerms: 6,
	MinCoverage: 0.2, PinImportance: 0.9, PinMax: 2, DayRecords: true, Coverage: 0.4, Kind: 0.4, Use: 0.05, Informative: 0.25,
}

// coverageCands bounds how many lexical candidates get their coverage
// counted (and so can pass the precision floor).
const coverageCands = 150

// bestCands returns up to n candidates by lexical score.
func bestCands(cands map[string]*cand, n int, t Tuning) []*cand {
	out := make([]*cand, 0, len(cands))
	for _, c := range cands {
		out = append(out, c)
	}
	pre := func(c *cand) float64 {
		return t.Relevance*c.ex.Relevance + t.Expansion*c.ex.Expansion + t.Kind*c.ex.ByKind + t.Speaker*c.ex.Speaker
	}
	sort.Slice(out, func(i, j int) bool {
		if pi, pj := pre(out[i]), pre(out[j]); pi != pj {
			return pi > pj
		}
		return out[i].hit.ID < out[j].hit.ID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// windowNote: the newest max_candidates full-text matches (400 by default;
// half as many for related words) are scored by BM25 and the best kept,
// which bounds the cost of common words in a large store and ranks every
// match in a small one. Measured on LoCoMo's development split, a window of
// 400 ranks as well as one of 1,000 (R@10 77.6 against 77.3).

// latestRecency is the recency weight for questions that ask for the latest.
const latestRecency = 0.5

// TuningWith is DefaultTuning with the configured precision floor.
func TuningWith(minCoverage float64) Tuning {
	t := DefaultTuning
	t.MinCoverage = minCoverage
	return t
}

type cand struct {
	hit      store.Hit
	entities []string
	day      string
	ex       Explain
	srcIDs   []int64 // day records and facts: their memories
	fact     *store.FactHit
}

// rankRecall is the full ranker: lexical relevance with related words and
// feedback, the speaker and entities the question names, its date range,
// the turns around a hit, the day records and facts, a precision floor and
// the suppression of superseded values.
func (e *Engine) rankRecall(ctx context.Context, s Searcher, q Query, asOf time.Time, half time.Duration, budget, k, maxCand int) (Result, error) {
	t := e.Tuning
	if t == (Tuning{}) {
		t = DefaultTuning
	}
	if e.Semantic != nil && t.Semantic == 0 {
		t.Semantic = DefaultSemantic
	}
	intent := ParseTemporal(q.Text, asOf)
	since, until := q.Since, asOf
	if !q.Until.IsZero() && q.Until.Before(until) {
		until = q.Until
	}
	// "As of March", "since Monday": the question bounds what may answer.
	if intent.Since.After(since) {
		since = intent.Since
	}
	if !intent.Until.IsZero() && intent.Until.Before(until) {
		// "As of March" asks as March would have answered: its end is the
		// as_of, for recency and for which values were current.
		until, asOf = intent.Until, intent.Until
		t.Recency = max(t.Recency, latestRecency)
	}
	if intent.Latest {
		t.Recency = max(t.Recency, latestRecency) // "the last meeting with Bob": the newest match wins
	}
	words := text.Terms(intent.Rest)
	names := properNames(q.Text)
	base := store.SearchOptions{Since: since, Until: until, Session: q.Session,
		Role: q.Role, Source: q.Source, Entity: q.Entity,
		Window: maxCand * 5 / 2, // see windowNote
	}

	cands := map[string]*cand{}
	get := func(h store.Hit) *cand {
		id := fmt.Sprintf("%s:%d", h.Kind, h.ID)
		c := cands[id]
		if c == nil {
			c = &cand{hit: h}
			cands[id] = c
		}
		return c
	}

	// A question about someone or something that no memory or fact names
	// ("When is Bob's birthday?" with only Alice's stored) has no answer
	// here: saying so beats offering someone else's.
	if name, err := unknownName(ctx, s, properNames(intent.Rest), until); err != nil {
		return Result{}, err
	} else if name != "" {
		res := Result{Items: []Item{}, Found: false, Note: fmt.Sprintf("nothing stored names %q", name)}
		if t.PinImportance <= 1 && t.PinMax > 0 && q.Session == "" {
			if err := e.pin(ctx, s, &res, base, t, budget, k, q.Explain); err != nil {
				return Result{}, err
			}
		}
		return res, nil
	}

	// 1. The question's date range: the memories of that time, most
	// important first, and its day records.
	if intent.Found && !intent.From.IsZero() {
		o := base
		o.Since, o.Until = maxTime(since, intent.From), minTime(until, intent.To)
		o.Limit = max(k*3, 30)
		hits, err := s.MemoriesInRange(ctx, o)
		if err != nil {
			return Result{}, err
		}
		if len(hits) == 0 && !t.NoStrictDates {
			// Nothing stored then: what happened is often told soon after
			// ("yesterday I went bowling"), so the range reaches on by its
			// own length (a week at most), as it does below when it holds
			// something.
			to := intent.To.Add(min(intent.To.Sub(intent.From), 7*24*time.Hour))
			o.Until = minTime(until, to)
			if hits, err = s.MemoriesInRange(ctx, o); err != nil {
				return Result{}, err
			}
			if len(hits) > 0 {
				intent.To = to
			}
		}
		if len(hits) == 0 {
			// Nothing then: the phrase was probably not a date to search by
			// ("friends for 4 years"); its words count as words.
			intent = Temporal{Rest: q.Text}
			words = text.Terms(q.Text)
		}
		for _, h := range hits {
			c := get(h.Hit)
			c.entities = h.Entities
			if len(words) == 0 {
				c.ex.Coverage = 1 // the date is the whole question
			}
		}
	}

	if len(words) == 0 && !intent.Found {
		return e.importantRecent(ctx, s, q, base, asOf, half, budget, k)
	}

	// 2. Lexical: the query's words; names that are speakers count as a
	// speaker match rather than as words (a name in a turn is mostly the
	// other speaker addressing them).
	var memHits []store.MemoryHit
	var speakers []string
	if len(words) > 0 {
		o := base
		o.Terms, o.Limit = words, min(maxCand, coverageCands) // more could not pass the floor
		hits, err := s.SearchMemories(ctx, o)
		if err != nil {
			return Result{}, err
		}
		speakers = speakerNames(names, hits)
		if len(speakers) > 0 && !t.NoSpeaker {
			rest := without(words, speakers)
			if len(rest) > 0 {
				o.Terms = rest
				if hits, err = s.SearchMemories(ctx, o); err != nil {
					return Result{}, err
				}
				words = rest
			}
		}
		memHits = hits
		for i, rel := range normBM25(len(hits), func(i int) float64 { return hits[i].BM25 }) {
			c := get(hits[i].Hit)
			c.entities = hits[i].Entities
			c.ex.Relevance = max(c.ex.Relevance, rel)
		}
		if !t.NoSpeaker {
			markSpeakers(cands, names)
		}

		// 3. Related words: concepts from the lexicon, the definitions of
		// the words nothing stored holds, and pseudo-relevance feedback
		// from the best hits' own words.
		var related []string
		var defs map[string][]string
		if !t.NoExpansion {
			related = append(related, Expand(words)...)
			defs = gapDefinitions(words, memHits)
			for _, d := range defs {
				related = append(related, d...)
			}
		}
		if !t.NoFeedback && t.FeedbackTerms > 0 {
			related = append(related, feedback(memHits, words, speakers, t.FeedbackDocs, t.FeedbackTerms)...)
		}
		related = without(dedupe(related), words)
		if len(related) > 0 {
			o.Terms = related
			o.Window = maxCand / 2 // related words weigh less: a narrower window
			exp, err := s.SearchMemories(ctx, o)
			if err != nil {
				return Result{}, err
			}
			for i, rel := range normBM25(len(exp), func(i int) float64 { return exp[i].BM25 }) {
				c := get(exp[i].Hit)
				c.entities = exp[i].Entities
				c.ex.Expansion = max(c.ex.Expansion, rel)
			}
		}
		// 3b. Kinds: the question's words against the kinds of thing the
		// memories' words name ("which cities": "we drove to Chicago").
		if t.Kind > 0 {
			kw := kinds.Named(without(words, lowerAll(names)))
			if len(kw) > 0 {
				o.Terms, o.Kinds = kw, true
				o.Window = maxCand / 2
				kh, err := s.SearchMemories(ctx, o)
				if err != nil {
					return Result{}, err
				}
				o.Kinds = false
				for i, rel := range normBM25(len(kh), func(i int) float64 { return kh[i].BM25 }) {
					c := get(kh[i].Hit)
					c.entities = kh[i].Entities
					c.ex.ByKind = max(c.ex.ByKind, rel)
				}
			}
		}
		// Coverage for the candidates that can still rank (the floor drops
		// the rest), best preliminary score first. A word the item names
		// only by kind counts as held.
		for _, c := range bestCands(cands, coverageCands, t) {
			txt := c.hit.Text
			if c.ex.ByKind > 0 {
				txt += " " + kinds.Of(txt)
			}
			c.ex.Coverage = coverage(words, txt)
			if len(defs) > 0 && c.ex.Expansion > 0 {
				c.ex.Coverage = coverageDefined(words, txt, defs)
			}
			if c.ex.Speaker > 0 {
				// The speaker is part of what the question asks for.
				c.ex.Coverage = min(1, c.ex.Coverage+1/float64(len(words)+1))
			}
		}
	}

	// 4. Day records and current facts.
	if !q.memoriesOnly() {
		o := store.SearchOptions{Terms: words, Since: since, Until: until, Limit: layerCandidates}
		if intent.Found && !intent.From.IsZero() {
			// The date names the records: every day record in the range.
			o.Since, o.Until = maxTime(since, intent.From), minTime(until, intent.To.Add(-time.Millisecond))
			if len(words) == 0 {
				o.Terms = nil // the date is the whole question: every record then
			}
		}
		if len(o.Terms) > 0 || intent.Found {
			days, err := s.SearchDayRecords(ctx, o)
			if err != nil {
				return Result{}, err
			}
			byID := map[int64]float64{}
			best := 0.0
			for _, d := range days {
				best = math.Min(best, d.BM25)
			}
			for i, d := range days {
				rel := 1.0
				if best < 0 {
					rel = d.BM25 / best
				}
				byID[d.ID] = rel
				if !t.DayRecords {
					continue
				}
				c := get(d.Hit)
				c.day, c.srcIDs = d.Date, d.SourceIDs
				c.ex.Relevance = rel
				c.ex.Coverage = coverage(words, d.Text)
				if intent.Found {
					c.ex.InRange, c.ex.Coverage = 1, max(c.ex.Coverage, 0.5)
				}
				_ = i
			}
			// A matching day record lends its memories a little.
			for _, d := range days {
				for _, id := range d.SourceIDs {
					if c := cands[fmt.Sprintf("memory:%d", id)]; c != nil {
						c.ex.DayRecord = max(c.ex.DayRecord, byID[d.ID])
					}
				}
			}
		}
		fo := store.SearchOptions{Terms: words, Until: until, Limit: layerCandidates}
		if len(words) > 0 {
			facts, err := s.SearchCurrentFacts(ctx, fo)
			if err != nil {
				return Result{}, err
			}
			for i, rel := range normBM25(len(facts), func(i int) float64 { return facts[i].BM25 }) {
				c := get(facts[i].Hit)
				c.fact, c.srcIDs = &facts[i], facts[i].SourceMemoryIDs
				c.ex.Relevance = max(c.ex.Relevance, rel)
				c.ex.Use = min(1, math.Log2(1+float64(facts[i].AccessCount))/5)
			}
			for _, c := range cands {
				if c.fact != nil {
					c.ex.Coverage = coverage(words, c.hit.Text)
				}
			}
		}
	}

	if !t.NoSpeaker {
		markSpeakers(cands, names)
	}
	if intent.Found && !intent.From.IsZero() {
		for _, c := range cands {
			if c.hit.Kind == "memory" && !c.hit.Timestamp.Before(intent.From) && c.hit.Timestamp.Before(intent.To) {
				c.ex.InRange = 1
			}
		}
	}

	// 4b. The optional semantic arm (semantic.go).
	if len(words) > 0 && e.Semantic != nil {
		if err := e.semantic(ctx, s, q.Text, base, cands, get, t); err != nil {
			return Result{}, err
		}
	}

	// 5. Entities the question names.
	if len(names) > 0 {
		for _, c := range cands {
			for _, n := range names {
				if containsFold(c.entities, n) || c.fact != nil && strings.EqualFold(c.fact.Entity, n) {
					c.ex.Entity = 1
				}
			}
		}
	}

	// A turn inside a passage that matches: its adjacent turns' relevance.
	byID := map[int64]*cand{}
	for _, c := range cands {
		if c.hit.Kind == "memory" {
			byID[c.hit.ID] = c
		}
	}
	for _, c := range byID {
		for _, d := range []int64{-2, -1, 1, 2} {
			w := 1.0
			if d == -2 || d == 2 {
				w = t.Context2
			}
			if n := byID[c.hit.ID+d]; n != nil && w > 0 && n.hit.SessionID == c.hit.SessionID &&
				nearInTime(n.hit.Timestamp, c.hit.Timestamp) {
				c.ex.Context = max(c.ex.Context, w*(n.ex.Relevance+n.ex.Expansion*t.Expansion))
			}
		}
	}

	// Score.
	lexical := len(words) > 0
	for _, c := range cands {
		c.ex.Importance = math.Max(0, math.Min(1, c.hit.Importance))
		age := asOf.Sub(c.hit.Timestamp)
		if age < 0 {
			age = 0
		}
		c.ex.Recency = math.Exp2(-float64(age) / float64(half))
		if lexical && c.hit.Kind == "memory" && (c.ex.Coverage >= t.MinCoverage || c.ex.InRange > 0 || c.ex.Semantic > 0) {
			// (Only what can pass the precision floor: a turn beside a
			// hit gets its part below, when it inherits.)
			c.ex.Informative = informative(c.hit.Text)
		}
		c.ex.Total = total(t, c.ex, lexical)
	}

	// 6. The turns around the best hits inherit part of their score.
	if lexical && !t.NoNeighbours && t.NeighbourSpan > 0 && t.Neighbour > 0 {
		top := topMemories(cands, max(k, t.NeighbourFrom))
		var ids []int64
		for _, c := range top {
			ids = append(ids, c.hit.ID)
		}
		nb, err := s.Neighbours(ctx, ids, t.NeighbourSpan, base)
		if err != nil {
			return Result{}, err
		}
		parent := map[int64]*cand{}
		for _, c := range top {
			parent[c.hit.ID] = c
		}
		for _, h := range nb {
			inherit := 0.0
			for d := int64(-int64(t.NeighbourSpan)); d <= int64(t.NeighbourSpan); d++ {
				p := parent[h.ID+d]
				if p == nil || !nearInTime(p.hit.Timestamp, h.Timestamp) {
					continue
				}
				share := 1.0
				if d == -1 && h.SessionID == p.hit.SessionID && strings.Contains(p.hit.Text, "?") {
					// The reply to a question that matched: often the answer.
					share = t.Reply / t.Neighbour
				}
				inherit = max(inherit, share*p.ex.Total)
			}
			c := get(h.Hit)
			if c.entities == nil {
				c.entities = h.Entities
			}
			if c.ex.Informative == 0 {
				c.ex.Informative = informative(c.hit.Text)
			}
			if c.ex.Total == 0 {
				c.ex.Importance = math.Max(0, math.Min(1, c.hit.Importance))
				age := asOf.Sub(c.hit.Timestamp)
				c.ex.Recency = math.Exp2(-math.Max(0, float64(age)) / float64(half))
				c.ex.Coverage = coverage(words, c.hit.Text)
			}
			for _, n := range names {
				if !t.NoSpeaker && strings.EqualFold(firstWord(h.Role), n) {
					c.ex.Speaker = 1
				}
			}
			c.ex.Neighbour = max(c.ex.Neighbour, inherit)
			c.ex.Total = total(t, c.ex, lexical)
		}
	}

	// "The last meeting with Bob": the newest memory that matches the
	// question's words and names is the one meant; its day is the range.
	if intent.Latest && intent.From.IsZero() && lexical && !t.NoStrictDates {
		var newest *cand
		for _, c := range cands {
			if c.hit.Kind != "memory" || c.ex.Relevance == 0 || c.ex.Coverage < t.MinCoverage {
				continue
			}
			if len(names) > 0 && c.ex.Entity == 0 && c.ex.Speaker == 0 && !namesAny(c.hit.Text, names) {
				continue
			}
			if newest == nil || c.hit.Timestamp.After(newest.hit.Timestamp) {
				newest = c
			}
		}
		if newest != nil {
			intent.From = dayStart(newest.hit.Timestamp, asOf.Location())
			intent.To = intent.From.AddDate(0, 0, 1)
			for _, c := range cands {
				c.ex.InRange = 0
				if c.hit.Kind == "memory" && !c.hit.Timestamp.Before(intent.From) && c.hit.Timestamp.Before(intent.To) {
					c.ex.InRange = 1
				}
			}
		}
	}
	// A question about a time is answered from that time when anything
	// stored then answers it: items from other times are left out ("what
	// trips did I take in April" is not answered by February's). What
	// happened is often told afterwards ("last week I went to…"), so the
	// range reaches on after its end by its own length.
	var strict func(c *cand) bool
	if intent.Found && !intent.From.IsZero() && !t.NoStrictDates {
		from, to := intent.From, intent.To.Add(intent.To.Sub(intent.From))
		inside := func(c *cand) bool {
			if c.day != "" {
				d, err := time.ParseInLocation(time.DateOnly, c.day, asOf.Location())
				return err == nil && !d.Before(dayStart(from, asOf.Location())) && d.Before(to)
			}
			return !c.hit.Timestamp.Before(from) && c.hit.Timestamp.Before(to)
		}
		for _, c := range cands {
			if c.hit.Kind == "memory" && inside(c) && (!lexical || c.ex.Relevance > 0 || c.ex.Expansion > 0 || c.ex.ByKind > 0) {
				strict = inside
				break
			}
		}
	}

	items := make([]Item, 0, len(cands))
	found := false
	// Within the question's date range, its other words select when they
	// select anything: "how many times did I go climbing in May" is not
	// answered by May's lunch, but "what happened on Feb 1" (no memory says
	// "happened") is answered by all of that day.
	wordsSelect := false
	for _, c := range cands {
		if c.hit.Kind == "memory" && c.ex.InRange > 0 && (c.ex.Relevance > 0 || c.ex.Expansion > 0) {
			wordsSelect = true
		}
	}
	for id, c := range cands {
		if strict != nil && !strict(c) {
			continue
		}
		inRange := c.ex.InRange > 0 && (!wordsSelect || c.hit.Kind != "memory" ||
			c.ex.Relevance > 0 || c.ex.Expansion > 0)
		similar := c.ex.Semantic > 0 // above MinSimilarity: a match without the words
		if lexical && c.ex.Coverage < t.MinCoverage && c.ex.Neighbour == 0 && !inRange && !similar {
			continue
		}
		if c.ex.Coverage >= t.MinCoverage || inRange || similar {
			found = true
		}
		ex := c.ex
		ex.Total = round4(ex.Total)
		it := Item{
			ID: id, Kind: c.hit.Kind, Text: c.hit.Text, Score: ex.Total, Timestamp: c.hit.Timestamp,
			SessionID: c.hit.SessionID, Role: c.hit.Role,
		}
		if q.Explain || e.Explain {
			x := ex
			roundExplain(&x)
			it.Explain = &x
		}
		items = append(items, it)
	}
	sortItems(items)
	if !found && (lexical || intent.Found) {
		res := Result{Items: []Item{}, Found: false, Note: "nothing stored matches the question well enough"}
		if t.PinImportance <= 1 && t.PinMax > 0 && q.Session == "" {
			// The profile is offered even so: "is there any medicine I
			// should avoid?" shares no word with "I am allergic to penicillin".
			if err := e.pin(ctx, s, &res, base, t, budget, k, q.Explain); err != nil {
				return Result{}, err
			}
			if len(res.Items) > 0 {
				res.Note = "nothing stored matches the question well enough; the pinned profile is offered"
			}
		}
		return res, nil
	}
	items, dropped, err := e.dropSuperseded(ctx, s, cands, items, asOf, k)
	if err != nil {
		return Result{}, err
	}
	res := pack(items, budget, k)
	res.Found = len(res.Items) > 0
	if t.PinImportance <= 1 && t.PinMax > 0 && q.Session == "" {
		if err := e.pin(ctx, s, &res, base, t, budget, k, q.Explain); err != nil {
			return Result{}, err
		}
	}
	if dropped > 0 {
		res.Note = fmt.Sprintf("%d item(s) holding a superseded value left out", dropped)
	}
	if !res.Found {
		res.Note = "nothing stored matches the question well enough"
	}
	return res, nil
}

// memoriesOnly reports whether q filters on what only memories have (a
// session, role, source or entity): day records and facts are then left out.
func (q Query) memoriesOnly() bool {
	return q.Session != "" || q.Role != "" || q.Source != "" || q.Entity != ""
}

// importantRecent answers a question with no words to search and no date:
// the newest and the most important memories within every filter, and the
// newest day records and surest current facts where the filters allow them,
// by importance and recency alone.
func (e *Engine) importantRecent(ctx context.Context, s Searcher, q Query, base store.SearchOptions,
	asOf time.Time, half time.Duration, budget, k int) (Result, error) {
	o := base
	o.Limit = max(k*5, 50)
	mems, err := s.RecentMemories(ctx, o)
	if err != nil {
		return Result{}, err
	}
	hits := make([]store.Hit, 0, len(mems)+2*layerCandidates)
	for _, m := range mems {
		hits = append(hits, m.Hit)
	}
	if !q.memoriesOnly() {
		lo := store.SearchOptions{Since: base.Since, Until: base.Until, Limit: layerCandidates}
		days, err := s.SearchDayRecords(ctx, lo)
		if err != nil {
			return Result{}, err
		}
		facts, err := s.SearchCurrentFacts(ctx, lo)
		if err != nil {
			return Result{}, err
		}
		for _, d := range days {
			hits = append(hits, d.Hit)
		}
		for _, f := range facts {
			hits = append(hits, f.Hit)
		}
	}
	items := make([]Item, 0, len(hits))
	for _, h := range hits {
		ex := Explain{Importance: math.Max(0, math.Min(1, h.Importance)), Recency: recency(h.Timestamp, asOf, half)}
		ex.Total = round4(0.5*ex.Importance + 0.5*ex.Recency)
		it := Item{ID: fmt.Sprintf("%s:%d", h.Kind, h.ID), Kind: h.Kind, Text: h.Text, Score: ex.Total,
			Timestamp: h.Timestamp, SessionID: h.SessionID, Role: h.Role}
		if q.Explain || e.Explain {
			roundExplain(&ex)
			it.Explain = &ex
		}
		items = append(items, it)
	}
	sortItems(items)
	res := pack(items, budget, k)
	res.Found = len(res.Items) > 0
	return res, nil
}

// recency is 1 for what happened at asOf, halving every half before it.
func recency(ts, asOf time.Time, half time.Duration) float64 {
	return math.Exp2(-math.Max(0, float64(asOf.Sub(ts))) / float64(half))
}

// pin offers the most important memories not already offered, at the end
// of the context: critical facts about the user are always there, even when
// nothing else matched (Found stays as it was). They take the last of the k
// places and must fit the budget like any item.
func (e *Engine) pin(ctx context.Context, s Searcher, res *Result, base store.SearchOptions, t Tuning, budget, k int, explain bool) error {
	o := base
	o.Limit = 50
	hits, err := s.ImportantMemories(ctx, o)
	if err != nil {
		return err
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Importance > hits[j].Importance })
	have := map[string]bool{}
	for _, it := range res.Items {
		have[it.ID] = true
		have[strings.ToLower(oneLine(it.Text))] = true
	}
	var pins []Item
	for _, h := range hits {
		if len(pins) >= min(t.PinMax, k-1) || h.Importance < t.PinImportance {
			break
		}
		id := fmt.Sprintf("memory:%d", h.ID)
		if have[id] || have[strings.ToLower(oneLine(h.Text))] {
			continue
		}
		have[id] = true
		it := Item{ID: id, Kind: "memory", Text: h.Text, Timestamp: h.Timestamp, SessionID: h.SessionID, Role: h.Role}
		if explain {
			it.Explain = &Explain{Importance: round4(h.Importance), Pinned: true}
		}
		pins = append(pins, it)
	}
	if len(pins) == 0 {
		return nil
	}
	ranked := res.Items[:min(len(res.Items), k-len(pins))]
	note := res.Note
	found := res.Found
	*res = pack(append(append([]Item(nil), ranked...), pins...), budget, k)
	res.Found, res.Note = found, note
	return nil
}

func total(t Tuning, ex Explain, lexical bool) float64 {
	if !lexical {
		return t.InRange*ex.InRange + 0.3*ex.Importance + 0.1*ex.Recency + t.Entity*ex.Entity
	}
	lex := t.Relevance*ex.Relevance + t.Expansion*ex.Expansion + t.Kind*ex.ByKind
	lex = max(lex, t.Neighbour*ex.Neighbour)
	return lex + t.Informative*ex.Informative + t.Context*ex.Context + t.Coverage*ex.Coverage + t.Importance*ex.Importance + t.Use*ex.Use + t.Recency*ex.Recency + t.Speaker*ex.Speaker +
		t.Entity*ex.Entity + t.InRange*ex.InRange + t.DayRecord*ex.DayRecord + t.Semantic*ex.Semantic
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func roundExplain(x *Explain) {
	for _, p := range []*float64{&x.Relevance, &x.Expansion, &x.ByKind, &x.Coverage, &x.Informative, &x.Importance, &x.Use, &x.Recency,
		&x.Speaker, &x.Entity, &x.InRange, &x.Neighbour, &x.DayRecord, &x.Context, &x.Semantic, &x.Total} {
		*p = round4(*p)
	}
}

func sortItems(items []Item) {
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].Score != items[j].Score {
			return items[i].Score > items[j].Score
		}
		if !items[i].Timestamp.Equal(items[j].Timestamp) {
			return items[i].Timestamp.After(items[j].Timestamp)
		}
		return items[i].ID < items[j].ID
	})
}

// normBM25 turns n BM25 scores (lower is better) into relevance relative
// to the best: 1 for the best match, 0 for none.
func normBM25(n int, bm25 func(int) float64) []float64 {
	best := 0.0
	for i := range n {
		best = math.Min(best, bm25(i))
	}
	out := make([]float64, n)
	if best >= 0 {
		return out
	}
	for i := range n {
		out[i] = bm25(i) / best
	}
	return out
}

func topMemories(cands map[string]*cand, n int) []*cand {
	var out []*cand
	for _, c := range cands {
		if c.hit.Kind == "memory" && c.ex.Relevance > 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ex.Total != out[j].ex.Total {
			return out[i].ex.Total > out[j].ex.Total
		}
		return out[i].hit.ID < out[j].hit.ID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// unknownName returns the first of names when no memory and no current
// fact stored by until contains any of them, or "". One known name is
// enough to go on: a capitalised word may be a concept worded otherwise
// ("Thanksgiving" beside a known "Caroline").
func unknownName(ctx context.Context, s Searcher, names []string, until time.Time) (string, error) {
	for _, n := range names {
		o := store.SearchOptions{Terms: []string{n}, Until: until, Limit: 1}
		mems, err := s.SearchMemories(ctx, o)
		if err != nil {
			return "", err
		}
		if len(mems) > 0 {
			return "", nil
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
	}
	if len(names) == 0 {
		return "", nil
	}
	return names[0], nil
}

// properNames are the capitalised words of a question after its first word
// ("When did Caroline go to the LGBTQ support group?" → caroline, lgbtq),
// lowercased.
func properNames(q string) []string {
	var out []string
	first := true
	for _, f := range strings.FieldsFunc(q, func(r rune) bool { return !text.IsWordRune(r) && r != '\'' && r != '’' }) {
		f = strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "’s")
		w := []rune(f)
		if len(w) == 0 {
			continue
		}
		if !first && unicode.IsUpper(w[0]) && len(w) > 1 && !text.IsStopword(strings.ToLower(f)) {
			out = append(out, strings.ToLower(f))
		}
		first = false
	}
	return dedupe(out)
}

// markSpeakers sets the speaker part of the memories whose role's first
// word is a name the question uses.
func markSpeakers(cands map[string]*cand, names []string) {
	for _, c := range cands {
		for _, n := range names {
			if c.hit.Kind == "memory" && strings.EqualFold(firstWord(c.hit.Role), n) {
				c.ex.Speaker = 1
			}
		}
	}
}

// speakerNames are the names that are the first word of a hit's role.
func speakerNames(names []string, hits []store.MemoryHit) []string {
	var out []string
	for _, n := range names {
		for _, h := range hits {
			if strings.EqualFold(firstWord(h.Role), n) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool { return !text.IsWordRune(r) }); i >= 0 {
		return s[:i]
	}
	return s
}

func without(words, drop []string) []string {
	var out []string
	for _, w := range words {
		keep := true
		for _, d := range drop {
			if w == d || stem(w) == stem(d) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, w)
		}
	}
	return out
}

func dedupe(words []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func containsFold(list []string, w string) bool {
	for _, x := range list {
		if strings.EqualFold(x, w) || strings.EqualFold(firstWord(x), w) {
			return true
		}
	}
	return false
}

// neighbourGap bounds how far apart in time two turns of a session may be
// and still lend each other relevance: a session id reused the next day
// ("status", "daily") is not one conversation.
const neighbourGap = 6 * time.Hour

func nearInTime(a, b time.Time) bool {
	d := a.Sub(b)
	return d <= neighbourGap && d >= -neighbourGap
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

// coverage is the share of words whose stem occurs in s.
// namesAny reports whether s contains any of names as a word.
func namesAny(s string, names []string) bool {
	for _, w := range text.Words(s) {
		for _, n := range names {
			if strings.EqualFold(w, n) {
				return true
			}
		}
	}
	return false
}

// dayStart is the midnight that starts t's day in loc.
func dayStart(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// coverage is the share of the query's words the text holds.
func coverage(words []string, s string) float64 { return coverageDefined(words, s, nil) }

// coverageDefined is coverage where a word the item holds only by a word
// of its definition counts for definitionCredit.
func coverageDefined(words []string, s string, defs map[string][]string) float64 {
	if len(words) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, w := range text.Words(s) {
		have[stem(w)] = true
	}
	n := 0.0
	for _, w := range words {
		if have[stem(w)] {
			n++
			continue
		}
		for _, d := range defs[w] {
			if have[stem(d)] {
				n += definitionCredit
				break
			}
		}
	}
	return n / float64(len(words))
}

// stem is a light English suffix stripper: close enough to the index's
// Porter stemmer to tell whether a word occurs in a text.
func stem(w string) string {
	for _, suf := range []string{"ational", "ization", "iveness", "fulness", "ousness", "ations", "ation", "ities",
		"ments", "ment", "ness", "ings", "ing", "ied", "ies", "ers", "er", "ed", "es", "ly", "s", "e", "y", "i"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// feedback picks words that recur among the best hits (pseudo-relevance
// feedback), rarest in the candidate set first.
func feedback(hits []store.MemoryHit, words, skip []string, docs, n int) []string {
	if len(hits) == 0 || n <= 0 {
		return nil
	}
	df := map[string]int{}
	for _, h := range hits {
		seen := map[string]bool{}
		for _, w := range text.Terms(h.Text) {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	tf := map[string]float64{}
	for i, h := range hits {
		if i >= docs {
			break
		}
		for _, w := range text.Terms(h.Text) {
			tf[w] += 1 / float64(i+1)
		}
	}
	q := map[string]bool{}
	for _, w := range append(append([]string{}, words...), skip...) {
		q[stem(w)] = true
	}
	type sc struct {
		w string
		s float64
	}
	var list []sc
	total := float64(len(hits))
	for w, f := range tf {
		if q[stem(w)] || len(w) < 3 || isNumber(w) {
			continue
		}
		idf := math.Log(1 + total/float64(df[w]))
		list = append(list, sc{w, f * idf})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].s != list[j].s {
			return list[i].s > list[j].s
		}
		return list[i].w < list[j].w
	})
	var out []string
	for i := 0; i < len(list) && len(out) < n; i++ {
		out = append(out, list[i].w)
	}
	return out
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
