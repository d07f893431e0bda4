package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// One fact, one day record, and the correction of a fact: what the web
// page shows and does, as API calls for the CLI and other clients.

// pathID reads the {id} of a path naming one thing of kind what; a bad id
// is answered here, and ok is false.
func (s *Server) pathID(w http.ResponseWriter, r *http.Request, what string) (id int64, ok bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.requestError(w, r, badRequest("invalid_id", "%s id must be a positive integer, got %q", what, r.PathValue("id")))
		return 0, false
	}
	return id, true
}

// getByID answers a GET of one thing of kind what named by the path's {id}:
// get reads it, out is its wire form.
func getByID[T, W any](s *Server, w http.ResponseWriter, r *http.Request, what string,
	get func(context.Context, int64) (T, error), out func(T) W) {
	id, ok := s.pathID(w, r, what)
	if !ok {
		return
	}
	v, err := get(r.Context(), id)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out(v))
}

// deleteByID answers a DELETE of one thing of kind what named by the path's
// {id}: del removes it, and the answer is {key: id}.
func deleteByID(s *Server, w http.ResponseWriter, r *http.Request, what string,
	del func(context.Context, int64) error, key string) {
	id, ok := s.pathID(w, r, what)
	if !ok {
		return
	}
	if err := del(r.Context(), id); err != nil {
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{key: id})
}

func (s *Server) getFact(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	getByID(s, w, r, "fact", a.Fact, wire.Fact)
}

func (s *Server) getConsolidation(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	getByID(s, w, r, "consolidation", a.Consolidation, wire.Consolidation)
}

// correctFact is the page's correction form as an API call: body
// {"content","value"}; it answers the new current fact.
func (s *Server) correctFact(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := s.pathID(w, r, "fact")
	if !ok {
		return
	}
	var body client.FactCorrection
	switch err := decodeText(r.Body, &body); {
	case errors.Is(err, errNotUTF8):
		s.requestError(w, r, store.ErrCorrectionNotUTF8)
		return
	case err != nil:
		s.requestError(w, r, err)
		return
	}
	res, err := a.CorrectFact(r.Context(), id, store.Correction{Content: strings.TrimSpace(body.Content), Value: strings.TrimSpace(body.Value)})
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	f, err := a.Fact(r.Context(), res.ID)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	s.log.InfoContext(r.Context(), "fact corrected", "agent", a.Name(), "id", id, "new", res.ID)
	writeJSON(w, http.StatusOK, wire.Fact(f))
}
