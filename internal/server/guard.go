package server

import (
	"errors"
	"net/http"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/gate"
)

// access is what a route does with the agent in its path.
type access int

const (
	read  access = iota // list, show, recall, ask
	write               // store, forget, consolidate
)

// guard checks the request's bearer token when the server has tokens
// (Options.Keyring): the agent in the path must be one the token covers,
// for writing when a is write. Routes without an agent ({agent} absent)
// need a token that covers every agent, except the agent list, which shows
// each token its own agents. Requests the daemon makes of itself
// (auth.Trusted) pass. Without tokens every request passes.
func (s *Server) guard(a access, h http.HandlerFunc) http.HandlerFunc {
	if !s.opts.Keyring.Enabled() {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if auth.IsTrusted(r.Context()) {
			h(w, r)
			return
		}
		g, ok := s.authenticate(w, r)
		if !ok {
			return
		}
		if r.Pattern != "GET /v1/agents" { // filtered by listAgents
			if err := gate.Scope(g, r.PathValue("agent"), a == write); err != nil {
				s.forbid(w, r, g, err)
				return
			}
		}
		h(w, r.WithContext(auth.WithGrant(r.Context(), g)))
	}
}

// RequireAll serves h only to requests whose token may write every agent
// (when the server has tokens): /mcp, whose tools name any agent.
func (s *Server) RequireAll(h http.Handler) http.Handler {
	return s.guard(write, h.ServeHTTP)
}

// authenticate returns the request's grant, or answers 401 itself.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*auth.Grant, bool) {
	g, err := s.opts.Keyring.Check(r)
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="dormouse"`)
		if !errors.Is(err, auth.ErrNoToken) {
			s.log.WarnContext(r.Context(), "refused an unknown token", "method", r.Method, "path", r.URL.Path,
				"remote", r.RemoteAddr)
		}
		s.requestError(w, r, gate.Unauthorized(err))
		return nil, false
	}
	return g, true
}

// forbid answers a token beyond its scope, logged by its name.
func (s *Server) forbid(w http.ResponseWriter, r *http.Request, g *auth.Grant, err error) {
	s.log.InfoContext(r.Context(), "refused a token beyond its scope", "token", g.Name, "method", r.Method,
		"path", r.URL.Path)
	s.requestError(w, r, err)
}
