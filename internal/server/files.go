package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// FileIngester runs the file pipeline on an upload.
type FileIngester interface {
	Upload(ctx context.Context, agent, name string, data []byte, mtime time.Time) (watch.Outcome, error)
	UploadAt(ctx context.Context, agent, rel string, data []byte, mtime time.Time) (watch.Outcome, error)
}

// Watcher scans watched folders and reports on them.
type Watcher interface {
	Scan(ctx context.Context, agent string) ([]watch.ScanResult, error)
	Status(ctx context.Context) ([]watch.Status, error)
	FailingFiles(ctx context.Context) ([]watch.FailingFile, error)
}

// bodyLimit is the most a request's body may hold: uploads have their own
// limit. The page's upload form (POST /agents/{agent}/upload) and its
// add-a-memory form (POST /memories) bound their own bodies, at the upload
// limit or three times max_content_bytes (URL-encoded text) plus room for
// the other fields, so 0 here leaves them uncut: MaxBodyBytes would cap
// them below what the API takes.
func (s *Server) bodyLimit(r *http.Request) int64 {
	switch {
	case r.Method != http.MethodPost:
		return s.opts.MaxBodyBytes
	case isUpload(r), isImport(r):
		if s.opts.MaxUploadBytes > 0 {
			return s.opts.MaxUploadBytes
		}
		return 20 << 20
	case s.isPageUpload(r), s.opts.Web != nil && r.URL.Path == "/memories":
		return 0
	}
	return s.opts.MaxBodyBytes
}

// isPageUpload reports whether r is for the page's upload form, POST /agents/{agent}/upload.
func (s *Server) isPageUpload(r *http.Request) bool {
	return r.Method == http.MethodPost && s.opts.Web != nil &&
		strings.HasPrefix(r.URL.Path, "/agents/") && strings.HasSuffix(r.URL.Path, "/upload")
}

// isImport reports whether r is for POST /v1/agents/{agent}/import, whose
// body is JSON lines (checked by the handler: no CORS-simple type).
func isImport(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/agents/") && strings.HasSuffix(r.URL.Path, "/import")
}

// isUpload reports whether r is for POST /v1/agents/{agent}/files.
func isUpload(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/agents/") && strings.HasSuffix(r.URL.Path, "/files")
}

// postFile ingests one uploaded file (multipart/form-data, field "file") through the same pipeline
// as watched folders: formats, content identity, limits. ?mtime= (RFC 3339) dates it; default now.
// ?path= (relative) keeps it at that path: a new upload there replaces its memories.
func (s *Server) postFile(w http.ResponseWriter, r *http.Request) {
	name, create, ok := s.checkAgent(w, r, true)
	if !ok {
		return
	}
	if s.opts.Files == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", "this server does not take files")
		return
	}
	mtime := s.opts.Now()
	if v := r.URL.Query().Get("mtime"); v != "" {
		t, err := parseTime("mtime", v)
		if err == nil {
			err = s.limits().CheckTime("mtime", t, s.opts.Now())
		}
		if err != nil {
			s.requestError(w, r, err)
			return
		}
		mtime = t
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			`want multipart/form-data with the file in a part named "file" (curl -F file=@notes.md)`)
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "read multipart body: "+err.Error())
		return
	}
	var filename string
	var data []byte
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.uploadReadError(w, r, err)
			return
		}
		if part.FormName() != "file" {
			_, _ = io.Copy(io.Discard, part)
			continue
		}
		if filename != "" {
			writeError(w, http.StatusBadRequest, "invalid_request", "one file per request")
			return
		}
		filename = part.FileName()
		if filename == "" {
			writeError(w, http.StatusBadRequest, "invalid_request", `the "file" part has no file name; its extension says its format`)
			return
		}
		if data, err = io.ReadAll(part); err != nil {
			s.uploadReadError(w, r, err)
			return
		}
	}
	if filename == "" {
		writeError(w, http.StatusBadRequest, "invalid_request", `no part named "file" in the form`)
		return
	}
	// The agent exists (or is created) before the pipeline runs, as for any write.
	if err := s.store.With(r.Context(), name, create, func(*store.Agent) error { return nil }); err != nil {
		s.requestError(w, r, err)
		return
	}
	var out watch.Outcome
	if rel := r.URL.Query().Get("path"); rel != "" {
		out, err = s.opts.Files.UploadAt(r.Context(), name, rel, data, mtime)
	} else {
		out, err = s.opts.Files.Upload(r.Context(), name, filename, data, mtime)
	}
	switch {
	case err != nil: // a vision model that failed is a 502: nothing stored, send it again later
		s.requestError(w, r, err)
	default:
		if out.Inserted > 0 {
			s.met.ingested.Add(float64(out.Inserted))
			if s.opts.OnWrite != nil {
				s.opts.OnWrite(name)
			}
		}
		writeJSON(w, http.StatusCreated, wire.FileOutcome(out))
	}
}

func (s *Server) uploadReadError(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large",
			fmt.Sprintf("the upload is over %d bytes (api.max_upload_bytes)", mbe.Limit))
		return
	}
	writeError(w, http.StatusBadRequest, "invalid_request", "read multipart body: "+err.Error())
}

// postWatchScan runs a full scan of every watched folder (or ?agent='s) now and returns what each did.
func (s *Server) postWatchScan(w http.ResponseWriter, r *http.Request) {
	if s.opts.Watch == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", "this server watches no folders")
		return
	}
	res, err := s.opts.Watch.Scan(r.Context(), r.URL.Query().Get("agent"))
	body := map[string]any{"scans": nonNilSlice(res)}
	if err != nil {
		body["error"] = err.Error()
	}
	writeJSON(w, http.StatusOK, body)
}

// getWatchStatus reports every watched folder and every failing file.
func (s *Server) getWatchStatus(w http.ResponseWriter, r *http.Request) {
	if s.opts.Watch == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", "this server watches no folders")
		return
	}
	folders, err := s.opts.Watch.Status(r.Context())
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	failing, err := s.opts.Watch.FailingFiles(r.Context())
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"folders": nonNilSlice(folders), "failing": wire.FailingFiles(nonNilSlice(failing))})
}

// memoryOrigin explains a memory from a file: the content's hash, whether (and when) it was
// retired, and the tracked paths that hold that content now.
func (s *Server) memoryOrigin(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	getByID(s, w, r, "memory", a.MemoryOrigin, wire.MemoryOrigin)
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
