package recall

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// The profile: durable statements about the user built by consolidation
// ("The user is allergic to penicillin."). The lines that share a concept
// with the question are offered first, within Tuning.ProfileTokens of the
// budget, whatever else matched: "any medicine I should avoid?" shares no
// word with the allergy, but penicillin is a medicine. The important
// memories no line states yet are the rest of the profile (pin).

// ProfileReader is what the profile stage needs from an agent's storage; a
// *store.Agent provides it. A Searcher without it has no profile.
type ProfileReader interface {
	Profile(ctx context.Context, asOf time.Time) ([]store.ProfileLine, error)
}

// profileAt is the profile as of the question, read once a recall: the
// joins (bindSubject) and the profile stage both read it. None when the
// storage keeps no profile.
func (r *ranker) profileAt(ctx context.Context) ([]store.ProfileLine, error) {
	pr, ok := r.s.(ProfileReader)
	if !ok || r.profileRead {
		return r.profileRows, nil
	}
	lines, err := pr.Profile(ctx, r.asOf)
	if err != nil {
		return nil, err
	}
	r.profileRows, r.profileRead = lines, true
	return lines, nil
}

// profileShare is the most of the k places profile lines take: the rest
// are for the memories that answer the question.
const profileShare = 3

// categoryWords are the words a question about a category uses without
// naming what the line holds: "what do I do for a living?" asks of work,
// "do I have kids?" of family. A line's category and key count as these.
var categoryWords = map[string][]string{
	"identity": {"name", "called", "birthday", "born", "age", "pronouns", "nationality", "language"},
	"contact":  {"phone", "number", "mobile", "email", "contact", "reach"},
	"home":     {"home", "live", "address", "city", "timezone", "rent", "flat", "apartment", "house", "moved"},
	"work":     {"work", "job", "living", "career", "occupation", "profession", "employer", "company", "boss", "manager", "colleague", "office", "role", "title"},
	"family":   {"family", "kids", "children", "child", "son", "daughter", "wife", "husband", "partner", "married", "parents", "mother", "father", "brother", "sister", "sibling"},
	"pets":     {"pet", "animal", "dog", "cat"},
	"health": {"health", "allergic", "allergy", "allergies", "medicine", "medication", "drug", "doctor", "gp", "prescribe",
		"prescription", "pharmacy", "pill", "tablet", "condition", "sick", "ill", "illness", "infection", "hospital", "blood", "react"},
	"diet":       {"diet", "eat", "food", "meat", "vegetarian", "vegan", "meal", "dinner", "lunch", "restaurant", "cook", "drink"},
	"vehicle":    {"car", "drive", "vehicle"},
	"providers":  {"provider", "providers", "supplier"}, // each line names its own: a dentist's is no vet's
	"preference": {"like", "prefer", "favourite", "favorite", "love", "hate", "enjoy", "never", "always"},
	"routine":    {"routine", "every", "weekly", "usually", "schedule", "regularly"},
}

// unhelpful are words every line of a profile shares, which tell nothing
// about what a line says: its subject as written, and the kinds every
// person has.
var unhelpful = map[string]bool{"user": true, "animate": true, "person": true, "individual": true, "someone": true, "somebody": true}

// profileLines are the profile lines matching the question, best first, as
// items within the profile's share of the budget and of k, and the
// memories each cites (by the line's id); none when the profile is off, the
// question filters on what only memories have, or the storage keeps no
// profile.
func (r *ranker) profileLines(ctx context.Context) ([]Item, map[string][]string, error) {
	if _, ok := r.s.(ProfileReader); !ok || r.t.ProfileTokens <= 0 || r.q.memoriesOnly() || !r.lexical() {
		return nil, nil, nil
	}
	lines, err := r.profileAt(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read the profile: %w", err)
	}
	q, attrs := questionConcepts(r.words), questionConcepts(r.attrWords())
	var matched []scoredLine
	r.namesOnly = map[string]bool{}
	for _, l := range lines {
		lc := conceptsOf(l)
		if s := q.match(lc); s > 0 && s >= r.t.MinCoverage && !r.lineAboutOthers(l) && !l.ValidFrom.Before(r.since) { // "since April": said since, as memories
			matched = append(matched, scoredLine{l, s})
			if len(attrs) > 0 && attrs.match(lc) == 0 {
				r.namesOnly[fmt.Sprintf("profile:%d", l.ID)] = true
			}
		}
	}
	sort.SliceStable(matched, func(i, j int) bool { return matched[i].score > matched[j].score })
	items, sources := r.withinShare(matched)
	return items, sources, nil
}

