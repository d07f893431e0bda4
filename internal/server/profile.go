package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// The profile: its lines as of a time, one line, and a person's edit or
// removal of a line, the way facts are corrected and rejected.

// listProfile answers {"profile": [...]}: the lines current at ?as_of=
// (default now), with ?history=true also the lines those replaced.
func (s *Server) listProfile(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q := r.URL.Query()
	asOf, err := parseAsOf(q)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	history, err := boolParam(q.Get("history"), "history")
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	lines, err := a.Profile(r.Context(), asOf)
	if err == nil && history {
		lines, err = withHistory(r, a, lines)
	}
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"profile": wire.ProfileLines(nonNilSlice(lines))})
}

// withHistory adds to the current lines every other line there has been,
// each once, after the current ones: those they replaced, and those ended
// with no successor ("I'm no longer allergic to penicillin"), whose key has
// no current line.
func withHistory(r *http.Request, a *store.Agent, current []store.ProfileLine) ([]store.ProfileLine, error) {
	seen := map[int64]bool{}
	for _, l := range current {
		seen[l.ID] = true
	}
	ever, err := a.ProfileEver(r.Context())
	if err != nil {
		return nil, err
	}
	out := current
	for _, p := range ever {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, p)
		}
	}
	return out, nil
}

func boolParam(v, key string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("invalid_parameter", "%s must be true or false, got %q", key, v)
	}
	return b, nil
}

func (s *Server) getProfileLine(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	getByID(s, w, r, "profile line", a.ProfileLine, wire.ProfileLine)
}

// editProfileLine is a person's rewording of a current line: body
// {"text"}; it answers the new line, which supersedes the old one.
func (s *Server) editProfileLine(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := s.pathID(w, r, "profile line")
	if !ok {
		return
	}
	var body client.ProfileEdit
	switch err := decodeText(r.Body, &body); {
	case errors.Is(err, errNotUTF8):
		s.profileError(w, r, a, id, store.ErrProfileLineNotUTF8)
		return
	case err != nil:
		s.requestError(w, r, err)
		return
	}
	l, err := a.EditProfileLine(r.Context(), id, body.Text, s.opts.Now())
	if err != nil {
		s.profileError(w, r, a, id, err)
		return
	}
	s.log.InfoContext(r.Context(), "profile line edited", "agent", a.Name(), "id", id, "new", l.ID)
	writeJSON(w, http.StatusOK, wire.ProfileLine(l))
}

// removeProfileLine removes a current line as its owner: the claim stays
// removed, so a later consolidation does not bring it back.
func (s *Server) removeProfileLine(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := s.pathID(w, r, "profile line")
	if !ok {
		return
	}
	if err := a.RemoveProfileLine(r.Context(), id, s.opts.Now()); err != nil {
		s.profileError(w, r, a, id, err)
		return
	}
	s.log.InfoContext(r.Context(), "profile line removed", "agent", a.Name(), "id", id)
	writeJSON(w, http.StatusOK, map[string]any{"removed": wire.ProfileID(id)})
}

// profileError answers an edit or removal the store refused: a line no
// longer current says whether a person removed it or a newer line
// replaced it.
// The status is the gate's; only the code and message say more.
func (s *Server) profileError(w http.ResponseWriter, r *http.Request, a *store.Agent, id int64, err error) {
	ref := *gate.Of(err)
	switch {
	case errors.Is(err, store.ErrProfileLineNotCurrent):
		ref.Msg = wire.ProfileID(id) + " is no longer current: change the line that replaced it"
		if l, lerr := a.ProfileLine(r.Context(), id); lerr == nil && l.Removed {
			ref.Code, ref.Msg = "removed", wire.ProfileID(id)+" was removed: it is no longer part of the profile"
		}
	case errors.Is(err, store.ErrUnchanged):
		ref.Msg = "the text is the line's own: nothing to change"
	}
	s.requestError(w, r, &ref)
}
