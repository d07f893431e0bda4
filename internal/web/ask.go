package web

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Ask: a question answered from the agent's memory as POST
// /v1/agents/{agent}/ask answers it, each citation a link to what it cites.
// The question is a POST with the page's CSRF token, as the writes are: an
// answer may spend the model's budget, which a link (prefetched, crawled or
// sent by another site) must not.

type askData struct {
	Question string
	Asked    bool
	Result   answer.Result
	Answer   []answerPart // the answer, its citations as links
	Cited    []searchItem // the cited items, in order of first use
	Took     time.Duration
}

// answerPart is a run of an answer's text, or one of its citations (Cite
// set) with the page of the record it cites (Link, "" when it has none).
type answerPart struct {
	Text, Cite, Link string
}

// askPage is the Ask box, holding the question of ?q= unasked.
func (h *Handler) askPage(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	h.renderAgent(w, r, a, "ask", "Ask "+a.Name(), askData{Question: r.URL.Query().Get("q")})
}

// ask answers the box's question.
func (h *Handler) ask(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	d := askData{Question: r.PostFormValue("q")}
	if strings.TrimSpace(d.Question) == "" {
		h.renderAgent(w, r, a, "ask", "Ask "+a.Name(), d)
		return
	}
	req, err := recallRequest(d.Question, "", "")
	var q recall.Query
	if err == nil {
		q, err = req.Parse()
	}
	if err == nil {
		start := time.Now()
		q.AsOf = h.opts.Now()
		err = h.withGranted(r, a, func(g *gate.Granted) error {
			d.Result, err = h.opts.Answer.AskFrom(r.Context(), g.Sources, q)
			d.Result.Note = g.Note
			return err
		})
		d.Took = time.Since(start).Round(10 * time.Microsecond)
	}
	if msg, status, ok := askRefusal(err); ok {
		h.renderAgentStatus(w, r, a, status, "ask", "Ask "+a.Name(), msg, d)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d.Asked = true
	days := h.citedDays(r, a, d.Result.Items)
	links := map[string]string{}
	for _, it := range d.Result.Items {
		links[it.ID] = citationLink(a.Name(), it, days)
	}
	d.Answer = answerParts(d.Result.Answer, d.Result.Citations, links)
	for _, id := range d.Result.Citations {
		for _, it := range d.Result.Items {
			if it.ID == id {
				d.Cited = append(d.Cited, searchItem{Item: it, Link: links[id]})
			}
		}
	}
	h.renderAgent(w, r, a, "ask", "Ask "+a.Name(), d)
}

// askRefusal is the message and status of a question the page cannot
// answer for a reason the person can act on: a bad question, or a model
// that is out of budget, down or refusing (the API's status, the gate's).
func askRefusal(err error) (string, int, bool) {
	if err == nil {
		return "", 0, false
	}
	status := gate.Of(err).Status
	var re *recall.RequestError
	switch {
	case errors.As(err, &re):
		return re.Error(), status, true
	case errors.Is(err, llm.ErrBudget):
		return "The answering model's budget is spent for now: " + err.Error(), status, true
	case errors.Is(err, llm.ErrUnavailable):
		return "The answering model cannot be reached: " + err.Error(), status, true
	case errors.Is(err, llm.ErrRefused):
		return "The answering model refused the question: " + err.Error(), status, true
	}
	return "", 0, false
}

// answerParts splits an answer at its citations: answer.Validate has
// written each valid one as "[kind:N]", and cited lists them, so any other
// bracketed text stays text.
func answerParts(text string, cited []string, links map[string]string) []answerPart {
	var out []answerPart
	rest := text
	for rest != "" {
		i, id := firstCitation(rest, cited)
		if i < 0 {
			out = append(out, answerPart{Text: rest})
			break
		}
		if i > 0 {
			out = append(out, answerPart{Text: rest[:i]})
		}
		out = append(out, answerPart{Cite: id, Link: links[id]})
		rest = rest[i+len(id)+2:]
	}
	return out
}

// firstCitation finds the earliest "[id]" of cited in s.
func firstCitation(s string, cited []string) (int, string) {
	at, which := -1, ""
	for _, id := range cited {
		if i := strings.Index(s, "["+id+"]"); i >= 0 && (at < 0 || i < at) {
			at, which = i, id
		}
	}
	return at, which
}
