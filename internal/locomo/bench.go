package locomo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Options configure a benchmark run.
type Options struct {
	Samples []int // indexes into the data; nil is all
	Ks      []int // recall@k cut-offs; nil is 5, 10, 25, 50
	// Store, Consolidate and Engine are the parts under test, over a data
	// directory with none of the samples' agents: the daemon's, as its
	// composition root builds them (daemon.OpenBench), so that the figures
	// measure the daemon's configuration. All three are required.
	Store       *store.Store
	Consolidate *consolidate.Engine
	Engine      *recall.Engine
	Workers     int // questions recalled at once; <= 0 is 2
	Logger      *slog.Logger
	// Each, when set, sees every question's outcome (for analysis tools).
	Each func(Outcome)
}

// Outcome is one question's result.
type Outcome struct {
	Sample   string
	Question Question
	Turns    []string // dia_ids of the returned turns, in rank order
	Recall   map[int]float64
	Tokens   map[int]int
	Result   recall.Result
}

// Score is recall and context size over a set of questions.
type Score struct {
	N      int                `json:"n"`
	Recall map[string]float64 `json:"recall"` // k → mean evidence recall@k, a fraction
	Tokens map[string]float64 `json:"tokens"` // k → mean context tokens up to the k-th turn
}

// Report is a whole run.
type Report struct {
	Overall    Score            `json:"overall"`
	Categories map[string]Score `json:"categories"`
	Seconds    float64          `json:"seconds"`
	Samples    []string         `json:"samples"`
	Ks         []int            `json:"ks"`
	Memories   int              `json:"memories"`
	// Skipped counts questions with no evidence id that names a turn.
	Skipped int `json:"skipped"`
	// Timing splits Seconds: ingest, consolidate, recall.
	Timing map[string]float64 `json:"timing"`
}

// CategoryNames are LoCoMo's question categories.
var CategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

type acc struct {
	n      int
	recall map[int]float64
	tokens map[int]float64
}

func (a *acc) add(o Outcome) {
	if a.recall == nil {
		a.recall, a.tokens = map[int]float64{}, map[int]float64{}
	}
	a.n++
	for k, v := range o.Recall {
		a.recall[k] += v
	}
	for k, v := range o.Tokens {
		a.tokens[k] += float64(v)
	}
}

func (a *acc) score(ks []int) Score {
	s := Score{N: a.n, Recall: map[string]float64{}, Tokens: map[string]float64{}}
	for _, k := range ks {
		key := strconv.Itoa(k)
		if a.n == 0 {
			s.Recall[key], s.Tokens[key] = 0, 0
			continue
		}
		s.Recall[key] = round(a.recall[k]/float64(a.n), 4)
		s.Tokens[key] = round(a.tokens[k]/float64(a.n), 1)
	}
	return s
}

