// Package answer writes answers from recalled context: a model through the
// LLM boundary when one is configured, otherwise an extractive answer made of
// the context's best sentences. Every answer cites the items it used, and a
// citation in an answer always names an item of that answer's context.
package answer

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Generator is the model that writes answers: an *llm.Client.
type Generator interface {
	Generate(ctx context.Context, req llm.Request) (string, llm.Usage, error)
	Provider() string
	Model() string
}

// Answerer recalls a context and answers from it.
type Answerer struct {
	Recall *recall.Engine
	// Model writes the answer; nil answers extractively (the offline
	// provider).
	Model Generator
	// MaxSentences bounds an extractive answer (3 when zero).
	MaxSentences int
}

// DefaultMaxSentences is an extractive answer's length when unset.
const DefaultMaxSentences = 3

// NothingFound is the answer when nothing relevant is stored.
const NothingFound = "Nothing stored answers this."

// Result is an answer with the context it came from, as the API serves it.
type Result = client.Answer

// Ask recalls q's context from s and answers from it.
func (a *Answerer) Ask(ctx context.Context, s recall.Searcher, q recall.Query) (Result, error) {
	return a.AskFrom(ctx, []recall.Source{{Searcher: s}}, q)
}

// AskFrom recalls q's context from the reader's own storage and the agents
// it reads (recall.Engine.RecallFrom) and answers from it.
func (a *Answerer) AskFrom(ctx context.Context, sources []recall.Source, q recall.Query) (Result, error) {
	eng := a.Recall
	if eng == nil {
		eng = &recall.Engine{}
	}
	res, err := recallExplained(ctx, eng, sources, q)
	if err != nil {
		return Result{}, err
	}
	asOf := q.AsOf
	if asOf.IsZero() {
		asOf = time.Now()
		if eng.Now != nil {
			asOf = eng.Now()
		}
	}
	ans, err := a.Compose(ctx, q.Text, asOf, res, false)
	if err == nil && !q.Explain && !eng.Explain {
		ans.Items = unexplained(ans.Items)
	}
	return ans, err
}

// recallExplained recalls q with every item's explanation, since that is
// where recall marks the items it pinned, which answer only what they
// address.
func recallExplained(ctx context.Context, eng *recall.Engine, sources []recall.Source, q recall.Query) (recall.Result, error) {
	q.Explain = true
	return eng.RecallFrom(ctx, sources, q)
}

// unexplained drops the explanations nobody asked for.
func unexplained(items []recall.Item) []recall.Item {
	out := make([]recall.Item, len(items))
	for i, it := range items {
		it.Explain = nil
		out[i] = it
	}
	return out
}

// Compose answers question from a recalled context, only from the items
// that address it (see answering). When recall found nothing, or none of
// its items addresses the question, it abstains without calling the model,
// unless always is set (evaluation asks a model what it answers with no
// memory at all). A model's answer that cites none of those items is an
// abstention too.
func (a *Answerer) Compose(ctx context.Context, question string, asOf time.Time, res recall.Result, always bool) (Result, error) {
	out := Result{Question: question, Items: res.Items, Context: res.Context, Tokens: res.Tokens, Provider: "offline"}
	if out.Items == nil {
		out.Items = []recall.Item{}
	}
	if a.Model != nil {
		out.Provider = a.Model.Provider() + "/" + a.Model.Model()
	}
	if always && a.Model != nil {
		return a.generate(ctx, out, asOf, res, nil)
	}
	usable := answering(question, res)
	if len(usable) == 0 {
		return abstain(out), nil
	}
	if a.Model == nil {
		out.Answer, out.Citations = Extract(question, usable, a.maxSentences())
		return out, nil
	}
	return a.generate(ctx, out, asOf, res, usable)
}

// generate asks the model, repairs its citations against the context and,
// unless usable is nil (always answer), turns an answer citing none of the
// usable items into an abstention: it either said that nothing stored
// answers, in its own words, or drew only on pinned items that do not
// address the question.
func (a *Answerer) generate(ctx context.Context, out Result, asOf time.Time, res recall.Result, usable []recall.Item) (Result, error) {
	raw, u, err := a.Model.Generate(ctx, llm.Request{System: systemPrompt, Prompt: Prompt(out.Question, asOf, markPinned(res))})
	if err != nil {
		return Result{}, fmt.Errorf("answer with %s: %w", out.Provider, err)
	}
	usage := client.AnswerUsage(u)
	out.Usage = &usage
	valid := make(map[string]bool, len(res.Items))
	for _, it := range res.Items {
		valid[it.ID] = true
	}
	out.Answer, out.Citations, out.Dropped = Validate(raw, valid)
	if out.Answer == "" {
		out.Answer = NothingFound
	}
	if usable != nil && !citesAny(out.Citations, usable) {
		return abstain(out), nil
	}
	return out, nil
}