// attrWords are the question's words but those naming whom it asks about:
// what it asks of them.
func (r *ranker) attrWords() []string {
	var out []string
	for _, w := range r.words {
		if !r.namesSubject(w) {
			out = append(out, w)
		}
	}
	return out
}

// answeringLines are the matched lines but those holding only whom the
// question asks about ("Luca is the user's son." asked when Luca has
// swimming): with no item beside them, such a line answers nothing.
func (r *ranker) answeringLines() []Item {
	return slices.DeleteFunc(slices.Clone(r.lines), func(it Item) bool { return r.namesOnly[it.ID] })
}

type scoredLine struct {
	store.ProfileLine
	score float64
}

// withinShare keeps the best lines while they fit ProfileTokens and the
// profile's share of k.
func (r *ranker) withinShare(lines []scoredLine) ([]Item, map[string][]string) {
	places := max(1, r.k/profileShare)
	used := 0
	var out []Item
	sources := map[string][]string{}
	r.lineData = map[string]store.ProfileLine{}
	for _, l := range lines {
		it := r.profileItem(l.ProfileLine, l.score)
		tok := text.EstimateTokens(Line(it)) + 1
		if len(out) >= places || used+tok > r.t.ProfileTokens {
			break
		}
		used += tok
		out = append(out, it)
		r.lineData[it.ID] = l.ProfileLine
		for _, id := range l.SourceMemoryIDs {
			sources[it.ID] = append(sources[it.ID], fmt.Sprintf("memory:%d", id))
		}
	}
	return out, sources
}

func (r *ranker) profileItem(l store.ProfileLine, score float64) Item {
	it := Item{ID: fmt.Sprintf("profile:%d", l.ID), Kind: "profile", Text: l.Text, Score: round4(score), Timestamp: l.ValidFrom}
	if r.q.Explain || r.e.Explain {
		it.Explain = &Explain{Coverage: round4(coverage(r.words, l.Text)), Total: it.Score}
	}
	return it
}

// concepts are, for each of a question's words, the stems that stand for
// it and how closely (1 for the word itself, related for what the lexicon
// relates to it or its definition names), and the profile category its
// topic routes to.
type concepts []concept

type concept struct {
	stems map[string]float64
	// routed is the stem of the category the word's topic asks about: a
	// line is filed under a category by the builder, and only the
	// question's own word or its topic reach it by that ("what Spanish
	// class?" is no question of family, though WordNet relates a class
	// to a family).
	routed string
}

// related is what a concept reached through the lexicon or a definition
// weighs against the question's own word.
const related = 0.5

func questionConcepts(words []string) concepts {
	var q concepts
	for _, w := range text.Unique(words) {
		c := concept{stems: map[string]float64{}}
		add := func(x string, weight float64) {
			if s := stem(strings.ToLower(x)); !unhelpful[s] && c.stems[s] < weight {
				c.stems[s] = weight
			}
		}
		add(w, 1)
		for _, x := range Expand([]string{w}) {
			add(x, related)
		}
		for _, x := range Define(w) {
			add(x, related)
		}
		if t := topicOf(w); t != nil {
			// A topic's members are what the word asks for; its
			// category's lines are the ones it is routed to.
			for _, m := range t.members {
				add(m, 1)
			}
			if t.category != "" {
				add(t.category, related)
				c.routed = stem(t.category)
			}
		}
		q = append(q, c)
	}
	return q
}

// lineConcepts are the stems a line stands for: its own (its words, its
// subject and value, its category's and key's words) and the kinds of
// thing it names (penicillin: a medicine).
type lineConcepts struct{ own, filed, kinds map[string]bool }

// lineCache keeps each line's concepts: a line's words never change (an
// edit is a new line), and finding a line's kinds is most of the stage's
// cost. Cleared when full, which a store of many agents' profiles reaches
// only seldom.
var lineCache = memo[string, lineConcepts]{max: 4096}

func conceptsOf(l store.ProfileLine) lineConcepts {
	key := strings.Join([]string{l.Category, l.Subject, l.Key, l.Value, l.Text}, "\x00")
	return lineCache.get(key, func() lineConcepts { return readConcepts(l) })
}

func readConcepts(l store.ProfileLine) lineConcepts {
	c := lineConcepts{own: stems(l.Text + " " + l.Value + " " + l.Subject + " " + strings.ReplaceAll(l.Key, "_", " ")),
		filed: stems(l.Category + " " + strings.Join(categoryWords[l.Category], " "))}
	c.kinds = stems(kinds.Of(l.Text + " " + l.Value))
	return c
}

