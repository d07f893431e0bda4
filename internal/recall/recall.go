// Package recall assembles the context an agent asks for: candidates from the
// three memory layers, ranked, de-duplicated and packed into a token budget
// with stable citations.
package recall

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Engine ranks and packs. Zero fields take the documented defaults.
type Engine struct {
	MaxCandidates   int           // memory candidates ranked per query (400)
	RecencyHalfLife time.Duration // age at which recency counts half (30 days)
	DefaultBudget   int           // tokens, when a request gives none (1000)
	DefaultK        int           // items, when a request gives none (10)
	Now             func() time.Time
	// Tuning weighs the full ranker's parts; the zero value is DefaultTuning.
	Tuning Tuning
	// Explain attaches score parts to every item, asked or not.
	Explain bool
	// CountUse records, for a live question (no as_of), that the facts
	// offered were used: their access count then weighs in the ranking.
	// A failure to record it is logged to Logger and does not fail recall.
	CountUse bool
	Logger   *slog.Logger
	// Semantic, when set, turns on the optional semantic arm of the full
	// ranker (semantic.go); nil leaves recall to the words.
	Semantic QueryEmbedder
	// Claims, when set, reads the claims of one-valued attributes (the
	// phone, the employer) a memory's text states, keyed as the night's
	// consolidation keys facts: a memory of today then retires the value it
	// replaced before the night supersedes the fact. Nil: only the night.
	Claims func(content, role string) []claim.Claim
}

// UseCounter is what CountUse needs from an agent's storage; a
// *store.Agent provides it.
type UseCounter interface {
	TouchFacts(ctx context.Context, ids []int64, at time.Time) error
}

// countUse records the use of the facts res offers.
func (e *Engine) countUse(ctx context.Context, s Searcher, q Query, res Result, now time.Time) {
	uc, ok := s.(UseCounter)
	if !e.CountUse || !ok || !q.AsOf.IsZero() {
		return
	}
	var ids []int64
	for _, it := range res.Items {
		if id, ok := strings.CutPrefix(it.ID, "fact:"); ok {
			if n, err := strconv.ParseInt(id, 10, 64); err == nil {
				ids = append(ids, n)
			}
		}
	}
	if err := uc.TouchFacts(ctx, ids, now); err != nil && e.Logger != nil {
		e.Logger.Warn("recall: the use of facts was not recorded", "err", err)
	}
}

// Query is one recall request.
type Query struct {
	Text         string
	BudgetTokens int
	K            int
	AsOf         time.Time // the question's time: nothing newer is returned
	Since, Until time.Time
	Session      string
	Role         string // only memories with this role
	Source       string // only memories from this source
	Entity       string // only memories naming this entity
	Explain      bool   // attach each item's score parts
}

// Item is one cited piece of context, as the API serves it.
type Item = client.RecallItem

// Result is the ranked items and the context assembled from them, as the API
// serves it. Found is false when nothing stored matched the question well
// enough (the precision floor); Note then says so.
type Result = client.RecallResult

// layerCandidates is how many consolidation and fact candidates a query
// takes.
const layerCandidates = 20

func (e *Engine) defaults() (maxCand int, half time.Duration, budget, k int, now time.Time) {
	maxCand, half, budget, k = e.MaxCandidates, e.RecencyHalfLife, e.DefaultBudget, e.DefaultK
	if maxCand <= 0 {
		maxCand = 400
	}
	if half <= 0 {
		half = 30 * 24 * time.Hour
	}
	if budget <= 0 {
		budget = 1000
	}
	if k <= 0 {
		k = 10
	}
	now = time.Now()
	if e.Now != nil {
		now = e.Now()
	}
	return
}

// Recall returns the best context for q from s.
func (e *Engine) Recall(ctx context.Context, s Searcher, q Query) (Result, error) {
	maxCand, half, budget, k, now := e.defaults()
	budget, k = q.sized(budget, k)
	asOf := q.AsOf
	if asOf.IsZero() {
		asOf = now
	}
	res, err := e.rankRecall(ctx, s, q, asOf, half, budget, k, maxCand)
	if err != nil {
		return Result{}, err
	}
	e.countUse(ctx, s, q, res, now)
	return res, nil
}

// Line renders an item as it appears in the context: citation first, so a
// model can quote it, and the only citation on the line: what follows is
// quoted whole (see Quote), since a role and its text could spell one
// together ("memory" + ": " + "5").
func Line(it Item) string {
	var b strings.Builder
	switch it.Kind {
	case "memory":
		b.WriteString(it.Timestamp.UTC().Format("2006-01-02 15:04"))
		if role := Quote(it.Role); role != "" {
			b.WriteString(" ")
			b.WriteString(role)
		}
		b.WriteString(": ")
	case "consolidation":
		b.WriteString("summary: ")
	}
	b.WriteString(it.Text)
	return "[" + it.ID + "] " + Quote(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sameKey is what two items that say nearly the same thing share: their
// words, lowercased, with numbers as "#" ("Forwarded receipt 7 to Dana" and
// "… receipt 8 …").
func sameKey(s string) string {
	var b strings.Builder
	digits := false
	for _, r := range s {
		if unicode.IsDigit(r) {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}

// pack takes items in score order while they fit the budget, skipping
// duplicates of text already taken. An item saying what a better one said
// but for its numbers waits until every other item has had its place: 25
// forwarded receipts do not crowd out the note that introduced Dana, and
// nine successive codes are all still offered when k allows. Each line's
// tokens are estimated separately and rounded up, so the sum bounds the
// whole context's estimate. A best item larger than the whole budget is
// cut to fit rather than dropped, unless the budget cannot hold its
// citation.
func pack(items []Item, budget, k int) Result {
	res := Result{Items: []Item{}}
	seen := map[string]bool{}    // exact text, lowercased
	similar := map[string]bool{} // sameKey
	var lines []string
	var later []Item
	used := 0
	take := func(it Item) {
		line := Line(it)
		tok := text.EstimateTokens(line) + 1 // +1 for the newline
		if used+tok > budget {
			if len(res.Items) > 0 {
				return
			}
			line = cut(line, budget-1)
			tok = text.EstimateTokens(line) + 1
			if !strings.HasPrefix(line, "["+it.ID+"] ") || tok > budget {
				return // too small a budget to cite it whole
			}
		}
		it.Tokens = tok
		used += tok
		lines = append(lines, line)
		res.Items = append(res.Items, it)
	}
	for _, it := range items {
		if len(res.Items) >= k {
			break
		}
		key := strings.ToLower(oneLine(it.Text))
		if seen[key] {
			continue
		}
		if sk := sameKey(key); similar[sk] {
			later = append(later, it)
			seen[key] = true
			continue
		} else {
			n := len(res.Items)
			take(it)
			if len(res.Items) > n {
				seen[key], similar[sk] = true, true
			}
		}
	}
	for _, it := range later {
		if len(res.Items) >= k {
			break
		}
		take(it)
	}
	res.Context = strings.Join(lines, "\n")
	res.Tokens = text.EstimateTokens(res.Context)
	return res
}

// cut shortens s to at most tokens estimated tokens, at a word boundary.
func cut(s string, tokens int) string {
	if tokens <= 0 {
		return ""
	}
	r := []rune(s)
	maxRunes := tokens*4 - 4 // leave room for the ellipsis
	if maxRunes <= 0 {
		return ""
	}
	if len(r) <= maxRunes {
		return s
	}
	out := string(r[:maxRunes])
	if i := strings.LastIndexByte(out, ' '); i > len(out)/2 {
		out = out[:i]
	}
	return out + " …"
}
