package consolidate

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/extract"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Offline is the built-in consolidator: extractive and deterministic, no
// model. The day's summary is its most central and important sentences, its
// key facts the sentences that state something durable.
type Offline struct{}

// Provider is "offline".
func (Offline) Provider() string { return "offline" }

// Model names the extractor's version, so records say which one wrote them.
func (Offline) Model() string { return "extractive-v1" }

// Limits on a record, so one busy day cannot flood recall.
const (
	summarySentences = 5
	maxSentenceRunes = 240
	maxEntities      = 30
	maxTopics        = 10
	maxInsights      = 10
	maxKeyFacts      = 100
)

// Map makes a partial record of a chunk. It never fails and costs no call.
func (o Offline) Map(ctx context.Context, day string, mems []store.Memory) (Partial, Usage, error) {
	var sents []sentence
	var facts []KeyFact
	for i := range mems {
		m := &mems[i]
		for j, s := range capture.Sentences(m.Content) {
			if utf8.RuneCountInString(s) > 4*maxSentenceRunes {
				continue // pasted text, not something said
			}
			sents = append(sents, sentence{text: s, order: [2]int{i, j}, weight: 0.5 + m.Importance, memID: m.ID})
			facts = append(facts, extract.KeyFacts(s, m)...)
		}
	}
	p := Partial{
		Summary:  summarize(sents),
		KeyFacts: mergeFacts(facts),
		Entities: countEntities(mems),
		Topics:   rankTopics(mems),
		Insights: connect(mems),
	}
	return p, Usage{}, nil
}

// Reduce merges partials in day order into the day's record.
func (o Offline) Reduce(ctx context.Context, day string, parts []Partial) (Partial, Usage, error) {
	if len(parts) == 1 {
		return parts[0], Usage{}, nil
	}
	var sents []sentence
	var facts []KeyFact
	var ents []Entity
	var ins []Insight
	topicScore := map[string]int{}
	var topicOrder []string
	for i, p := range parts {
		for j, s := range capture.Sentences(p.Summary) {
			sents = append(sents, sentence{text: s, order: [2]int{i, j}, weight: 1})
		}
		facts = append(facts, p.KeyFacts...)
		ents = append(ents, p.Entities...)
		ins = append(ins, p.Insights...)
		for r, t := range p.Topics {
			if _, ok := topicScore[t]; !ok {
				topicOrder = append(topicOrder, t)
			}
			topicScore[t] += maxTopics - min(r, maxTopics-1) // Borda count
		}
	}
	slices.SortStableFunc(topicOrder, func(a, b string) int { return topicScore[b] - topicScore[a] })
	return Partial{
		Summary:  summarize(sents),
		KeyFacts: mergeFacts(facts),
		Entities: mergeEntities(ents),
		Topics:   topicOrder[:min(len(topicOrder), maxTopics)],
		Insights: mergeInsights(ins),
	}, Usage{}, nil
}

type sentence struct {
	text   string
	order  [2]int // memory (or partial) and sentence index: the day's order
	weight float64
	memID  int64
	terms  []string
	score  float64
}

// summarize picks the most central sentences, weighted by importance: a
// sentence is central when its words recur in the rest of the day. Near
// duplicates of a chosen sentence are skipped. The chosen ones are given in
// the day's order.
func summarize(sents []sentence) string {
	df := map[string]int{}
	for i := range sents {
		sents[i].terms = text.Terms(sents[i].text)
		for _, t := range sents[i].terms {
			df[t]++
		}
	}
	cands := make([]*sentence, 0, len(sents))
	for i := range sents {
		s := &sents[i]
		if len(s.terms) < 3 {
			continue // "ok, thanks!" says nothing about the day
		}
		shared := 0.0
		for _, t := range s.terms {
			shared += math.Log1p(float64(df[t] - 1))
		}
		s.score = (1 + shared) / math.Sqrt(float64(len(s.terms))) * s.weight
		cands = append(cands, s)
	}
	slices.SortStableFunc(cands, func(a, b *sentence) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return compareOrder(a.order, b.order)
	})
	var chosen []*sentence
	for _, c := range cands {
		if len(chosen) == summarySentences {
			break
		}
		if !slices.ContainsFunc(chosen, func(o *sentence) bool { return similar(o.terms, c.terms) }) {
			chosen = append(chosen, c)
		}
	}
	slices.SortFunc(chosen, func(a, b *sentence) int { return compareOrder(a.order, b.order) })
	parts := make([]string, len(chosen))
	for i, c := range chosen {
		parts[i] = endSentence(shorten(c.text))
	}
	return strings.Join(parts, " ")
}

func compareOrder(a, b [2]int) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// similar reports whether two sentences share most of their words (Jaccard
// at least one half).
func similar(a, b []string) bool {
	common := 0
	for _, t := range a {
		if slices.Contains(b, t) {
			common++
		}
	}
	return 2*common >= len(a)+len(b)-common
}

func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxSentenceRunes {
		return s
	}
	r := []rune(s)[:maxSentenceRunes-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}

// endSentence makes sure s ends like a sentence, so summaries split back
// into the same sentences when partials are reduced.
func endSentence(s string) string {
	r, _ := utf8.DecodeLastRuneInString(s)
	if strings.ContainsRune(".!?…\"'”’)", r) {
		return s
	}
	return s + "."
}

