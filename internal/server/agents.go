package server

import (
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Agents you can manage: create one by name (the only way with
// agents.create: explicit, or after a delete), delete one (a verified
// backup first), export one as JSON lines and import an export.

// postAgent creates the agent {"name": NAME}: 201 when new, 200 when it
// existed.
func (s *Server) postAgent(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name string `json:"name"`
	}
	if err := decodeJSON(r.Body, &req); err != nil {
		s.requestError(w, r, err)
		return
	}
	if !s.inAgentList(w, r, req.Name) {
		return
	}
	created, err := s.store.Create(r.Context(), req.Name)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, client.CreatedAgent{Agent: req.Name, Created: created})
}

// inAgentList refuses a name that is invalid or, with a fixed agent list
// (api.auto_create_agents: false), not on it.
func (s *Server) inAgentList(w http.ResponseWriter, r *http.Request, name string) bool {
	if _, err := s.agents().Check(name, true); err != nil {
		s.requestError(w, r, err)
		return false
	}
	return true
}

// deleteAgent backs the agent up, verified, and only then deletes it and
// its files; it says where the backup went.
func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request) {
	name, _, ok := s.checkAgent(w, r, false)
	if !ok {
		return
	}
	if s.opts.Backups == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", "this server keeps no backups, so it deletes no agent")
		return
	}
	saved, removed, err := backup.DeleteAgent(r.Context(), s.store, name, *s.opts.Backups)
	if err != nil {
		if ref := gate.Of(err); ref.Code == "backup_failed" {
			s.log.ErrorContext(r.Context(), "delete agent: backup failed, agent kept", "agent", name, "err", err)
		}
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, client.DeletedAgent{Agent: name, Backup: saved.Path, BackupBytes: saved.Bytes,
		Removed: removed})
}

// getExport streams the agent's export. An error once lines have gone out
// cannot change the status: the export then lacks its end line, which an
// import refuses, so a cut-short export is never taken for a whole one.
func (s *Server) getExport(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	w.Header().Set("Content-Type", client.ExportContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": a.Name() + ".jsonl"}))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	out := &startedWriter{w: w}
	err := a.Export(r.Context(), out)
	switch {
	case err == nil:
	case !out.started:
		w.Header().Del("Content-Disposition")
		s.requestError(w, r, err)
	default:
		s.log.ErrorContext(r.Context(), "export cut short", "agent", a.Name(), "err", err)
	}
}

// startedWriter notes whether anything was written.
type startedWriter struct {
	w       http.ResponseWriter
	started bool
}

func (s *startedWriter) Write(p []byte) (int, error) {
	s.started = true
	return s.w.Write(p)
}

// postImport imports an export (the body, JSON lines) into the agent,
// created when it does not exist; ?merge=true adds to an agent that holds
// something. All or nothing: a bad record is 422 naming its line.
func (s *Server) postImport(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("agent")
	if !s.inAgentList(w, r, name) {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != client.ExportContentType {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"send the export with Content-Type: "+client.ExportContentType)
		return
	}
	merge, err := parseBoolParam(r, "merge")
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	res, err := s.store.Import(r.Context(), name, r.Body, store.ImportOptions{Merge: merge,
		CheckMemory: func(m store.Memory) error { return s.limits().CheckImported(m, s.opts.Now()) }})
	if err != nil {
		s.importError(w, r, err)
		return
	}
	if s.opts.OnWrite != nil && res.Records["memory"] > 0 {
		s.opts.OnWrite(name)
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	writeJSON(w, status, client.Imported{Agent: name, Created: res.Created, Merged: merge, Records: res.Records})
}

func (s *Server) importError(w http.ResponseWriter, r *http.Request, err error) {
	var ie *store.ImportError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		s.requestError(w, r, jsonError(mbe))
	case errors.As(err, &ie):
		writeError(w, http.StatusUnprocessableEntity, "invalid_import", "nothing was imported: "+ie.Error())
	case errors.Is(err, store.ErrNotEmpty):
		writeError(w, http.StatusConflict, "not_empty", "nothing was imported: "+err.Error()+
			" (?merge=true, or dormouse import --merge)")
	default:
		s.requestError(w, r, err)
	}
}

func parseBoolParam(r *http.Request, key string) (bool, error) {
	v := r.URL.Query().Get(key)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("invalid_parameter", "%s must be true or false, got %q", key, v)
	}
	return b, nil
}
