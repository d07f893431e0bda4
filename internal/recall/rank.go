package recall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// Searcher is what recall needs from an agent's storage; a *store.Agent
// provides it.
type Searcher interface {
	SearchMemories(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	MatchesMemories(ctx context.Context, o store.SearchOptions) (bool, error) // whether SearchMemories finds any
	RecentMemories(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	MemoriesInRange(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	Neighbours(ctx context.Context, ids []int64, span int, o store.SearchOptions) ([]store.MemoryHit, error)
	SearchDayRecords(ctx context.Context, o store.SearchOptions) ([]store.ConsolidationHit, error)
	SearchCurrentFacts(ctx context.Context, o store.SearchOptions) ([]store.FactHit, error)
	FactsAbout(ctx context.Context, entity, attribute string, asOf time.Time) ([]store.FactHit, error)
	SupersededValues(ctx context.Context, memoryIDs []int64, asOf time.Time) (values []string, by []int64, err error)
	SupersededTexts(ctx context.Context, memoryIDs []int64, asOf time.Time) ([]string, error)
	ReplacedMatching(ctx context.Context, o store.SearchOptions) ([]store.Replaced, error)
	ImportantMemories(ctx context.Context, o store.SearchOptions) ([]store.MemoryHit, error)
	Speaks(ctx context.Context, name string, until time.Time) (bool, error)
}

// Explain is why an item ranked where it did: the parts of its score, as the
// API serves them.
type Explain = client.Explain

// Tuning holds the ranker's weights. The zero value means the defaults
// (measured on LoCoMo's development split; see the package README).
type Tuning struct {
	Relevance, Expansion, Importance, Recency float64
	Kind                                      float64 // weight of a match by kind ("cities": Chicago)
	Use                                       float64 // weight of a fact's use (access count)
	Informative                               float64 // weight of a memory's informativeness (see informative)
	Speaker, Entity, InRange, Neighbour       float64
	DayRecord, Coverage, Reply, Context       float64
	FollowUp                                  float64 // share of a best hit's score the answer to a follow-up question about it inherits
	Asking                                    float64 // weight of a turn that asks, of another than whom the question asks about (askingTurns; negative)
	Context2                                  float64 // share of Context two turns away
	NeighbourSpan, NeighbourFrom              int     // around the best max(k, NeighbourFrom) memories
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
	// ProfileTokens is the most of the budget the profile lines matching
	// the question take (profile.go); 0 turns the profile off, pinned
	// memories with it.
	ProfileTokens int
	// DayRecords: offer day records (consolidations) as items.
	DayRecords bool
	// NoFeedback, NoNeighbours, NoSpeaker switch parts off (for measuring).
	NoFeedback, NoNeighbours, NoSpeaker, NoExpansion bool
	// NoStrictDates keeps items from outside the question's date range
	// (ranked lower) instead of leaving them out.
	NoStrictDates bool
	// LatestRecency is the least recency weight of a question that asks for
	// the latest ("the last meeting with Bob") or as of a time.
	LatestRecency float64
	// DateImportance and DateRecency weigh a question whose date is all it
	// says ("what happened on March 2"), beside InRange and Entity.
	DateImportance, DateRecency float64
	// WordlessImportance and WordlessRecency weigh a question with no words
	// to search and no date: the most important recent items are offered.
	WordlessImportance, WordlessRecency float64
	// Semantic weighs the embedding similarity (Explain.Semantic) when the
	// engine has a QueryEmbedder (0 there: DefaultSemantic); MinSimilarity
	// is the cosine below which it counts as none (0: DefaultMinSimilarity).
	// A memory above it is offered even when it holds none of the words.
	Semantic, MinSimilarity float64
}

// DefaultTuning is the ranker's defaults.
var DefaultTuning = Tuning{
	Relevance: 1.0, Expansion: 0.25, Importance: 0.08, Recency: 0.04,
	Speaker: 0.25, Entity: 0.1, InRange: 0.5, Neighbour: 0.2, Reply: 0.8, FollowUp: 0.4, Asking: -0.4, DayRecord: 0.1, Context: 0.5,
	NeighbourSpan: 2, Context2: 0.5, FeedbackDocs: 5, FeedbackTerms: 6,
	MinCoverage: 0.2, PinImportance: 0.9, PinMax: 2, ProfileTokens: 200, DayRecords: true, Coverage: 0.4, Kind: 0.4, Use: 0.05, Informative: 0.25,
	LatestRecency: 0.5, DateImportance: 0.3, DateRecency: 0.1, WordlessImportance: 0.5, WordlessRecency: 0.5,
}

// TuningWith is DefaultTuning with the configured precision floor.
func TuningWith(minCoverage float64) Tuning {
	t := DefaultTuning
	t.MinCoverage = minCoverage
	return t
}

// windowNote: the newest max_candidates full-text matches (400 by default;
// half as many for related words) are scored by BM25 and the best kept,
// which bounds the cost of common words in a large store and ranks every
// match in a small one. Measured on LoCoMo's development split, a window of
// 400 ranks as well as one of 1,000 (every figure the same, R@10 79.4),
// and scores 600 rows fewer for a common word at 100,000 memories;
// 250 loses 0.1, 150 a point.

type cand struct {
	hit      store.Hit
	entities store.EntityTexts // decoded when read (names questions only)
	day      string
	ex       Explain
	srcIDs   []int64 // day records and facts: their memories
	fact     *store.FactHit
	// standsFor is the text of the superseded memories the question matched
	// that this one replaced (replaced): held words count as its own.
	standsFor []string
	member    bool // found by a member of a topic the question names (topics.go)
	// things are the names of members it was found by (namedMembers),
	// lowercased: "Tallyho take £9 a month" names a provider, no one.
	things   []string
	entNames []string // the entities that may name people, nil when not read (entityNames)
	toldOf   int8     // 1 tells of a time in the question's range, 2 plans for one after it, -1 neither, 0 not read (toldOfRange)
	near     int8     // a near-miss of the question: 1 yes, -1 no, 0 not read (nearMiss)
}

// ranker is one question on its way through the full ranker: lexical
// relevance with related words and feedback, the speaker and entities the
// question names, its date range, the turns around a hit, the day records
// and facts, a precision floor and the suppression of superseded values.
// Each stage is a method; run puts them in order.
type ranker struct {
	e                  *Engine
	s                  Searcher
	q                  Query
	t                  Tuning
	budget, k, maxCand int
	half               time.Duration
	// asOf is the question's time; since and until bound what may answer
	// (the request's bounds narrowed by the question's own).
	asOf, since, until time.Time
	intent             when.Range
	words              []string            // searched for: the question's, less its date and the speakers it names
	forms              []string            // the words of its question's form, searched only asked of a speaker (askedAndFormWords)
	names              []string            // the proper names it uses, lowercased
	people             []string            // those of names that name people (peopleNamed)
	asked              []string            // whom it asks about: people and role chains (questionSubject)
	subject            []string            // asked, with every key bound to them (bindSubject)
	self               bool                // it asks of the user's own ("my car insurance")
	when               bool                // self, and it asks when something is or will be (asksWhen)
	whenDone           bool                // it asks when something was done (asksWhenDone)
	us                 bool                // it asks as "we" or "our" (householdAsOurs)
	alone              bool                // of the user alone ("book me a room"), not of "we" (singular)
	aliases            map[string][]string // its words naming the subject → the other words for it
	joinedBy           []store.MemoryHit   // the memories that joined the subject's names
	attrs              []string            // the stems of its words that are not its people (attrStems)
	usersAttr          int8                // 1 when it calls what it asks of the user's, -1 not, 0 unread (asksUsersAttr)
	compounds          []compound          // its nouns said with which one ("the yoga class"; compound.go)
	ofWhom             []compound          // those, after a role's possessive too and those it asks which one of, when read (lacksCompound)
	forThings          []forThing          // its nouns said with the thing they are for ("the code for the garage door")
	speakers           []string            // those of names that speak in the hits
	talk               int8                // 1 when a candidate is a turn of a named speaker, -1 not, 0 unread (ofNamedNonSpeaker)
	voices             []string            // the names whose turns are speaker matches (voices)
	own                bool                // self, and of the user's things, not a need or a plan (asksOfOwn)
	wishes             bool                // and of wishes and plans too (asksWishes)
	past               bool                // its verbs ask of what happened (when.AsksPast)
	suits              bool                // it asks whether something suits the user (asksSuitability)
	amount             bool                // it asks how much something cost (asksAmount)
	naming             bool                // of the user's own or a role of theirs, it asks what something is called (asksName)
	defs               map[string][]string // the gap words' definitions
	relKinds           map[string][]string // words' related words that name kinds
	members            map[string][]string // the question's topic words and their members (topics.go)
	kindHits           []store.MemoryHit   // the hits by kind the gap check reads (gapHits), their kinds added to the text
	base               store.SearchOptions // the filters every memory search keeps
	memHits            []store.MemoryHit   // the hits of words, best first
	cands              map[string]*cand
	lines              []Item              // the profile lines matching the question, offered first
	profileRows        []store.ProfileLine // the profile as of the question, once profileRead (profileAt)
	profileRead        bool
	lineSources        map[string][]string          // each line's memories ("profile:2" → "memory:4"), which pin leaves out
	lineData           map[string]store.ProfileLine // each offered line as stored, by its id
	retiredToday       map[int64]bool               // memories a correction no night has read retires (correctedToday)
	claims             capture.Claims               // the candidates' texts as Corrected reads them, once a recall
	told               []store.MemoryHit            // the newest memories no night has read (toldSince)
	toldRead           bool
	successors         map[int64]store.Hit     // told memories that retired an item or a line, offered in their place
	claimMemo          map[int64][]claim.Claim // each memory's one-valued claims, read once (claimsIn)
	stale              [][]string              // the stale values staleValues found, when staleRead
	staleRead          bool
	analyses           map[string]*analysis // each text's words, read once (analysed)
	stemmed            map[string]string    // each word's stem, made once (ranker.stem)
	seen               map[string]struct{}  // termsOf's, cleared for each text
	kinds              map[string]string    // each text's kinds.Of, made once (ranker.kindsOf)
	sibWords           []string             // its words that may have siblings (nearmiss.go)
	thing              []string             // the nouns of the thing it asks about (thing.go), when read
	thingOwned         bool                 // the thing is the user's own ("my bus pass"), not a possessor's
	thingAttrs         *[]askedAttr         // the attributes it asks of a thing (attrowner.go), when read
	sibMemo            map[string]bool      // kinds.Siblings of a question word and a text's, made once
	namesOnly          map[string]bool      // the lines matching only whom it asks about (answeringLines)
}

const noMatch = "nothing stored matches the question well enough"

// rankRecall ranks q with the full ranker.
func (e *Engine) rankRecall(ctx context.Context, s Searcher, q Query, asOf time.Time, half time.Duration, budget, k, maxCand int) (Result, error) {
	r := &ranker{e: e, s: s, q: q, t: e.tuning(), asOf: asOf, half: half, budget: budget, k: k, maxCand: maxCand,
		cands: map[string]*cand{}}
	r.bound()
	r.words, r.forms = askedAndFormWords(r.intent.Rest)
	r.compounds = compoundsOf(r.intent.Rest, r.words)
	r.forThings = forThingsOf(r.intent.Rest, r.words)
	r.names = properNames(q.Text)
	r.voices = r.names
	r.people = peopleNamed(r.intent.Rest)
	r.asked, r.self = questionSubject(r.intent.Rest, r.people)
	r.alone = r.self && singular(r.intent.Rest)
	r.subject = slices.Clone(r.asked)
	r.own, r.wishes, r.us = r.asksOfOwn(), r.asksWishes(), asksOfUs(r.q.Text)
	r.past = when.AsksPast(r.intent.Rest)
	r.suits = asksSuitability(q.Text)
	r.amount = asksAmount(r.intent.Rest)
	r.naming = r.ofUserOrRole() && asksName(r.intent.Rest)
	r.when = r.self && asksWhen(q.Text)
	r.whenDone = asksWhenDone(q.Text)
	r.base = store.SearchOptions{Since: r.since, Until: r.until, Session: q.Session,
		Role: q.Role, Source: q.Source, Entity: q.Entity,
		Window: maxCand, // see windowNote
	}
	return r.run(ctx)
}

// ofUserOrRole reports whether the question asks of the user's own or of
// a role of theirs ("my son"), naming no one: LoCoMo's questions, which
// name the speakers, are read otherwise.
func (r *ranker) ofUserOrRole() bool {
	return len(r.people) == 0 && (r.self || len(r.asked) > 0)
}

// tuning is the engine's Tuning, with the defaults where it gives none.
func (e *Engine) tuning() Tuning {
	t := e.Tuning
	if t == (Tuning{}) {
		t = DefaultTuning
	}
	if e.Semantic != nil && t.Semantic == 0 {
		t.Semantic = DefaultSemantic
	}
	return t
}

// bound reads the question's date intent and narrows since and until by
// it: "as of March", "since Monday" bound what may answer.
func (r *ranker) bound() {
	r.intent = when.Parse(r.q.Text, r.asOf, nil)
	r.since, r.until = r.q.Since, r.asOf
	if !r.q.Until.IsZero() && r.q.Until.Before(r.until) {
		r.until = r.q.Until
	}
	if r.intent.Since.After(r.since) {
		r.since = r.intent.Since
	}
	if !r.intent.Until.IsZero() && r.intent.Until.Before(r.until) {
		// "As of March" asks as March would have answered: its end is the
		// as_of, for recency and for which values were current.
		r.until, r.asOf = r.intent.Until, r.intent.Until
		r.t.Recency = max(r.t.Recency, r.t.LatestRecency)
	}
	if r.intent.Latest {
		r.t.Recency = max(r.t.Recency, r.t.LatestRecency) // "the last meeting with Bob": the newest match wins
	}
}

// dropUnstoredNames takes out of the words the question searches and is
// covered by the capitalised words that name no person and that nothing
// stored holds ("the Brooks Ghost trainers", "a flight to Tromsø"): no item
// holds them, so they tell no item from another, and counted they would
// sink the one that answers below the floor. A thing's word (thingWord)
// stays, stored or not.
func (r *ranker) dropUnstoredNames(ctx context.Context) error {
	for _, n := range slices.DeleteFunc(without(properNames(r.intent.Rest), r.people), thingWord) {
		unknown, err := unknownName(ctx, r.s, []string{n}, r.until)
		if err != nil {
			return err
		}
		if unknown != "" {
			r.words = slices.DeleteFunc(r.words, func(w string) bool { return strings.EqualFold(w, n) })
		}
	}
	return nil
}

// thingWord reports whether n, a name of the question (lowercase), is a
// thing's word: one of the hand-written lists' ("GP") or a topic's cue
// ("TV"), held by kind or by the topic's members where not by itself.
func thingWord(n string) bool { return kinds.Listed(n) || topicOf(n) != nil }

// run puts the stages in order.
func (r *ranker) run(ctx context.Context) (Result, error) {
	name, err := r.unstoredName(ctx)
	if err != nil {
		return Result{}, err
	}
	if name != "" {
		return r.offer(ctx, nil, fmt.Sprintf("nothing stored names %q", name))
	}
	if err := r.dropUnstoredNames(ctx); err != nil {
		return Result{}, err
	}
	if err := r.dateCandidates(ctx); err != nil {
		return Result{}, err
	}
	if !r.lexical() && !r.intent.AsksTime() {
		return r.importantRecent(ctx)
	}
	for _, stage := range []func(context.Context) error{
		r.wordCandidates, r.bindSubject, r.replaced, r.expansion, r.layers, r.markSpeakersAndRange, r.semanticArm,
		r.markEntities, r.passages, r.score, r.neighbours, r.askingTurns, r.latest, r.profile,
	} {
		if err := stage(ctx); err != nil {
			return Result{}, err
		}
	}
	items, found := r.floor()
	if !found {
		return r.nothingMatches(ctx)
	}
	items, dropped, err := r.currentItems(ctx, items)
	if err != nil {
		return Result{}, err
	}
	res, err := r.offer(ctx, items, "")
	if err != nil {
		return Result{}, err
	}
	if dropped > 0 {
		res.Note = fmt.Sprintf("%d item(s) holding a superseded value left out", dropped)
	}
	if !res.Found {
		res.Note = noMatch
	}
	return res, nil
}

// unstoredName is a person the question asks about (peopleNamed) that no
// memory or fact names, or "": "When is Bob's birthday?" with only
// Alice's stored has no answer here, and saying so beats offering someone
// else's. One other name stored is enough to go on, as in unknownName: a
// place or a thing.
func (r *ranker) unstoredName(ctx context.Context) (string, error) {
	name, err := unknownName(ctx, r.s, r.people, r.until)
	if others := without(properNames(r.intent.Rest), r.people); name != "" && err == nil && len(others) > 0 {
		var other string
		if other, err = unknownName(ctx, r.s, others, r.until); other == "" {
			name = ""
		}
	}
	return name, err
}

// currentItems are the floor's items as they stand now: without those
// holding a superseded value (dropped: how many), with the corrections
// of pro-forms and of the day, and without retired sentences.
func (r *ranker) currentItems(ctx context.Context, items []Item) (current []Item, dropped int, err error) {
	items, dropped, err = r.staleValues(ctx, items)
	if err != nil {
		return nil, 0, err
	}
	extra, err := r.proFormCorrections(ctx, items)
	if err != nil {
		return nil, 0, err
	}
	extra = r.proFormsCorrecting(items, extra)
	items = r.withProForms(r.correctedToday(items, extra), extra)
	items, err = r.withoutRetiredSentences(ctx, items)
	return items, dropped, err
}

// lexical reports whether the question has words to search for.
func (r *ranker) lexical() bool { return len(r.words) > 0 }

// get is the candidate for h, made on first sight.
func (r *ranker) get(h store.Hit) *cand {
	id := h.Kind + ":" + strconv.FormatInt(h.ID, 10) // fmt.Sprintf's "%s:%d", cheaper: called per hit
	c := r.cands[id]
	if c == nil {
		c = &cand{hit: h}
		r.cands[id] = c
	}
	return c
}

// offer packs the profile lines matching the question and the ranked
// items into the budget, with the pinned memories after them; Found says
// whether any line or ranked item was offered.
func (r *ranker) offer(ctx context.Context, items []Item, note string) (Result, error) {
	lines, err := r.freshLines(ctx, items)
	if err != nil {
		return Result{}, err
	}
	items = r.withSuccessors(items)
	res := pack(append(lines, items...), r.budget, r.k)
	res.Found = len(res.Items) > 0
	res.Note = note
	if err := r.pin(ctx, &res); err != nil {
		return Result{}, err
	}
	return res, nil
}

// nothingMatches is the answer when no item reaches the precision floor:
// none, but the profile is offered even so ("is there any medicine I
// should avoid?" shares no word with "I am allergic to penicillin").
func (r *ranker) nothingMatches(ctx context.Context) (Result, error) {
	r.lines = r.answeringLines()
	res, err := r.offer(ctx, nil, noMatch)
	switch {
	case err != nil:
	case res.Found:
		res.Note = "only the profile answers the question"
	case len(res.Items) > 0:
		res.Note = noMatch + "; the pinned profile is offered"
	}
	return res, err
}

// memoriesOnly reports whether q filters on what only memories have (a
// session, role, source or entity): day records and facts are then left out.
func (q Query) memoriesOnly() bool {
	return q.Session != "" || q.Role != "" || q.Source != "" || q.Entity != ""
}

// pin offers the most important memories not already offered, nor stated
// by a profile line offered, at the end of the context: the part of the
// profile consolidation has not written as lines yet, always there, even
// when nothing else matched (Found stays as it was). They take the last of
// the k places and must fit the budget like any item.
func (r *ranker) pin(ctx context.Context, res *Result) error {
	t, k := r.t, r.k
	if t.ProfileTokens <= 0 || t.PinImportance > 1 || t.PinMax <= 0 || r.q.Session != "" {
		return nil
	}
	o := r.base
	o.Limit = 50
	hits, err := r.s.ImportantMemories(ctx, o)
	if err != nil {
		return err
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Importance > hits[j].Importance })
	have := map[string]bool{}
	for _, it := range res.Items {
		for _, m := range r.lineSources[it.ID] {
			have[m] = true
		}
		have[it.ID] = true
		have[strings.ToLower(oneLine(it.Text))] = true
	}
	var pins []Item
	for _, h := range hits {
		if len(pins) >= min(t.PinMax, k-1) || h.Importance < t.PinImportance {
			break
		}
		id := fmt.Sprintf("memory:%d", h.ID)
		if have[id] || have[strings.ToLower(oneLine(h.Text))] || r.othersPinAskedOfUser(h.Text) {
			continue
		}
		have[id] = true
		it := Item{ID: id, Kind: "memory", Text: h.Text, Timestamp: h.Timestamp, SessionID: h.SessionID, Role: h.Role,
			Origin: h.Origin}
		if r.q.Explain {
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
	*res = pack(append(append([]Item(nil), ranked...), pins...), r.budget, k)
	res.Found, res.Note = found, note
	return nil
}
