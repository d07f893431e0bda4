package server

import (
	"net/http"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// postShare copies memory {id} of the path's agent into the agent the body
// names ({"to": "household"}), which is made by the server's agent rules
// for a write. The guard checked that the token may read the path's agent;
// it must also write the target (403 otherwise). A new copy is 201, the
// copy a share made before 200.
func (s *Server) postShare(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := s.pathID(w, r, "memory")
	if !ok {
		return
	}
	var req client.ShareRequest
	if err := decodeJSON(r.Body, &req); err != nil {
		s.requestError(w, r, err)
		return
	}
	if req.To == "" {
		s.requestError(w, r, badRequest("invalid_request", `"to" must name the agent to share the memory with`))
		return
	}
	create, err := s.agents().Check(req.To, true)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	if g, ok := auth.FromContext(r.Context()); ok {
		if err := gate.Scope(g, req.To, true); err != nil {
			s.forbid(w, r, g, err)
			return
		}
	}
	sh, err := s.store.Share(r.Context(), a, id, req.To, create)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	status := http.StatusOK
	if !sh.Existing {
		status = http.StatusCreated
		if s.opts.OnWrite != nil {
			s.opts.OnWrite(req.To)
		}
	}
	writeJSON(w, status, wire.Shared(req.To, sh))
}
