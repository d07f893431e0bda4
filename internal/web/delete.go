package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Deleting an agent: a confirmation page where the agent's name must be
// typed (the page runs no script, so the confirmation is a page of its
// own), then the API's delete: a verified backup first, whose path the
// page shows.

type deleteData struct {
	Enabled bool // the server keeps backups (Options.Backups)
	Stats   store.Stats
	Deleted string // after the delete: the agent's name
	Backup  string // and its backup
}

func (h *Handler) deletePage(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	h.deleteView(w, r, a, http.StatusOK, "")
}

func (h *Handler) deleteView(w http.ResponseWriter, r *http.Request, a *store.Agent, status int, errMsg string) {
	d := deleteData{Enabled: h.opts.Backups != nil}
	var err error
	if d.Stats, err = a.Stats(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	h.renderAgentStatus(w, r, a, status, "delete", "Delete "+a.Name(), errMsg, d)
}

// deleteAgent deletes the agent once its name was typed. It does not hold
// the agent open itself (h.agent would), or the delete would wait on it.
func (h *Handler) deleteAgent(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("agent")
	if _, err := h.agents().Check(name, false); err != nil {
		h.fail(w, r, err)
		return
	}
	if h.opts.Backups == nil {
		h.failStatus(w, r, http.StatusNotImplemented, "This server keeps no backups, so it deletes no agent.")
		return
	}
	if r.PostFormValue("confirm") != name {
		h.agent(func(w http.ResponseWriter, r *http.Request, a *store.Agent) {
			h.deleteView(w, r, a, http.StatusUnprocessableEntity,
				fmt.Sprintf("Nothing was deleted: type the agent's name, %s, to confirm.", name))
		})(w, r)
		return
	}
	saved, _, err := backup.DeleteAgent(r.Context(), h.opts.Store, name, *h.opts.Backups)
	if err != nil {
		if errors.As(err, new(*backup.FailedError)) {
			h.log.Error("web: delete agent: backup failed, agent kept", "agent", name, "err", err)
		}
		h.fail(w, r, err)
		return
	}
	p := h.newPage(w, r, "Deleted "+name)
	p.Data = deleteData{Deleted: name, Backup: saved.Path}
	h.render(w, http.StatusOK, "delete", p)
}
