// Package web is the memory-bank page the daemon serves at /: a person looks
// at what each agent remembers, searches it, corrects or rejects facts,
// deletes memories and runs a consolidation, from a browser or a phone.
//
// Pages are written on the server by Go functions (html.go's pageWriter
// escapes every value for where it stands): no JavaScript, no build step,
// nothing fetched from elsewhere. Every state-changing request is a POST
// carrying a CSRF token, and it calls the same store, recall and
// consolidation services as the HTTP API.
package web

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/doctor"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

//go:embed static
var staticFS embed.FS

// Consolidator carries out consolidation requests (the daemon's engine).
type Consolidator interface {
	Do(ctx context.Context, agent string, req consolidate.Request) (consolidate.Result, error)
}

// Reporter gives the current health report, as GET /health serves it.
type Reporter interface {
	Report(ctx context.Context) health.Report
}

// Options are the services the page shows and acts through.
type Options struct {
	Store  *store.Store
	Recall *recall.Engine
	// Reads are the read grants: a search or question on an agent's page
	// covers the granted agents the sign-in may read too. Nil: none.
	Reads *gate.Reads
	// Consolidate runs on-demand consolidations; nil hides the button.
	Consolidate Consolidator
	// Files runs uploads through the file pipeline (the API's POST
	// /v1/agents/{agent}/files ingester); nil hides the upload form.
	Files FileIngester
	// MaxUploadBytes bounds an uploaded file (api.max_upload_bytes); 0: 20 MiB.
	MaxUploadBytes int64
	// Answer answers the Ask box as POST /v1/agents/{agent}/ask does; nil
	// answers extractively from Recall's context (the offline provider).
	Answer *answer.Answerer
	// Capture bounds a memory added from the page, as the API's limits do
	// (api.max_content_bytes, capture.max_future_skew); a zero MaxContent
	// is the API's default, 64 KiB.
	Capture capture.Limits
	// OnWrite, when set, is told of every agent that stored a new memory
	// from the page (the daemon's backlog trigger and embedder listen).
	OnWrite func(agent string)
	// Now is the page's clock (the activity picture's last day); nil is
	// time.Now.
	Now func() time.Time
	// Health is the daemon's health monitor; nil shows the health as unknown.
	Health Reporter
	// Timers reports the systemd timers' last and next runs; nil asks
	// systemctl about the shipped ones (doctor.Timers).
	Timers func(ctx context.Context) []Timer
	// AutoCreate and Agents are the API's rules: which agents exist. Looking
	// at an agent never creates it, except one of a fixed list (which always
	// exists); adding a memory creates it as the API's write would.
	AutoCreate bool
	Agents     []string
	// Backups is where deleting an agent puts the backup it takes first;
	// nil: the page deletes no agent.
	Backups *backup.Options
	// Location is the zone days and times are shown in; nil is time.Local.
	Location *time.Location
	// CSRFKey signs the forms' tokens; nil draws a random key, so tokens
	// last as long as the process.
	CSRFKey []byte
	// Keyring holds the tokens a browser must sign in with; nil or empty:
	// none is asked for (loopback).
	Keyring *auth.Keyring
	// SessionIdle ends a sign-in unused this long (api.session_idle); 0:
	// 12 hours.
	SessionIdle time.Duration
	// TrustedProxies are the proxies whose X-Forwarded-Proto: https makes
	// the cookies Secure (api.trusted_proxies).
	TrustedProxies []netip.Prefix
	Logger         *slog.Logger
}

// Handler serves the pages.
type Handler struct {
	opts     Options
	log      *slog.Logger
	mux      *http.ServeMux
	csrf     *csrf
	sessions *auth.Sessions
}

