// Package answer writes answers from recalled context: a model through the
// LLM boundary when one is configured, otherwise an extractive answer made of
// the context's best sentences. Every answer cites the items it used, and a
// citation in an answer always names an item of that answer's context.
package answer

import (
	"context"
	"fmt"
	"strings"
	"time"

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
	eng := a.Recall
	if eng == nil {
		eng = &recall.Engine{}
	}
	res, err := eng.Recall(ctx, s, q)
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
	return a.Compose(ctx, q.Text, asOf, res, false)
}

// Compose answers question from a recalled context. With no items it
// abstains without calling the model, unless always is set (evaluation asks
// a model what it answers with no memory at all).
func (a *Answerer) Compose(ctx context.Context, question string, asOf time.Time, res recall.Result, always bool) (Result, error) {
	out := Result{Question: question, Items: res.Items, Context: res.Context, Tokens: res.Tokens, Provider: "offline"}
	if out.Items == nil {
		out.Items = []recall.Item{}
	}
	if a.Model != nil {
		out.Provider = a.Model.Provider() + "/" + a.Model.Model()
	}
	if len(res.Items) == 0 && !(always && a.Model != nil) {
		out.Answer, out.Abstained, out.Citations = NothingFound, true, []string{}
		return out, nil
	}
	if a.Model == nil {
		out.Answer, out.Citations = Extract(question, res.Items, a.maxSentences())
		return out, nil
	}
	raw, u, err := a.Model.Generate(ctx, llm.Request{System: systemPrompt, Prompt: Prompt(question, asOf, res.Context)})
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
	out.Abstained = len(res.Items) == 0
	return out, nil
}

func (a *Answerer) maxSentences() int {
	if a.MaxSentences > 0 {
		return a.MaxSentences
	}
	return DefaultMaxSentences
}

const systemPrompt = `You answer a user's question from the memory context given to you, and from nothing else.
Each context line starts with its citation in square brackets, such as [memory:12], [fact:3] or [consolidation:5].
Rules:
- Use only what the context says. If it does not answer the question, say briefly that nothing stored answers it, and cite nothing.
- After every claim, cite the line(s) it came from with their citation exactly as written, e.g. "The budget is $2.1M [memory:12]."
- Never cite anything that is not in the context. Never invent ids.
- When lines disagree, prefer the newer one and say it was corrected.
- Answer in at most three sentences of plain text.`

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

// Extract is the offline answer: up to n sentences of items, each followed by
// its item's citation. Sentences sharing words with the question come first
// (ties to the better-ranked item); when none does, recall's best items speak
// (it already judged them relevant, by date or importance). The chosen
// sentences are given in rank order.
func Extract(question string, items []recall.Item, n int) (string, []string) {
	if n <= 0 {
		n = DefaultMaxSentences
	}
	terms := text.Terms(question)
	type cand struct {
		rank, pos int
		overlap   int
		sentence  string
		id        string
	}
	var cands []cand
	for r, it := range items {
		for p, s := range capture.Sentences(it.Text) {
			cands = append(cands, cand{rank: r, pos: p, overlap: overlap(terms, s), sentence: s, id: it.ID})
		}
	}
	best := make([]cand, 0, n)
	seen := map[string]bool{}
	pick := func(ok func(c cand) bool) {
		for _, c := range cands {
			key := strings.ToLower(c.sentence)
			if len(best) >= n || seen[key] || !ok(c) {
				continue
			}
			seen[key] = true
			best = append(best, c)
		}
	}
	// Highest overlap first, then rank; a stable pass per overlap level.
	maxOv := 0
	for _, c := range cands {
		maxOv = max(maxOv, c.overlap)
	}
	for ov := maxOv; ov >= 1; ov-- {
		pick(func(c cand) bool { return c.overlap == ov })
	}
	if len(best) == 0 {
		pick(func(c cand) bool { return c.pos == 0 })
	}
	// Present in rank order, then position.
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && (best[j].rank < best[j-1].rank || best[j].rank == best[j-1].rank && best[j].pos < best[j-1].pos); j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	var b strings.Builder
	var cites []string
	cited := map[string]bool{}
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
		b.WriteString(s)
		b.WriteString(" [")
		b.WriteString(c.id)
		b.WriteString("]")
		if !cited[c.id] {
			cited[c.id] = true
			cites = append(cites, c.id)
		}
	}
	if cites == nil {
		return NothingFound, []string{}
	}
	return b.String(), cites
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