// stems are the stems of s's words that tell something.
func stems(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range text.Words(strings.ToLower(s)) {
		if st := stem(w); !unhelpful[st] && !text.IsStopword(w) {
			out[st] = true
		}
	}
	return out
}

// match is the share of the question's words a line holds, each counted
// at the weight of the closest of its concepts the line holds: the
// precision floor's coverage, by concept. A kind the line names answers
// only the question's own word: a related word of a kind reaches too far (a
// garden is an area, and so, by one sense of Rex, is a kingdom).
func (q concepts) match(l lineConcepts) float64 {
	if len(q) == 0 {
		return 0
	}
	score := 0.0
	for _, c := range q {
		best := 0.0
		for s, w := range c.stems {
			if l.own[s] || l.filed[s] && (w == 1 || s == c.routed) || w == 1 && l.kinds[s] {
				best = max(best, w)
			}
		}
		score += best
	}
	return score / float64(len(q))
}

// freshLines are the matching lines but those stating a value the ranked
// items say is stale: a line the builder has not replaced yet ("rent is
// 1,450" beside the fact that the rent went up to 1,520) is not offered as
// current.
func (r *ranker) freshLines(ctx context.Context, items []Item) ([]Item, error) {
	if len(r.lines) == 0 {
		return nil, nil
	}
	stale := r.stale // what staleValues found, when it ran
	if len(items) > 0 && !r.staleRead {
		var err error
		if stale, _, _, err = r.staleSaid(ctx, slices.Clone(items)); err != nil { // a copy: staleSaid rewords correcting memories
			return nil, err
		}
	}
	told, err := r.toldSince(ctx)
	if err != nil {
		return nil, err
	}
	var said []store.Hit
	for _, it := range items[:min(len(items), r.k)] {
		if c := r.cands[it.ID]; c != nil && it.Kind == "memory" {
			said = append(said, c.hit)
		}
	}
	for _, h := range told {
		said = append(said, h.Hit)
	}
	var out []Item
	for _, l := range r.lines {
		if !containsAny(text.Words(l.Text), stale) && !r.restated(r.lineData[l.ID], said) && !r.sourcesRetiredToday(r.lineData[l.ID]) {
			out = append(out, l)
		}
	}
	return out, nil
}

// sourcesRetiredToday reports whether every memory l states was retired
// by a correction no night has read yet (correctedToday): "I've switched
// dentists, I'm with Parkside Smiles now" ends the line naming the old
// dentist the morning it is said, as the night would.
func (r *ranker) sourcesRetiredToday(l store.ProfileLine) bool {
	return len(r.retiredToday) > 0 && len(l.SourceMemoryIDs) > 0 &&
		!slices.ContainsFunc(l.SourceMemoryIDs, func(id int64) bool { return !r.retiredToday[id] })
}

// toldLimit bounds how many of the newest memories no night has read yet
// are checked for a new value of an offered line (toldSince).
const toldLimit = 50

// toldSince are the newest memories (toldLimit) no night has read yet,
// read once a question: what they state retires an older value among the
// items or an offered line, though they share no word with the question
// (today's "I got promoted to lead designer" and "what is my job title?").
func (r *ranker) toldSince(ctx context.Context) ([]store.MemoryHit, error) {
	if r.e.Claims == nil || r.toldRead {
		return r.told, nil
	}
	o := r.base
	o.Terms, o.Limit = nil, toldLimit
	hits, err := r.s.RecentMemories(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("read the newest memories: %w", err)
	}
	r.told = slices.DeleteFunc(hits, func(h store.MemoryHit) bool { return h.Consolidated })
	r.toldRead = true
	return r.told, nil
}

// restated reports whether a memory of said, newer than the one-valued
// line l, states another value of its claim: today's "my mobile is 07700
// 900 462 from today" retires the line the night before wrote from the old
// number, before the next night rebuilds it.
func (r *ranker) restated(l store.ProfileLine, said []store.Hit) bool {
	if !l.Single || r.e.Claims == nil {
		return false
	}
	value := joinWords(l.Value)
	for _, h := range said {
		if !h.Timestamp.After(l.ValidFrom) {
			continue
		}
		for _, f := range r.claimsIn(&h) {
			if strings.EqualFold(f.Subject, l.Subject) && f.Key == l.Key && joinWords(f.Value) != value {
				r.succeeds(h)
				return true
			}
		}
	}
	return false
}

// profile is the stage that finds the lines matching the question, and
// the memories they state.
func (r *ranker) profile(ctx context.Context) error {
	lines, sources, err := r.profileLines(ctx)
	r.lines, r.lineSources = lines, sources
	return err
}