// New builds the page handler.
func New(o Options) (*Handler, error) {
	if o.Store == nil || o.Recall == nil {
		return nil, errors.New("web: a store and a recall engine are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Capture.MaxContent <= 0 {
		o.Capture.MaxContent = 64 << 10
	}
	if o.Answer == nil {
		o.Answer = &answer.Answerer{Recall: o.Recall}
	}
	if o.Timers == nil {
		o.Timers = SystemdTimers(doctor.Timers...)
	}
	h := &Handler{opts: o, log: o.Logger, mux: http.NewServeMux(), sessions: &auth.Sessions{Idle: o.SessionIdle}}
	c, err := newCSRF(o.CSRFKey, h.overTLS)
	if err != nil {
		return nil, err
	}
	h.csrf = c
	h.routes()
	return h, nil
}

func (h *Handler) routes() {
	static, _ := fs.Sub(staticFS, "static")
	files := http.FileServerFS(static)
	h.mux.Handle("GET /static/", http.StripPrefix("/static", cacheFor(files, 24*time.Hour)))
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.HandleFunc("GET /login", h.loginPage)
	h.mux.HandleFunc("POST /login", h.post(h.login))
	h.mux.HandleFunc("POST /logout", h.post(h.logout))
	h.mux.HandleFunc("GET /agents/{agent}", h.agent(h.overview))
	h.mux.HandleFunc("GET /agents/{agent}/search", h.agent(h.search))
	h.mux.HandleFunc("GET /agents/{agent}/ask", h.agent(h.askPage))
	h.mux.HandleFunc("POST /agents/{agent}/ask", h.post(h.agent(h.ask)))
	h.mux.HandleFunc("POST /memories", h.post(h.remember))
	h.mux.HandleFunc("GET /agents/{agent}/days", h.agent(h.days))
	h.mux.HandleFunc("GET /agents/{agent}/days/{day}", h.agent(h.day))
	h.mux.HandleFunc("GET /agents/{agent}/memories/{id}", h.agent(h.memory))
	h.mux.HandleFunc("POST /agents/{agent}/memories/{id}/delete", h.post(h.agent(h.deleteMemory)))
	h.mux.HandleFunc("POST /agents/{agent}/memories/{id}/share", h.post(h.agent(h.shareMemory)))
	h.mux.HandleFunc("GET /agents/{agent}/facts", h.agent(h.facts))
	h.mux.HandleFunc("GET /agents/{agent}/facts/{id}", h.agent(h.fact))
	h.mux.HandleFunc("POST /agents/{agent}/facts/{id}/reject", h.post(h.agent(h.rejectFact)))
	h.mux.HandleFunc("POST /agents/{agent}/facts/{id}/correct", h.post(h.agent(h.correctFact)))
	h.mux.HandleFunc("GET /agents/{agent}/profile/{id}", h.agent(h.profileLine))
	h.mux.HandleFunc("POST /agents/{agent}/profile/{id}/edit", h.post(h.agent(h.editProfileLine)))
	h.mux.HandleFunc("POST /agents/{agent}/profile/{id}/remove", h.post(h.agent(h.removeProfileLine)))
	h.mux.HandleFunc("GET /agents/{agent}/consolidate", h.agent(h.consolidatePage))
	h.mux.HandleFunc("POST /agents/{agent}/consolidate", h.post(h.agent(h.consolidate)))
	h.mux.HandleFunc("GET /agents/{agent}/upload", h.agent(h.uploadPage))
	h.mux.HandleFunc("POST /agents/{agent}/upload", h.postUpload(h.agent(h.upload)))
	h.mux.HandleFunc("GET /agents/{agent}/delete", h.agent(h.deletePage))
	h.mux.HandleFunc("POST /agents/{agent}/delete", h.post(h.deleteAgent))
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.failStatus(w, r, http.StatusNotFound, "There is no page at "+r.URL.Path+".")
	})
}

// ServeHTTP sets the headers every page shares: a policy that allows no
// script at all and nothing from elsewhere, no framing, no caching of
// private pages.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	r, ok := h.guard(w, r)
	if !ok {
		return
	}
	h.mux.ServeHTTP(w, r)
}

func cacheFor(next http.Handler, d time.Duration) http.Handler {
	v := "public, max-age=" + strconv.Itoa(int(d.Seconds()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", v)
		next.ServeHTTP(w, r)
	})
}

// agentFunc handles a request for one open agent.
type agentFunc func(w http.ResponseWriter, r *http.Request, a *store.Agent)

// agent checks the agent name by the API's rules (the gate's) and opens the
// agent; an agent that does not exist is a 404, never created by looking at
// it, save one of a fixed list, which always exists.
func (h *Handler) agent(fn agentFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("agent")
		create, err := h.agents().Check(name, false)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		a, err := h.opts.Store.Acquire(r.Context(), name, create)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		defer h.opts.Store.Release(a)
		fn(w, r, a)
	}
}

// agents are the API's agent rules, as the gate checks them.
func (h *Handler) agents() gate.Agents {
	return gate.Agents{AutoCreate: h.opts.AutoCreate, Fixed: h.opts.Agents, Reads: h.opts.Reads}
}

// agentNames is every agent with a file, and those of the fixed list.
func (h *Handler) agentNames() ([]string, error) {
	names, err := h.opts.Store.Agents()
	if err != nil {
		return nil, err
	}
	for _, n := range h.opts.Agents {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// fail shows an error page with the status and the message the API gives
// err (the gate's table); what the table does not know is logged, and
// shown without its details.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	ref := gate.Of(err)
	switch {
	case ref.Code == "storage_full" || ref.Code == "agent_unavailable":
		h.log.Error("web: "+ref.Code, "path", r.URL.Path, "err", err)
	case ref.Unexpected():
		h.log.Error("page failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	h.failStatus(w, r, ref.Status, ref.Msg)
}

func (h *Handler) failStatus(w http.ResponseWriter, r *http.Request, status int, msg string) {
	p := h.newPage(w, r, http.StatusText(status))
	p.Agent = r.PathValue("agent")
	if store.ValidateAgentName(p.Agent) != nil {
		p.Agent = ""
	}
	p.Error = msg
	h.render(w, status, "error", p)
}
