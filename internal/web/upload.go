package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// FileIngester runs the file pipeline on an upload: the daemon's
// *watch.Ingester, the one POST /v1/agents/{agent}/files calls.
type FileIngester interface {
	Upload(ctx context.Context, agent, name string, data []byte, mtime time.Time) (watch.Outcome, error)
}

// defaultMaxUpload is the most a page upload may hold when Options leave it 0
// (the API's api.max_upload_bytes default).
const defaultMaxUpload = 20 << 20

// uploadFormSlack is room in an upload's body for the form's other fields
// and the multipart framing, on top of the file itself.
const uploadFormSlack = 64 << 10

type uploadData struct {
	Enabled  bool
	MaxBytes int64
	Date     string
	Name     string         // the uploaded file's name, once one was sent
	Outcome  *watch.Outcome // what the pipeline did with it
	Skipped  string         // why the pipeline took nothing from it
}

func (h *Handler) maxUpload() int64 {
	if h.opts.MaxUploadBytes > 0 {
		return h.opts.MaxUploadBytes
	}
	return defaultMaxUpload
}

func (h *Handler) uploadPage(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	h.uploadView(w, r, a, http.StatusOK, "", uploadData{})
}

func (h *Handler) uploadView(w http.ResponseWriter, r *http.Request, a *store.Agent, status int, errMsg string, d uploadData) {
	d.Enabled, d.MaxBytes = h.opts.Files != nil, h.maxUpload()
	h.renderAgentStatus(w, r, a, status, "upload", "Upload a file to "+a.Name(), errMsg, d)
}

// postUpload guards the upload form as post guards the others: a
// same-origin request, a bounded multipart body (held in memory, never
// spilled to disk) and a valid CSRF token, else nothing is read further.
func (h *Handler) postUpload(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h.csrf.cross.Check(r); err != nil {
			h.log.Warn("web: refused a cross-origin upload", "path", r.URL.Path)
			h.failStatus(w, r, http.StatusForbidden, errCSRF.Error())
			return
		}
		limit := h.maxUpload()
		r.Body = http.MaxBytesReader(w, r.Body, limit+uploadFormSlack)
		// The body's cap is below maxMemory, so no part is written to a temporary file.
		if err := r.ParseMultipartForm(limit + 2*uploadFormSlack); err != nil {
			var mbe *http.MaxBytesError
			switch {
			case errors.As(err, &mbe):
				h.failStatus(w, r, http.StatusRequestEntityTooLarge,
					fmt.Sprintf("The file is too large: uploads take at most %s (api.max_upload_bytes).", text.Size(limit)))
			default:
				h.failStatus(w, r, http.StatusBadRequest, "The upload could not be read: "+err.Error())
			}
			return
		}
		defer r.MultipartForm.RemoveAll()
		if err := h.csrf.check(r); err != nil {
			h.log.Warn("web: refused an upload without a valid CSRF token", "path", r.URL.Path)
			h.failStatus(w, r, http.StatusForbidden, err.Error())
			return
		}
		next(w, r)
	}
}

func (h *Handler) upload(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	if h.opts.Files == nil {
		h.failStatus(w, r, http.StatusNotImplemented, "This server does not take files.")
		return
	}
	d := uploadData{Date: strings.TrimSpace(r.PostFormValue("date"))}
	mtime := time.Now()
	if d.Date != "" {
		day, err := time.ParseInLocation(time.DateOnly, d.Date, h.opts.Location)
		if err != nil {
			h.uploadView(w, r, a, http.StatusBadRequest, fmt.Sprintf("The date %q is not a date (YYYY-MM-DD).", d.Date), d)
			return
		}
		mtime = day.Add(12 * time.Hour)
	}
	fhs := r.MultipartForm.File["file"]
	if len(fhs) != 1 || fhs[0].Filename == "" {
		h.uploadView(w, r, a, http.StatusBadRequest, "Choose one file to upload.", d)
		return
	}
	fh := fhs[0]
	d.Name = fh.Filename
	if fh.Size > h.maxUpload() {
		h.uploadView(w, r, a, http.StatusRequestEntityTooLarge,
			fmt.Sprintf("The file is too large: uploads take at most %s (api.max_upload_bytes).", text.Size(h.maxUpload())), d)
		return
	}
	f, err := fh.Open()
	if err != nil {
		h.fail(w, r, fmt.Errorf("open the uploaded file %q: %w", fh.Filename, err))
		return
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		h.fail(w, r, fmt.Errorf("read the uploaded file %q: %w", fh.Filename, err))
		return
	}
	out, err := h.opts.Files.Upload(r.Context(), a.Name(), fh.Filename, data, mtime)
	switch {
	case watch.IsInputError(err):
		d.Skipped = err.Error()
		h.uploadView(w, r, a, gate.Of(err).Status, "", d)
	case watch.IsDescribeError(err):
		h.uploadView(w, r, a, gate.Of(err).Status, "The image model could not describe it; nothing was stored. Try again later. ("+err.Error()+")", d)
	case err != nil:
		h.fail(w, r, err)
	default:
		d.Outcome = &out
		h.uploadView(w, r, a, http.StatusOK, "", d)
	}
}