// abstain is out saying that nothing stored answers the question.
func abstain(out Result) Result {
	out.Answer, out.Abstained, out.Citations = NothingFound, true, []string{}
	return out
}

// answering is what may answer question: nothing when recall found nothing
// (the items it then offers are only pinned), otherwise the items it
// ranked and those it pinned that address the question (recall.Addresses):
// "is there any medicine I should avoid?" is answered by the pinned "I am
// allergic to penicillin", "what am I allergic to?" never by the pinned
// "we keep the memory store on SQLite".
func answering(question string, res recall.Result) []recall.Item {
	if !res.Found {
		return nil
	}
	var out []recall.Item
	for _, it := range res.Items {
		if !pinned(it) || recall.Addresses(question, it.Text) {
			out = append(out, it)
		}
	}
	return out
}

// pinned reports whether recall offered it whatever the question's words
// (its explanation says so).
func pinned(it recall.Item) bool { return it.Explain != nil && it.Explain.Pinned }

// citesAny reports whether cites names one of items.
func citesAny(cites []string, items []recall.Item) bool {
	for _, it := range items {
		if slices.Contains(cites, it.ID) {
			return true
		}
	}
	return false
}

func (a *Answerer) maxSentences() int {
	if a.MaxSentences > 0 {
		return a.MaxSentences
	}
	return DefaultMaxSentences
}

const systemPrompt = `You answer a user's question from the memory context given to you, and from nothing else.
Each context line starts with its citation in square brackets, such as [memory:12], [fact:3] or [consolidation:5].
Lines marked ` + pinnedMark + ` after the citation are always included, whatever the question: use one only if it answers the question.
Rules:
- Use only what the context says. If it does not answer the question, say briefly that nothing stored answers it, and cite nothing.
- After every claim, cite the line(s) it came from with their citation exactly as written, e.g. "The budget is $2.1M [memory:12]."
- Never cite anything that is not in the context. Never invent ids.
- When lines disagree, prefer the newer one and say it was corrected.
- Answer in at most three sentences of plain text.`

// pinnedMark follows the citation of a pinned item's line in the model's
// context.
const pinnedMark = "(always included)"

// markPinned is res's context with the pinned items' lines marked, so the
// model knows they were not found by the question.
func markPinned(res recall.Result) string {
	lines := strings.Split(res.Context, "\n")
	for _, it := range res.Items {
		if !pinned(it) {
			continue
		}
		cite := "[" + it.ID + "] "
		for i, l := range lines {
			if rest, ok := strings.CutPrefix(l, cite); ok {
				lines[i] = cite + pinnedMark + " " + rest
			}
		}
	}
	return strings.Join(lines, "\n")
}

// Prompt is the user turn of an answer request.
func Prompt(question string, asOf time.Time, context string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Now: %s\n\nContext:\n", asOf.Format("Monday 2006-01-02 15:04 MST"))
	if strings.TrimSpace(context) == "" {
		b.WriteString("(nothing)\n")
	} else {
		b.WriteString(context)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nQuestion: %s", oneLine(question))
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Extract is the offline answer: up to n statements of items, each followed
// by the citations of every item that says it. Sentences sharing words with
// the question come first (ties to the better-ranked item); when none does,
// recall's best items speak (it already judged them relevant, by date or
// importance). A sentence saying what a chosen one says (see statement) is
// not said again: its item is cited beside the first. The chosen sentences
// are given in rank order.
func Extract(question string, items []recall.Item, n int) (string, []string) {
	if n <= 0 {
		n = DefaultMaxSentences
	}
	terms := text.Terms(question)
	var cands []candidate
	for r, it := range items {
		for p, s := range capture.Sentences(prose(it)) {
			cands = append(cands, candidate{rank: r, pos: p, overlap: overlap(terms, s), sentence: s, id: it.ID, says: statementOf(s)})
		}
	}
	best := pickStatements(cands, n)
	citeEverySource(best, cands)
	slices.SortStableFunc(best, func(a, b chosen) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.pos, b.pos))
	})
	return render(best)
}

// candidate is a sentence of an item the answer may say.
type candidate struct {
	rank, pos int // the item's place in the context, the sentence's in the item
	overlap   int // the question's terms it holds
	sentence  string
	id        string
	says      statement
}

// chosen is a sentence the answer says, with every item that says it.
type chosen struct {
	candidate
	ids []string
}

