package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/auth"
)

// page is what every page function gets: the layout's fields and the
// page's own data in Data.
type page struct {
	Title string
	Agent string // the agent the page is about; "" for the overview
	Nav   string // which agent tab is current
	Flash string // a fixed message after a redirect (never user input)
	Error string
	CSRF  string
	Data  any
	Auth  bool // signed in with a token: the page offers to sign out
}

func (h *Handler) newPage(w http.ResponseWriter, r *http.Request, title string) *page {
	_, signedIn := auth.FromContext(r.Context())
	return &page{Title: title, CSRF: h.csrf.token(w, r), Flash: flashes[r.URL.Query().Get("done")], Auth: signedIn}
}

// flashes are the messages a redirect may ask for by name, so a link can
// never make the page say something of its own choosing.
var flashes = map[string]string{
	"deleted":         "The memory was deleted.",
	"shared":          "The memory is shared: this copy names where it came from, and forgetting the original forgets it too.",
	"already_shared":  "That memory was shared here already: this is its copy.",
	"remembered":      "The memory is stored. It is searchable now, and the night's consolidation reads it with the rest of its day.",
	"duplicate":       "That memory was stored already (the same text, recently): nothing new was added.",
	"rejected":        "The fact was rejected: it will not be offered as current again, nor come back from a later consolidation.",
	"corrected":       "Your correction is now the current fact; the old value stays in its history.",
	"profile-edited":  "Your wording is now the profile's line; the old one stays in its history.",
	"profile-removed": "The line was removed: it is no longer offered, nor brought back by a later consolidation.",
	"nothing":         "Nothing to consolidate: no past day has unconsolidated memories. Pick a date to rebuild that day.",
}

// pageBodies are the pages by name: each writes its content inside the
// layout from its own data.
var pageBodies = map[string]func(w *pageWriter, p *page) error{
	"index":       body(writeIndex),
	"login":       body(writeLogin),
	"remember":    body(writeRemember),
	"delete":      body(writeDelete),
	"overview":    body(writeOverview),
	"days":        body(writeDays),
	"day":         body(writeDay),
	"memory":      body(writeMemory),
	"consolidate": body(writeConsolidate),
	"upload":      body(writeUpload),
	"search":      body(writeSearch),
	"ask":         body(writeAsk),
	"facts":       body(writeFacts),
	"fact":        body(writeFact),
	"profileline": body(writeProfileLine),
	"error": func(w *pageWriter, p *page) error {
		writeError(w, p)
		return nil
	},
}

// body is a page function of its own data type, checked where the page
// is rendered.
func body[T any](write func(*pageWriter, *page, T)) func(*pageWriter, *page) error {
	return func(w *pageWriter, p *page) error {
		d, ok := p.Data.(T)
		if !ok {
			return fmt.Errorf("page data is %T, want %T", p.Data, d)
		}
		write(w, p, d)
		return nil
	}
}

// render writes a page, all of it or (when the page's code fails) an
// error status with nothing half-written.
func (h *Handler) render(w http.ResponseWriter, status int, name string, p *page) {
	pw := &pageWriter{loc: h.opts.Location, b: make([]byte, 0, 16<<10)}
	err := fmt.Errorf("no page %q", name)
	if write, ok := pageBodies[name]; ok {
		writeLayout(pw, p, func() { err = write(pw, p) })
		if err == nil {
			err = pw.err
		}
	}
	if err != nil {
		h.log.Error("render page", "page", name, "err", err)
		http.Error(w, "internal error rendering the page; see the server log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(pw.b)
}

// redirect answers a POST with 303 to a page and a named flash message.
func redirect(w http.ResponseWriter, r *http.Request, to, done string) {
	if done != "" {
		to += "?done=" + done
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "in " + humanDuration(-d)
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}