func round(v float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

// Run ingests, consolidates and recalls the selected samples and scores them.
func Run(ctx context.Context, samples []Sample, o Options) (Report, error) {
	start := time.Now()
	if o.Ks == nil {
		o.Ks = []int{5, 10, 25, 50}
	}
	if o.Store == nil || o.Consolidate == nil || o.Engine == nil {
		return Report{}, errors.New("locomo: a store, a consolidation engine and a recall engine are required")
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Samples == nil {
		for i := range samples {
			o.Samples = append(o.Samples, i)
		}
	}
	st := o.Store
	rep := Report{Categories: map[string]Score{}, Ks: o.Ks, Timing: map[string]float64{}}
	var overall acc
	cats := map[int]*acc{}
	var tIngest, tCons, tRecall time.Duration
	for _, idx := range o.Samples {
		if idx < 0 || idx >= len(samples) {
			return Report{}, fmt.Errorf("sample %d: the data has samples 0 to %d", idx, len(samples)-1)
		}
		s := samples[idx]
		rep.Samples = append(rep.Samples, s.ID)
		agent := agentName(s)
		t0 := time.Now()
		turnsOf, n, last, err := ingest(ctx, st, agent, s)
		if err != nil {
			return Report{}, err
		}
		rep.Memories += n
		t1 := time.Now()
		if err := consolidateAll(ctx, o.Consolidate, agent); err != nil {
			return Report{}, err
		}
		t2 := time.Now()
		asOf := last.Add(24 * time.Hour)
		outs, err := recallAll(ctx, st, agent, s, turnsOf, asOf, o)
		if err != nil {
			return Report{}, err
		}
		for _, out := range outs {
			if len(out.Question.Evidence) == 0 {
				rep.Skipped++
				continue
			}
			overall.add(out)
			c := cats[out.Question.Category]
			if c == nil {
				c = &acc{}
				cats[out.Question.Category] = c
			}
			c.add(out)
			if o.Each != nil {
				o.Each(out)
			}
		}
		tIngest += t1.Sub(t0)
		tCons += t2.Sub(t1)
		tRecall += time.Since(t2)
		log.Info("locomo sample done", "sample", s.ID, "memories", n, "questions", len(outs))
	}
	rep.Overall = overall.score(o.Ks)
	for c, a := range cats {
		rep.Categories[strconv.Itoa(c)] = a.score(o.Ks)
	}
	rep.Timing["ingest"] = round(tIngest.Seconds(), 2)
	rep.Timing["consolidate"] = round(tCons.Seconds(), 2)
	rep.Timing["recall"] = round(tRecall.Seconds(), 2)
	rep.Seconds = round(time.Since(start).Seconds(), 2)
	return rep, nil
}

// agentName turns a sample id into an agent name ("conv-26").
func agentName(s Sample) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s.ID) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
	}
	name := b.String()
	if store.ValidateAgentName(name) != nil {
		name = fmt.Sprintf("sample-%d", s.Index)
	}
	return name
}

// ingest captures every turn of s as a memory: the session's date, a
// second per turn, the speaker as role, the dia_id in context. It returns
// the dia_ids of each memory id (two identical turns share one memory).
func ingest(ctx context.Context, st *store.Store, agent string, s Sample) (map[int64][]string, int, time.Time, error) {
	var ins []capture.Input
	var ids []string
	var last time.Time
	for _, ses := range s.Sessions {
		for i, t := range ses.Turns {
			ts := ses.Date.Add(time.Duration(i) * 30 * time.Second)
			cj, _ := json.Marshal(map[string]string{"dia_id": t.DiaID, "sample": s.ID})
			ins = append(ins, capture.Input{
				Content:         t.Text,
				SessionID:       fmt.Sprintf("session_%d", ses.N),
				Role:            t.Speaker,
				InteractionType: "conversation",
				Context:         cj,
				Source:          "locomo",
				Timestamp:       ts.Format(time.RFC3339Nano),
			})
			ids = append(ids, t.DiaID)
			if ts.After(last) {
				last = ts
			}
		}
	}
	turnsOf := map[int64][]string{}
	if _, err := st.Create(ctx, agent); err != nil { // also where agents.create is explicit
		return nil, 0, last, fmt.Errorf("create agent for sample %s: %w", s.ID, err)
	}
	err := st.With(ctx, agent, false, func(a *store.Agent) error {
		got, err := capture.Ingest(ctx, a, ins, capture.Limits{MaxContent: 1 << 20}, last)
		if err != nil {
			return err
		}
		for i, g := range got {
			turnsOf[g.ID] = append(turnsOf[g.ID], ids[i])
		}
		return nil
	})
	if err != nil {
		return nil, 0, last, fmt.Errorf("ingest sample %s: %w", s.ID, err)
	}
	return turnsOf, len(ins), last, nil
}

// consolidateAll runs the nightly consolidation for every session day, as
// the timer's catch-up does: every past day with unconsolidated memories.
// The engine keeps the wall clock (it refuses a clock before 2024, and
// LoCoMo's sessions are from 2023), so every session day is past.
func consolidateAll(ctx context.Context, e *consolidate.Engine, agent string) error {
	if _, err := e.RunAll(ctx, agent, false); err != nil {
		return fmt.Errorf("consolidate agent %q: %w", agent, err)
	}
	return nil
}

