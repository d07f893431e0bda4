// Package server is Dormouse's HTTP API: JSON in and out, every error as
// {"error":{"code","message"}}, bounded bodies, agents checked before use.
package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"sync/atomic"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/logging"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Options bound what a request may ask for.
type Options struct {
	MaxBodyBytes    int64
	MaxBatch        int
	MaxContentBytes int
	AutoCreate      bool     // create an agent on its first write
	Agents          []string // the fixed agent list when AutoCreate is false
	Logger          *slog.Logger
	Now             func() time.Time
	// Consolidate runs on-demand consolidations; nil answers 501.
	Consolidate Consolidator
	// OnWrite, when set, is told of every agent that stored new memories
	// (the daemon's backlog trigger listens).
	OnWrite func(agent string)
	// Health serves GET /health and the health gauges of /metrics; nil
	// answers /health with 501.
	Health Reporter
	// PublicDetail shows every agent's detail on /health and /metrics to
	// requests without a token (health.public_detail); otherwise, with
	// tokens configured, a token sees its agents' and no token none.
	PublicDetail bool
	// Files ingests uploaded files (POST /v1/agents/{agent}/files); nil answers 501.
	Files FileIngester
	// Watch scans watched folders and reports on them (/v1/watch/...); nil answers 501.
	Watch Watcher
	// Backups is where DELETE /v1/agents/{agent} puts the backup it takes
	// first; nil answers that route 501.
	Backups *backup.Options
	// MaxUploadBytes bounds an upload's (and an import's) body instead of MaxBodyBytes; 0: 20 MiB.
	MaxUploadBytes int64
	// UploadTimeout is how long an upload (the API's or the page's) may take, its body's read and
	// its parse included: its connection's deadlines are moved to it, so a parse stopped at
	// files.parse_timeout still has time to send its 422 (config.Config.UploadTimeout); 0 leaves
	// the http.Server's.
	UploadTimeout time.Duration
	// MaxFutureSkew is capture.max_future_skew: how far ahead of Now a memory's timestamp (or an
	// upload's mtime) may be; 0: capture's default.
	MaxFutureSkew time.Duration
	// Answer answers POST /ask; nil answers extractively from the recall
	// engine's context (the offline provider).
	Answer *answer.Answerer
	// Web serves every path outside the API (the memory-bank page at /);
	// nil answers them with the API's 404. Unknown /v1 paths are always the
	// API's 404.
	Web http.Handler
	// Keyring holds the bearer tokens every /v1 request must carry; nil or
	// empty: none is asked for (loopback).
	Keyring *auth.Keyring
	// Reads are the read grants (agents.<reader>.reads): a reader's recall
	// and ask search the granted agents its token covers too. Nil: none.
	Reads *gate.Reads
	// AllowedHosts are the names a request's Host may carry besides
	// localhost, loopback addresses and the address it came in on
	// (api.allowed_hosts and the listen host).
	AllowedHosts []string
}

// Consolidator carries out consolidation requests.
type Consolidator interface {
	Do(ctx context.Context, agent string, req consolidate.Request) (consolidate.Result, error)
}

// Server serves the API over a Store.
type Server struct {
	store  *store.Store
	recall *recall.Engine
	opts   Options
	log    *slog.Logger
	mux    *routeMux
	ready  atomic.Bool
	met    *metrics
	// boundary refuses foreign Hosts, cross-origin writes and JSON bodies
	// not sent as JSON, before any route.
	boundary *boundary
	// fullLog logs a full disk's refusals once every 10 s.
	fullLog logging.Sample
}

// New builds the API. It reports not ready until SetReady(true).
func New(st *store.Store, eng *recall.Engine, o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 1000
	}
	if o.MaxContentBytes <= 0 {
		o.MaxContentBytes = 64 << 10
	}
	s := &Server{store: st, recall: eng, opts: o, log: o.Logger, mux: newRouteMux(), met: newMetrics(o.Health),
		fullLog:  logging.Sample{Every: 10 * time.Second},
		boundary: newBoundary(o.AllowedHosts)}
	s.routes()
	return s
}

// limits are what every memory this server takes in is held to.
func (s *Server) limits() capture.Limits {
	return capture.Limits{MaxContent: s.opts.MaxContentBytes, MaxFutureSkew: s.opts.MaxFutureSkew}
}