// countEntities counts in how many memories each entity appears, merging
// spellings that differ only in case.
func countEntities(mems []store.Memory) []Entity {
	var out []Entity
	idx := map[string]int{}
	for _, m := range mems {
		seen := map[string]bool{}
		for _, e := range m.Entities {
			k := e.Type + "\x00" + strings.ToLower(e.Text)
			if seen[k] {
				continue
			}
			seen[k] = true
			if i, ok := idx[k]; ok {
				out[i].Count++
				continue
			}
			idx[k] = len(out)
			out = append(out, Entity{Text: e.Text, Type: e.Type, Count: 1})
		}
	}
	return topEntities(out)
}

func mergeEntities(ents []Entity) []Entity {
	var out []Entity
	idx := map[string]int{}
	for _, e := range ents {
		k := e.Type + "\x00" + strings.ToLower(e.Text)
		if i, ok := idx[k]; ok {
			out[i].Count += e.Count
			continue
		}
		idx[k] = len(out)
		out = append(out, e)
	}
	return topEntities(out)
}

func topEntities(es []Entity) []Entity {
	slices.SortStableFunc(es, func(a, b Entity) int {
		if c := b.Count - a.Count; c != 0 {
			return c
		}
		if c := strings.Compare(strings.ToLower(a.Text), strings.ToLower(b.Text)); c != 0 {
			return c
		}
		return strings.Compare(a.Type, b.Type)
	})
	return nonNil(es[:min(len(es), maxEntities)])
}

// rankTopics orders the memories' topics by how many memories have them,
// then by first appearance.
func rankTopics(mems []store.Memory) []string {
	count := map[string]int{}
	var order []string
	for _, m := range mems {
		for _, t := range m.Topics {
			if count[t] == 0 {
				order = append(order, t)
			}
			count[t]++
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	return nonNil(order[:min(len(order), maxTopics)])
}

// connect finds the entities that several memories share: each is an
// insight naming the memories it links and what they are about.
func connect(mems []store.Memory) []Insight {
	var out []Insight
	idx := map[string]int{}
	topics := map[string]map[string]int{}
	for _, m := range mems {
		seen := map[string]bool{}
		for _, e := range m.Entities {
			k := strings.ToLower(e.Text)
			if !extract.Linking(e.Type) || seen[k] {
				continue
			}
			seen[k] = true
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, Insight{Entities: []string{e.Text}})
				topics[k] = map[string]int{}
			}
			out[i].MemoryIDs = append(out[i].MemoryIDs, m.ID)
			for _, t := range m.Topics {
				topics[k][t]++
			}
		}
	}
	kept := out[:0]
	for _, in := range out {
		if len(in.MemoryIDs) < 2 {
			continue
		}
		tc := topics[strings.ToLower(in.Entities[0])]
		for t := range tc {
			in.Topics = append(in.Topics, t)
		}
		slices.SortFunc(in.Topics, func(a, b string) int {
			if c := tc[b] - tc[a]; c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		in.Topics = in.Topics[:min(len(in.Topics), 3)]
		kept = append(kept, in)
	}
	return mergeInsights(kept)
}

// mergeInsights merges insights about the same entity, keeps the strongest
// and words them.
func mergeInsights(ins []Insight) []Insight {
	var out []Insight
	idx := map[string]int{}
	for _, in := range ins {
		k := strings.ToLower(strings.Join(in.Entities, "\x00"))
		i, ok := idx[k]
		if !ok {
			idx[k] = len(out)
			out = append(out, Insight{Entities: in.Entities, Topics: slices.Clone(in.Topics), MemoryIDs: slices.Clone(in.MemoryIDs)})
			continue
		}
		for _, id := range in.MemoryIDs {
			if !slices.Contains(out[i].MemoryIDs, id) {
				out[i].MemoryIDs = append(out[i].MemoryIDs, id)
			}
		}
		for _, t := range in.Topics {
			if !slices.Contains(out[i].Topics, t) && len(out[i].Topics) < 3 {
				out[i].Topics = append(out[i].Topics, t)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Insight) int { return len(b.MemoryIDs) - len(a.MemoryIDs) })
	out = out[:min(len(out), maxInsights)]
	for i := range out {
		in := &out[i]
		slices.Sort(in.MemoryIDs)
		in.Text = fmt.Sprintf("%s links %d memories", strings.Join(in.Entities, " and "), len(in.MemoryIDs))
		if len(in.Topics) > 0 {
			in.Text += " about " + strings.Join(in.Topics, ", ")
		}
	}
	return nonNil(out)
}

// mergeFacts merges the same claim found in several memories: one key fact
// with every source, at the highest confidence.
func mergeFacts(facts []KeyFact) []KeyFact {
	var out []KeyFact
	idx := map[string]int{}
	for _, f := range facts {
		// The same attribute with the same value is the same claim, however
		// it was worded (the user's "is on 14 March", the agent's echo).
		claim := strings.Join(text.Words(f.Content), " ")
		if f.Attribute != "" && f.Value != "" {
			claim = strings.Join(text.Words(f.Value), " ")
		}
		k := strings.ToLower(f.Entity) + "\x00" + f.Attribute + "\x00" + claim
		i, ok := idx[k]
		if !ok {
			idx[k] = len(out)
			f.MemoryIDs = slices.Clone(f.MemoryIDs)
			out = append(out, f)
			continue
		}
		out[i].Confidence = max(out[i].Confidence, f.Confidence)
		for _, id := range f.MemoryIDs {
			if !slices.Contains(out[i].MemoryIDs, id) {
				out[i].MemoryIDs = append(out[i].MemoryIDs, id)
			}
		}
	}
	return nonNil(out[:min(len(out), maxKeyFacts)])
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
