package recall

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Stale values are never offered as current. Two sources say a value is
// stale:
//   - a current fact among the first k items whose entity and attribute
//     have superseded values (the consolidation's fact history);
//   - a correcting memory among them that names the old value outright:
//     "the Q3 budget is $2.1M, not $2.4M", "changed from 3pm to 4pm",
//     "instead of 10:30".
//
// Memories that state a stale value are then left out, day records are
// offered without the sentences that state one, and a correcting memory is
// offered without its "not $2.4M" clause, ranked at least as high as the
// best item it displaced. A memory of today stating a new value of a
// one-valued attribute (Engine.Claims) makes the older values stale too.

// correction finds "not X", "instead of X", "rather than X", "no longer X",
// "from X to Y" where X is a value (it holds a digit).
var correction = regexp.MustCompile(`(?i)[,;]?\s*\b(?:not|instead of|rather than|no longer|formerly|previously|from)\s+((?:[$€£]\s?)?\d[\w.,:%/$€£-]*[\w%])(?:\s+to\b)?`)

// staleIn returns the values a memory says are no longer right, and its
// text with those clauses taken out ("from X to Y" keeps "to Y").
func staleIn(s string) (stale [][]string, cleaned string) {
	if !mayCorrect(s) {
		return nil, s
	}
	locs := correction.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return nil, s
	}
	var b strings.Builder
	last := 0
	for _, l := range locs {
		phrase := strings.ToLower(s[l[0]:l[1]])
		val := s[l[2]:l[3]]
		isFrom := strings.Contains(phrase, "from")
		if isFrom && !strings.HasSuffix(strings.TrimSpace(phrase), " to") {
			continue // "from 9 am" alone is a time, not a change
		}
		if w := text.Words(val); len(w) > 0 {
			stale = append(stale, w)
		}
		b.WriteString(s[last:l[0]])
		if isFrom {
			b.WriteString(" to")
		}
		last = l[1]
	}
	b.WriteString(s[last:])
	return stale, strings.Join(strings.Fields(b.String()), " ")
}

// staleValues leaves out the items stating a stale value (see above) and
// reports how many it left out.
func (r *ranker) staleValues(ctx context.Context, items []Item) ([]Item, int, error) {
	stale, correcting, outdated, err := r.staleSaid(ctx, items)
	r.stale, r.staleRead = stale, err == nil // the profile lines are checked against the same (freshLines)
	if err != nil || len(stale) == 0 {
		return items, 0, err
	}
	kept := items[:0:0]
	dropped := 0
	best := 0.0
	for i, it := range items {
		if it.Kind == "consolidation" && !outdated[i] {
			if t, ok := withoutStaleSentences(it.Text, stale, r.words); ok {
				it.Text = t // a day record goes on without the sentences stating them
				kept = append(kept, it)
				continue
			}
		}
		if outdated[i] || (it.Kind != "fact" && !correcting[i] && containsAny(text.Words(it.Text), stale)) {
			dropped++
			best = max(best, it.Score)
			continue
		}
		kept = append(kept, it)
	}
	for i := range kept {
		if kept[i].Kind == "memory" && kept[i].Score < best && isCorrecting(kept[i], r.cands) {
			kept[i].Score = best
			if kept[i].Explain != nil {
				kept[i].Explain.Total = best
			}
		}
	}
	sortItems(kept)
	return kept, dropped, nil
}