// Handle mounts another surface (MCP, the web page) on the API's mux, behind
// the same path checks, body limit, metrics and request log.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// SetReady flips /readyz: false while starting and while draining.
func (s *Server) SetReady(v bool) { s.ready.Store(v) }

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.ready.Load() {
			writeError(w, http.StatusServiceUnavailable, "not_ready", "starting or draining")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	s.mux.HandleFunc("GET /health", s.health)
	s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	s.mux.HandleFunc("GET /v1/agents", s.guard(read, s.listAgents))
	s.mux.HandleFunc("POST /v1/agents", s.guard(write, s.postAgent))
	s.mux.HandleFunc("DELETE /v1/agents/{agent}", s.guard(write, s.deleteAgent))
	s.mux.HandleFunc("GET /v1/agents/{agent}/export", s.guard(read, s.agentHandler(s.getExport)))
	s.mux.HandleFunc("POST /v1/agents/{agent}/import", s.guard(write, s.postImport))
	s.mux.HandleFunc("POST /v1/agents/{agent}/memories", s.guard(write, s.postMemories))
	s.mux.HandleFunc("GET /v1/agents/{agent}/memories", s.guard(read, s.agentHandler(s.listMemories)))
	s.mux.HandleFunc("GET /v1/agents/{agent}/memories/{id}", s.guard(read, s.agentHandler(s.getMemory)))
	s.mux.HandleFunc("DELETE /v1/agents/{agent}/memories/{id}", s.guard(write, s.agentHandler(s.deleteMemory)))
	s.mux.HandleFunc("POST /v1/agents/{agent}/memories/{id}/share", s.guard(read, s.agentHandler(s.postShare)))
	s.mux.HandleFunc("POST /v1/agents/{agent}/recall", s.guard(read, s.agentHandler(s.postRecall)))
	s.mux.HandleFunc("POST /v1/agents/{agent}/ask", s.guard(read, s.agentHandler(s.postAsk)))
	s.mux.HandleFunc("GET /v1/agents/{agent}/facts", s.guard(read, s.agentHandler(s.listFacts)))
	s.mux.HandleFunc("GET /v1/agents/{agent}/facts/{id}", s.guard(read, s.agentHandler(s.getFact)))
	s.mux.HandleFunc("DELETE /v1/agents/{agent}/facts/{id}", s.guard(write, s.agentHandler(s.rejectFact)))
	s.mux.HandleFunc("POST /v1/agents/{agent}/facts/{id}/correct", s.guard(write, s.agentHandler(s.correctFact)))
	s.mux.HandleFunc("GET /v1/agents/{agent}/profile", s.guard(read, s.agentHandler(s.listProfile)))
	s.mux.HandleFunc("GET /v1/agents/{agent}/profile/{id}", s.guard(read, s.agentHandler(s.getProfileLine)))
	s.mux.HandleFunc("PATCH /v1/agents/{agent}/profile/{id}", s.guard(write, s.agentHandler(s.editProfileLine)))
	s.mux.HandleFunc("DELETE /v1/agents/{agent}/profile/{id}", s.guard(write, s.agentHandler(s.removeProfileLine)))
	s.mux.HandleFunc("GET /v1/agents/{agent}/consolidations", s.guard(read, s.agentHandler(s.listConsolidations)))
	s.mux.HandleFunc("GET /v1/agents/{agent}/consolidations/{id}", s.guard(read, s.agentHandler(s.getConsolidation)))
	s.mux.HandleFunc("POST /v1/agents/{agent}/consolidate", s.guard(write, s.postConsolidate))
	s.mux.HandleFunc("GET /v1/agents/{agent}/stats", s.guard(read, s.agentHandler(s.stats)))
	s.mux.HandleFunc("POST /v1/agents/{agent}/files", s.guard(write, s.postFile))
	s.mux.HandleFunc("GET /v1/agents/{agent}/memories/{id}/origin", s.guard(read, s.agentHandler(s.memoryOrigin)))
	s.mux.HandleFunc("POST /v1/watch/scan", s.guard(write, s.postWatchScan))
	s.mux.HandleFunc("GET /v1/watch/status", s.guard(read, s.getWatchStatus))
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	s.mux.HandleFunc("/v1/", s.mux.orMethodNotAllowed(notFound))
	if s.opts.Web != nil {
		s.mux.HandleFunc("/", s.mux.orMethodNotAllowed(s.opts.Web))
	} else {
		s.mux.HandleFunc("/", s.mux.orMethodNotAllowed(notFound))
	}
}

