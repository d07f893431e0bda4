package server

import (
	"errors"
	"net/http"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// postAsk answers a question from the agent's memory: the body is a recall
// request ({"query",...}); the answer cites the items of the context it
// comes with.
func (s *Server) postAsk(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q, ok := s.recallQuery(w, r)
	if !ok {
		return
	}
	if q.AsOf.IsZero() {
		q.AsOf = s.opts.Now()
	}
	ans := s.opts.Answer
	if ans == nil {
		ans = &answer.Answerer{Recall: s.recall}
	}
	g, err := s.granted(r, a)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	defer g.Release()
	res, err := ans.AskFrom(r.Context(), g.Sources, q)
	res.Note = g.Note
	if err != nil {
		if errors.Is(err, llm.ErrRefused) {
			s.log.Warn("the LLM refused an answer request", "err", err)
		}
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
