package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// The profile: its lines by category on the agent's page, one line's page
// with its sources and history, and a person's edit or removal of a line.

// profileCategory is one category of the profile as the page shows it.
type profileCategory struct {
	Name  string
	Lines []store.ProfileLine
}

// byCategory groups lines, which the store serves in category order.
func byCategory(lines []store.ProfileLine) []profileCategory {
	var out []profileCategory
	for _, l := range lines {
		if n := len(out); n == 0 || out[n-1].Name != l.Category {
			out = append(out, profileCategory{Name: l.Category})
		}
		out[len(out)-1].Lines = append(out[len(out)-1].Lines, l)
	}
	return out
}

type profileLineData struct {
	Line    store.ProfileLine
	State   string // current, replaced, removed or ended
	Text    string // the edit form's text: the line's, or the person's refused edit
	Sources []source
	History []store.ProfileLine
}

// profileState is what a line is now, as the page says it.
func profileState(l store.ProfileLine) string {
	switch {
	case l.Removed:
		return "removed"
	case l.SupersededBy != 0:
		return "replaced"
	case !l.ValidTo.IsZero():
		return "ended"
	}
	return "current"
}

func (h *Handler) profileLine(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	h.profileLinePage(w, r, a, id, http.StatusOK, "", "")
}

// profileLinePage renders line id; after a refused edit, with the error
// and the person's own text kept in the form.
func (h *Handler) profileLinePage(w http.ResponseWriter, r *http.Request, a *store.Agent, id int64, status int, errMsg, text string) {
	ctx := r.Context()
	l, err := a.ProfileLine(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := profileLineData{Line: l, State: profileState(l), Text: l.Text}
	if text != "" {
		d.Text = text
	}
	if d.History, err = a.ProfileHistory(ctx, l.Subject, l.Key); err != nil {
		h.fail(w, r, err)
		return
	}
	if d.Sources, err = sourcesOf(r, a, l.SourceMemoryIDs); err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderAgentStatus(w, r, a, status, "profileline", fmt.Sprintf("Profile line %d · %s", id, a.Name()), errMsg, d)
}

// sourcesOf reads the memories ids names (at most maxSources), a deleted
// one marked missing.
func sourcesOf(r *http.Request, a *store.Agent, ids []int64) ([]source, error) {
	var out []source
	for _, mid := range ids[:min(len(ids), maxSources)] {
		m, err := a.Get(r.Context(), mid)
		switch {
		case errors.Is(err, store.ErrNotFound):
			out = append(out, source{ID: mid, Missing: true})
		case err != nil:
			return nil, err
		default:
			out = append(out, source{ID: mid, Memory: m})
		}
	}
	return out, nil
}

func (h *Handler) editProfileLine(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	text := strings.TrimSpace(r.PostFormValue("text"))
	l, err := a.EditProfileLine(r.Context(), id, text, h.opts.Now())
	if err != nil {
		h.profileRefused(w, r, a, id, err, text)
		return
	}
	h.log.Info("web: profile line edited", "agent", a.Name(), "id", id, "new", l.ID)
	redirect(w, r, fmt.Sprintf("/agents/%s/profile/%d", a.Name(), l.ID), "profile-edited")
}

func (h *Handler) removeProfileLine(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	id, ok := h.id(w, r)
	if !ok {
		return
	}
	if err := a.RemoveProfileLine(r.Context(), id, h.opts.Now()); err != nil {
		h.profileRefused(w, r, a, id, err, "")
		return
	}
	h.log.Info("web: profile line removed", "agent", a.Name(), "id", id)
	redirect(w, r, fmt.Sprintf("/agents/%s/profile/%d", a.Name(), id), "profile-removed")
}

// profileRefused shows the line again with why the store refused the
// change, the person's text kept.
func (h *Handler) profileRefused(w http.ResponseWriter, r *http.Request, a *store.Agent, id int64, err error, text string) {
	status := gate.Of(err).Status // the API's; the page says it in its words
	var le *store.ProfileLineError
	switch {
	case errors.Is(err, store.ErrProfileLineNotCurrent):
		h.profileLinePage(w, r, a, id, status, "Only a current line can be changed; this one was replaced or removed.", "")
	case errors.Is(err, store.ErrUnchanged):
		h.profileLinePage(w, r, a, id, status, "The new text is the line's own; change it, or leave the line as it is.", text)
	case errors.As(err, &le):
		h.profileLinePage(w, r, a, id, status, "The edit was not stored: "+le.Error()+".", text)
	default:
		h.fail(w, r, err)
	}
}