// pickStatements chooses up to n sentences that say different things: the
// highest overlap first, then rank, or when none shares a word with the
// question, the first sentence of each of the best items.
func pickStatements(cands []candidate, n int) []chosen {
	best := make([]chosen, 0, n)
	pick := func(ok func(c candidate) bool) {
		for _, c := range cands {
			if len(best) < n && ok(c) && !saidIn(best, c.says) {
				best = append(best, chosen{candidate: c, ids: []string{c.id}})
			}
		}
	}
	maxOv := 0
	for _, c := range cands {
		maxOv = max(maxOv, c.overlap)
	}
	for ov := maxOv; ov >= 1; ov-- {
		pick(func(c candidate) bool { return c.overlap == ov })
	}
	if len(best) == 0 {
		pick(func(c candidate) bool { return c.pos == 0 })
	}
	return best
}

func saidIn(best []chosen, st statement) bool {
	return slices.ContainsFunc(best, func(b chosen) bool { return b.says.same(st) })
}

// citeEverySource adds to each chosen sentence the items of every candidate
// that says the same thing, in rank order.
func citeEverySource(best []chosen, cands []candidate) {
	for i := range best {
		for _, c := range cands {
			if best[i].says.same(c.says) && !slices.Contains(best[i].ids, c.id) {
				best[i].ids = append(best[i].ids, c.id)
			}
		}
	}
}

// render writes the chosen sentences, each followed by its citations, and
// returns them with the citations in order of first use.
func render(best []chosen) (string, []string) {
	var b strings.Builder
	var cites []string
	for _, c := range best {
		// Quoted, as the context shows it: a "[fact:77]" in the text is not a citation.
		s := recall.Quote(c.sentence)
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if !strings.ContainsAny(s[len(s)-1:], ".!?") {
			s += "."
		}
		b.WriteString(s + " ")
		for _, id := range c.ids {
			b.WriteString("[" + id + "]")
			if !slices.Contains(cites, id) {
				cites = append(cites, id)
			}
		}
	}
	if cites == nil {
		return NothingFound, []string{}
	}
	return b.String(), cites
}

// prose is what an item says in sentences. A fact's text is its entity, a
// colon and its statement ("user: My new phone number is 555-0199."): the
// entity is a label, not part of what is said.
func prose(it recall.Item) string {
	if it.Kind == "fact" {
		if _, statement, ok := strings.Cut(it.Text, ": "); ok {
			return statement
		}
	}
	return it.Text
}

// statement is what a sentence says, reduced to compare it with another's:
// its words in order, its values (the words holding a digit: numbers,
// times, codes), its other content words and whether it negates.
type statement struct {
	all     string   // every word, in order
	values  string   // the values, in order
	content []string // the other content words, sorted, once each
	negated bool     // "Bob does not eat fish" is no "Bob eats fish"
}

func statementOf(sentence string) statement {
	words := text.Words(sentence)
	var st statement
	var values []string
	for _, w := range words {
		switch {
		case strings.ContainsFunc(w, unicode.IsDigit):
			values = append(values, w)
		case negation[w]:
			st.negated = true
		case text.IsTerm(w) && w != "user": // "my" and "the user's" name the same person
			st.content = append(st.content, w)
		}
	}
	slices.Sort(st.content)
	st.all, st.values, st.content = strings.Join(words, " "), strings.Join(values, " "), slices.Compact(st.content)
	return st
}

var negation = map[string]bool{"not": true, "no": true, "never": true, "nor": true, "t": true, "without": true, "cannot": true}

// same reports whether two sentences say the same thing: the same words, or
// the same values where the content words of one are all among the other's
// ("The user's phone number is 555-0199." and "My new phone number is
// 555-0199."), neither negating what the other does not. Values alone are
// not enough: "The launch is on 6 March" and "The party is on 6 March"
// share one but say different things.
func (a statement) same(b statement) bool {
	if a.all != "" && a.all == b.all {
		return true
	}
	if a.values == "" || a.values != b.values || a.negated != b.negated || len(a.content) == 0 || len(b.content) == 0 {
		return false
	}
	return within(a.content, b.content) || within(b.content, a.content)
}

// within reports whether every word of the sorted small is in the sorted big.
func within(small, big []string) bool {
	for _, w := range small {
		if _, ok := slices.BinarySearch(big, w); !ok {
			return false
		}
	}
	return true
}

// overlap counts the question's terms that a sentence holds, a word matching
// a term when one is the other or both share a stem-length prefix
// ("raising" and "raised").
func overlap(terms []string, sentence string) int {
	words := text.Words(sentence)
	n := 0
	for _, t := range terms {
		for _, w := range words {
			if sameStem(t, w) {
				n++
				break
			}
		}
	}
	return n
}

func sameStem(a, b string) bool {
	if a == b {
		return true
	}
	m := min(len(a), len(b))
	if m < 4 {
		return false
	}
	need := max(4, m-2)
	return a[:need] == b[:need]
}