func recallAll(ctx context.Context, st *store.Store, agent string, s Sample, turnsOf map[int64][]string, asOf time.Time, o Options) ([]Outcome, error) {
	maxK := o.Ks[len(o.Ks)-1]
	outs := make([]Outcome, len(s.Questions))
	a, err := st.Acquire(ctx, agent, false)
	if err != nil {
		return nil, err
	}
	defer st.Release(a)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan int)
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				q := s.Questions[i]
				res, err := o.Engine.Recall(ctx, a, recall.Query{
					Text:         q.Text,
					AsOf:         asOf,
					K:            maxK * 2,
					BudgetTokens: recall.MaxBudgetTokens,
				})
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("recall %q from agent %q: %w", q.Text, agent, err)
					}
					mu.Unlock()
					continue
				}
				outs[i] = score(s.ID, q, res, turnsOf, o.Ks)
			}
		}()
	}
	for i := range s.Questions {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return outs, ctx.Err()
}

// score computes a question's evidence recall@k over the first k returned
// turns, and the context tokens of every item ranked up to the k-th turn
// (day records and facts ranked among them count, since they are sent).
func score(sample string, q Question, res recall.Result, turnsOf map[int64][]string, ks []int) Outcome {
	out := Outcome{Sample: sample, Question: q, Recall: map[int]float64{}, Tokens: map[int]int{}, Result: res}
	type mark struct{ turns, tokens int }
	var marks []mark // after each returned turn: turns so far, tokens so far
	tokens := 0
	for _, it := range res.Items {
		tokens += it.Tokens
		if it.Kind != "memory" {
			continue
		}
		id, err := strconv.ParseInt(strings.TrimPrefix(it.ID, "memory:"), 10, 64)
		if err != nil {
			continue
		}
		for _, d := range turnsOf[id] {
			out.Turns = append(out.Turns, d)
		}
		marks = append(marks, mark{len(out.Turns), tokens})
	}
	ev := map[string]bool{}
	for _, e := range q.Evidence {
		ev[e] = true
	}
	for _, k := range ks {
		found := 0
		for i, d := range out.Turns {
			if i >= k {
				break
			}
			if ev[d] {
				found++
				ev[d] = false // count each evidence id once
			}
		}
		for _, e := range q.Evidence {
			ev[e] = true
		}
		if len(q.Evidence) > 0 {
			out.Recall[k] = float64(found) / float64(len(q.Evidence))
		}
		tk := tokens
		for _, m := range marks {
			if m.turns >= k {
				tk = m.tokens
				break
			}
		}
		out.Tokens[k] = tk
	}
	return out
}

// Categories returns the report's category keys in order.
func (r Report) CategoryKeys() []string {
	keys := make([]string, 0, len(r.Categories))
	for k := range r.Categories {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// QuestionResult is one question's outcome as `dormouse bench locomo
// --questions FILE` writes it, a JSON line each: where each evidence turn
// ranked, recall at each k, the returned turns and, when the engine
// explains, the returned items with their score parts.
type QuestionResult struct {
	Sample   string             `json:"sample"`
	Question string             `json:"question"`
	Category int                `json:"category"`
	Evidence []EvidenceRank     `json:"evidence"`
	Recall   map[string]float64 `json:"recall"`
	Turns    []string           `json:"turns"` // dia_ids, in rank order, up to the largest k
	Items    []recall.Item      `json:"items,omitempty"`
}

// EvidenceRank is an evidence turn and its rank among the returned turns
// (1 is first; 0: not returned).
type EvidenceRank struct {
	ID   string `json:"id"`
	Rank int    `json:"rank"`
}

// Line is the outcome as a QuestionResult, turns cut at maxK.
func (o Outcome) Line(maxK int) QuestionResult {
	r := QuestionResult{Sample: o.Sample, Question: o.Question.Text, Category: o.Question.Category,
		Recall: map[string]float64{}, Turns: o.Turns[:min(maxK, len(o.Turns))]}
	for k, v := range o.Recall {
		r.Recall[fmt.Sprint(k)] = v
	}
	for _, e := range o.Question.Evidence {
		rank := 0
		for i, d := range o.Turns {
			if d == e {
				rank = i + 1
				break
			}
		}
		r.Evidence = append(r.Evidence, EvidenceRank{ID: e, Rank: rank})
	}
	for _, it := range o.Result.Items {
		if it.Explain != nil {
			r.Items = append(r.Items, it)
		}
	}
	return r
}