// staleSaid returns the values the first k items say are stale (a current
// fact's superseded values, a correcting memory's old ones, the values a
// newer memory replaced) but for those a current fact holds, which items
// correct, and which facts a newer memory outdated; a correcting memory's
// text loses its stale clause.
func (r *ranker) staleSaid(ctx context.Context, items []Item) ([][]string, map[int]bool, map[int]bool, error) {
	told, err := r.toldSince(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	stale, correcting, outdated := r.replacedValues(items, told)
	recorded, by, err := r.recordedStaleValues(ctx, items)
	if err != nil {
		return nil, nil, nil, err
	}
	stale = append(stale, recorded...)
	for i, it := range items {
		if c := r.cands[it.ID]; c != nil && it.Kind == "memory" && slices.Contains(by, c.hit.ID) {
			correcting[i] = true // it ended the value it names ("not allergic to X after all")
		}
	}
	current := map[string]bool{}
	for i, it := range items[:min(len(items), r.k)] {
		c := r.cands[it.ID]
		if c == nil || outdated[i] {
			continue
		}
		if c.fact != nil && c.fact.Attribute != "" {
			current[strings.Join(text.Words(c.fact.Value), " ")] = true
			old, err := r.s.FactsAbout(ctx, c.fact.Entity, c.fact.Attribute, r.asOf)
			if err != nil {
				return nil, nil, nil, err
			}
			for _, f := range old {
				if w := text.Words(f.Value); len(w) > 0 {
					stale = append(stale, w)
				}
			}
			continue
		}
		if it.Kind == "memory" {
			if st, cleaned := staleIn(it.Text); len(st) > 0 {
				stale = append(stale, st...)
				items[i].Text = cleaned
				correcting[i] = true
			}
		}
	}
	var keep [][]string
	for _, w := range stale {
		if !current[strings.Join(w, " ")] {
			keep = append(keep, w)
		}
	}
	return keep, correcting, outdated, nil
}

// recordedStaleValues are the superseded values the memories behind the
// day records among the first k stated (store.SupersededValues): a record
// keeps the sentence its memory said them in. by are the memories that
// superseded them.
func (r *ranker) recordedStaleValues(ctx context.Context, items []Item) (stale [][]string, by []int64, err error) {
	var ids []int64
	for _, it := range items[:min(len(items), r.k)] {
		if c := r.cands[it.ID]; c != nil && it.Kind == "consolidation" {
			ids = append(ids, c.srcIDs...)
		}
	}
	values, by, err := r.s.SupersededValues(ctx, ids, r.asOf)
	for _, v := range values {
		if w := text.Words(v); len(w) > 0 {
			stale = append(stale, w)
		}
	}
	return stale, by, err
}

// correctedToday is items without what a correction no night has read yet
// retires among them (capture.Corrected: "actually, make it Thursday
// instead", said this morning): the memories it corrects and the agent's
// echo of them, the facts only they stated, and the day records'
// sentences of theirs. The night then retires them in the store.
//
// extra are corrections said after them that are not among the items
// (proFormCorrections: "changed my mind, the blue one" shares no word
// with the question): they retire too, and are not offered.
func (r *ranker) correctedToday(items []Item, extra []store.Hit) []Item {
	hits := make([]store.Hit, 0, len(items))
	for _, it := range items {
		if c := r.cands[it.ID]; c != nil && it.Kind == "memory" {
			hits = append(hits, c.hit)
		}
	}
	retired := map[int64]bool{}
	for _, some := range [][]store.Hit{hits, extra} {
		for _, h := range some {
			if h.Consolidated || strings.EqualFold(h.Role, "assistant") {
				continue
			}
			if corr, ok := correctionOf(h); ok {
				old := r.claims.Corrected(h, corr, hits, holdsKind)
				for _, id := range append(old, capture.Echoes(hits, old, hits)...) {
					retired[id] = true
				}
			}
		}
	}
	if len(retired) == 0 {
		return items
	}
	r.retiredToday = retired
	var said [][]string
	for _, h := range hits {
		if retired[h.ID] {
			said = append(said, text.Words(h.Text))
		}
	}
	kept := items[:0:0]
	for _, it := range items {
		c := r.cands[it.ID]
		switch {
		case c == nil:
		case it.Kind == "memory" && retired[c.hit.ID]:
			continue
		case it.Kind == "fact" && len(c.srcIDs) > 0 && !slices.ContainsFunc(c.srcIDs, func(id int64) bool { return !retired[id] }):
			continue
		case it.Kind == "consolidation":
			t, ok := withoutSentencesOf(it.Text, said, r.words)
			if !ok {
				continue
			}
			it.Text = t
		}
		kept = append(kept, it)
	}
	return kept
}

// withoutRetiredSentences is items with the day records among the first k
// offered without the sentences of their memories that a successor said by
// as_of retired (store.SupersededTexts: a correction, a new value): a
// record left with none of the question's words is not offered.
func (r *ranker) withoutRetiredSentences(ctx context.Context, items []Item) ([]Item, error) {
	var ids []int64
	for _, it := range items[:min(len(items), r.k)] {
		if c := r.cands[it.ID]; c != nil && it.Kind == "consolidation" {
			ids = append(ids, c.srcIDs...)
		}
	}
	retired, err := r.s.SupersededTexts(ctx, ids, r.asOf)
	if err != nil || len(retired) == 0 {
		return items, err
	}
	said := make([][]string, len(retired))
	for i, t := range retired {
		said[i] = text.Words(t)
	}
	kept := items[:0:0]
	for i, it := range items {
		if it.Kind == "consolidation" && i < r.k {
			t, ok := withoutSentencesOf(it.Text, said, r.words)
			if !ok {
				continue
			}
			it.Text = t
		}
		kept = append(kept, it)
	}
	return kept, nil
}

// withoutSentencesOf is a day record's text without the sentences one of
// the memories said holds whole; ok as withoutStaleSentences.
func withoutSentencesOf(s string, said [][]string, words []string) (string, bool) {
	sents := splitSentences(s)
	kept := sents[:0:0]
	for _, x := range sents {
		w := text.Words(x)
		if len(w) == 0 || !slices.ContainsFunc(said, func(m []string) bool { return containsAny(m, [][]string{w}) }) {
			kept = append(kept, x)
		}
	}
	if len(kept) == len(sents) {
		return s, true
	}
	left := strings.Join(kept, " ")
	return left, len(kept) > 0 && coverage(words, left) > 0
}

// stated is a value of a one-valued attribute a memory among the items
// states, and when.
type stated struct {
	item  int
	value string // its words, joined
	at    time.Time
	told  *store.Hit // the memory not among the items that stated it (item -1)
}

// replacedValues finds what the night has not superseded yet: the
// one-valued claims the memories among the first k state (Engine.Claims:
// "new number: 0687 220 915" is the user's phone, as the night will key it),
// and for each the values an older fact or memory among them gave the same
// attribute. Those values are stale, the facts holding them outdated, and
// the memory stating the newest value is kept whatever else it says. Only a
// memory the night has not read yet can make a value stale: without one,
// no memory text is read at all.
func (r *ranker) replacedValues(items []Item, told []store.MemoryHit) (stale [][]string, newest, outdated map[int]bool) {
	top := items[:min(len(items), r.k)]
	claims := r.claimsOf(top, r.unconsolidated())
	if len(told) > 0 && len(r.claimsOf(top, nil)) > 0 {
		for i := range told { // today's "promoted to lead designer", though it shares no word with the question
			r.addClaims(claims, -1, &told[i].Hit)
		}
	}
	newest, outdated = map[int]bool{}, map[int]bool{}
	if len(claims) == 0 {
		return nil, newest, outdated
	}
	for k, cs := range r.claimsOf(top, nil) {
		claims[k] = appendNew(claims[k], cs)
	}
	for _, cs := range claims {
		last := cs[0]
		for _, c := range cs[1:] {
			if c.at.After(last.at) {
				last = c
			}
		}
		for _, c := range cs {
			if c.value == last.value || !c.at.Before(last.at) {
				continue
			}
			stale = append(stale, strings.Fields(c.value))
			if c.item >= 0 && top[c.item].Kind == "fact" {
				outdated[c.item] = true
			}
			if last.item >= 0 {
				newest[last.item] = true
			} else {
				r.succeeds(*last.told)
			}
		}
	}
	return stale, newest, outdated
}

// claimsOf is the one-valued claims of the items by entity and key: those
// of the memories in only when only is not nil, else those of every memory
// and fact.
func (r *ranker) claimsOf(top []Item, only map[string]bool) map[string][]stated {
	claims := map[string][]stated{}
	for i, it := range top {
		c := r.cands[it.ID]
		switch {
		case c == nil || (only != nil && !only[it.ID]):
		case c.fact != nil && c.fact.Attribute != "" && !claim.Many(c.fact.Attribute): // many values: none is stale
			k := c.fact.Entity + "\x00" + c.fact.Attribute
			claims[k] = append(claims[k], stated{i, joinWords(c.fact.Value), c.hit.Timestamp, nil})
		case it.Kind == "memory":
			r.addClaims(claims, i, &c.hit)
		}
	}
	return claims
}

// addClaims adds the one-valued claims memory h states, as item i (-1: a
// memory not among the items).
func (r *ranker) addClaims(claims map[string][]stated, i int, h *store.Hit) {
	if r.e.Claims == nil {
		return
	}
	var told *store.Hit
	if i < 0 {
		told = h
	}
	for _, f := range r.claimsIn(h) {
		k := f.Subject + "\x00" + f.Key
		claims[k] = append(claims[k], stated{i, joinWords(f.Value), h.Timestamp, told})
	}
}

// claimsIn is what Engine.Claims reads in memory h, read once a question
// however many items and lines ask.
func (r *ranker) claimsIn(h *store.Hit) []claim.Claim {
	if cs, ok := r.claimMemo[h.ID]; ok {
		return cs
	}
	if r.claimMemo == nil {
		r.claimMemo = map[int64][]claim.Claim{}
	}
	cs := r.e.Claims(h.Text, h.Role)
	r.claimMemo[h.ID] = cs
	return cs
}

// succeeds records that h, a memory not among the items, states the value
// that retired one of them: it is offered in its place (withSuccessors).
func (r *ranker) succeeds(h store.Hit) {
	if r.successors == nil {
		r.successors = map[int64]store.Hit{}
	}
	r.successors[h.ID] = h
}

// withSuccessors is items with the memories that retired some of them
// first, when not among them already: asked "what is my job title?" today,
// the title said today is the answer, though it shares no word with it.
func (r *ranker) withSuccessors(items []Item) []Item {
	if len(r.successors) == 0 {
		return items
	}
	have := map[string]bool{}
	score := 1.0
	for _, it := range items {
		have[it.ID] = true
		score = max(score, it.Score)
	}
	var first []Item
	for _, h := range r.successors {
		id := fmt.Sprintf("memory:%d", h.ID)
		if !have[id] {
			first = append(first, Item{ID: id, Kind: "memory", Text: h.Text, Score: score, Timestamp: h.Timestamp,
				SessionID: h.SessionID, Role: h.Role, Origin: h.Origin})
		}
	}
	sortItems(first)
	return append(first, items...)
}

// unconsolidated is the ids of the memories among the candidates no night
// has read.
func (r *ranker) unconsolidated() map[string]bool {
	ids := map[string]bool{}
	for id, c := range r.cands {
		if c.hit.Kind == "memory" && !c.hit.Consolidated {
			ids[id] = true
		}
	}
	return ids
}

// appendNew appends to a the claims of b it lacks.
func appendNew(a, b []stated) []stated {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}

func joinWords(s string) string { return strings.Join(text.Words(s), " ") }

// mayCorrect is a cheap test that s could hold a correction: a digit and
// one of the correction words.
func mayCorrect(s string) bool {
	if strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 {
		return false
	}
	l := strings.ToLower(s)
	for _, w := range []string{"not ", "instead of", "rather than", "no longer", "formerly", "previously", "from "} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// isCorrecting reports whether the item's stored text names a stale value.
func isCorrecting(it Item, cands map[string]*cand) bool {
	c := cands[it.ID]
	if c == nil {
		return false
	}
	st, _ := staleIn(c.hit.Text)
	return len(st) > 0
}

// containsAny reports whether words holds any of the sequences.
func containsAny(words []string, seqs [][]string) bool {
	for _, seq := range seqs {
		for i := 0; i+len(seq) <= len(words); i++ {
			match := true
			for j, w := range seq {
				if words[i+j] != w {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
	}
	return false
}

// withoutStaleSentences is a day record's text without the sentences that
// state a stale value. ok is false when sentences went and what is left
// holds none of the question's words: the record is then not offered.
func withoutStaleSentences(s string, stale [][]string, words []string) (string, bool) {
	sents := splitSentences(s)
	kept := sents[:0:0]
	for _, x := range sents {
		if !containsAny(text.Words(x), stale) {
			kept = append(kept, x)
		}
	}
	if len(kept) == len(sents) {
		return s, true
	}
	left := strings.Join(kept, " ")
	return left, len(kept) > 0 && coverage(words, left) > 0
}

// splitSentences cuts s after each ".", "!", "?" or "…" followed by a
// space, as a record's summary joins its sentences; "$2.4M" stays whole.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		end := i + utf8.RuneLen(r)
		if end < len(s) && s[end] == ' ' && strings.ContainsRune(".!?…", r) {
			out = append(out, strings.TrimSpace(s[start:end]))
			start = end
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// holdsKind is capture.OfKind by the kinds lexicon: "sold my bike" ends
// "I ride my Brompton to work".
func holdsKind(h store.Hit, kind string) bool { return kinds.Holds(h.Text, kind) }