// ServeHTTP rejects paths that are not already clean (so "..", "." and empty
// segments never reach routing or an agent name), bounds the body and logs
// one line per request at debug level.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	r = withRequestID(rec, r)
	s.extendUploadDeadlines(w, r)
	route := "invalid_path"
	if p := r.URL.Path; p == "" || path.Clean(p) != p {
		writeError(rec, http.StatusBadRequest, "invalid_path", "the request path must be canonical: no '.', '..' or empty segments and no trailing slash")
	} else if !s.boundary.admit(rec, r) {
		route = "refused"
	} else {
		if limit := s.bodyLimit(r); limit > 0 {
			r.Body = http.MaxBytesReader(rec, r.Body, limit)
		}
		s.serveRecovering(rec, r)
		route = r.Pattern // set by the mux: bounded label values, never raw paths
		if route == "" {
			route = "unmatched" // e.g. a 405 for a known path
		}
	}
	s.met.observe(route, rec.status, time.Since(start))
	if rec.encodeErr != nil {
		s.log.ErrorContext(r.Context(), "encode the response", "method", r.Method, "path", r.URL.Path, "err", rec.encodeErr)
	}
	s.log.LogAttrs(r.Context(), slog.LevelDebug, "request",
		slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", rec.status), slog.Duration("took", time.Since(start)))
}

// extendUploadDeadlines gives an upload UploadTimeout to be read, parsed and answered. A server
// without deadlines to move (a ResponseRecorder, the in-process transport) has none to miss.
func (s *Server) extendUploadDeadlines(w http.ResponseWriter, r *http.Request) {
	if s.opts.UploadTimeout <= 0 || !(isUpload(r) || s.isPageUpload(r)) {
		return
	}
	end := time.Now().Add(s.opts.UploadTimeout)
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(end); err == nil {
		_ = rc.SetWriteDeadline(end)
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status    int
	wrote     bool // a header or body was sent
	encodeErr error
}

func (r *statusRecorder) encodeFailed(err error) { r.encodeErr = err }

func (r *statusRecorder) WriteHeader(code int) {
	r.status, r.wrote = code, true
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

type agentFunc func(w http.ResponseWriter, r *http.Request, a *store.Agent)

// checkAgent validates the agent name in the path and decides whether the
// request may create the agent: writes may (when allowed); reads of an agent
// that does not exist are 404, except for the agents of a fixed list, which
// always exist. It writes the error response itself when it returns false.
func (s *Server) checkAgent(w http.ResponseWriter, r *http.Request, write bool) (name string, create, ok bool) {
	name = r.PathValue("agent")
	create, err := s.agents().Check(name, write)
	if err != nil {
		s.requestError(w, r, err)
		return "", false, false
	}
	return name, create, true
}

// agents are the server's agent rules, as the gate checks them.
func (s *Server) agents() gate.Agents {
	return gate.Agents{AutoCreate: s.opts.AutoCreate, Fixed: s.opts.Agents, Reads: s.opts.Reads}
}

// agentHandler checks and opens the agent, then runs fn.
func (s *Server) agentHandler(fn agentFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, create, ok := s.checkAgent(w, r, false)
		if !ok {
			return
		}
		a, ok := s.acquire(w, r, name, create)
		if !ok {
			return
		}
		defer s.store.Release(a)
		fn(w, r, a)
	}
}

// acquire opens the agent for a request; a failure is answered here, and ok
// is false. The caller releases it.
func (s *Server) acquire(w http.ResponseWriter, r *http.Request, name string, create bool) (*store.Agent, bool) {
	a, err := s.store.Acquire(r.Context(), name, create)
	if err != nil {
		s.requestError(w, r, err)
		return nil, false
	}
	return a, true
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) {
	names, err := s.store.Agents()
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	for _, n := range s.opts.Agents {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if g, ok := auth.FromContext(r.Context()); ok {
		names = slices.DeleteFunc(names, func(n string) bool { return !g.Allows(n, false) })
	}
	slices.Sort(names)
	type agent struct {
		Name string `json:"name"`
	}
	out := make([]agent, len(names))
	for i, n := range names {
		out[i] = agent{Name: n}
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": out})
}

// writeJSON encodes v before sending anything, so a value that cannot be
// encoded is a 500 in the error shape (and a logged error, by ServeHTTP),
// never an empty 200.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		if f, ok := w.(encodeFailer); ok {
			f.encodeFailed(err)
		}
		status, body = http.StatusInternalServerError, internalErrorBody
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// encodeFailer is told when a response could not be encoded (ServeHTTP's
// recorder, which logs it with the request).
type encodeFailer interface{ encodeFailed(err error) }

var internalErrorBody = []byte(`{"error":{"code":"internal","message":"internal error: the response could not be encoded; see the server log"}}`)

// ErrorBody is the shape of every error response.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b ErrorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}
