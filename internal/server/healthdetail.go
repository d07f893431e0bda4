package server

import (
	"net/http"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/health"
)

// /health and /metrics stay open for monitors, but with tokens configured
// an agent's detail (its name, its series, the paths of its failing files)
// is its token-holders' business: a request sees the agents its token
// covers, and one without a token the overall state and the host's gauges
// only, unless health.public_detail says everyone may see everything.

// viewer is who asks for /health or /metrics.
type viewer struct {
	all   bool
	grant *auth.Grant // nil: no token, no agent
}

func (v viewer) sees(agent string) bool { return v.all || v.grant.Allows(agent, false) }

// viewerOf returns r's viewer; false when r carried a token the keyring
// refused (answered with 401).
func (s *Server) viewerOf(w http.ResponseWriter, r *http.Request) (viewer, bool) {
	switch {
	case !s.opts.Keyring.Enabled(), s.opts.PublicDetail, auth.IsTrusted(r.Context()):
		return viewer{all: true}, true
	case r.Header.Get("Authorization") == "":
		return viewer{}, true
	}
	g, ok := s.authenticate(w, r)
	return viewer{all: g.AllowsAll(false), grant: g}, ok
}

// report is rep as v may see it (health.Report.For).
func (v viewer) report(rep health.Report) health.Report {
	if v.all {
		return rep
	}
	return rep.For(v.sees)
}
