package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// page is what every template gets: the layout's fields and the page's own
// data in Data.
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
	"remembered":      "The memory is stored. It is searchable now, and the night's consolidation reads it with the rest of its day.",
	"duplicate":       "That memory was stored already (the same text, recently): nothing new was added.",
	"rejected":        "The fact was rejected: it will not be offered as current again, nor come back from a later consolidation.",
	"corrected":       "Your correction is now the current fact; the old value stays in its history.",
	"profile-edited":  "Your wording is now the profile's line; the old one stays in its history.",
	"profile-removed": "The line was removed: it is no longer offered, nor brought back by a later consolidation.",
	"nothing":         "Nothing to consolidate: no past day has unconsolidated memories. Pick a date to rebuild that day.",
}

// parsePages builds one template set per page: the layout plus the page.
func parsePages(loc *time.Location) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.In(loc).Format("2006-01-02 15:04")
		},
		"whenp": func(t *time.Time) string {
			if t == nil || t.IsZero() {
				return "—"
			}
			return t.In(loc).Format("2006-01-02 15:04")
		},
		"iso":     func(t time.Time) string { return t.Format(time.RFC3339) },
		"pct":     func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
		"score":   func(f float64) string { return fmt.Sprintf("%.3f", f) },
		"bar":     func(f float64) int { return int(math.Round(math.Max(0, math.Min(1, f)) * 100)) },
		"bytes":   humanBytes,
		"dur":     humanDuration,
		"deref":   func(p *float64) float64 { return *p },
		"derefid": func(p *int64) int64 { return *p },
		"ids":     joinIDs,
		"secs":    func(n uint64) time.Duration { return time.Duration(n) * time.Second },
		"state":   factState,
		"dict":    dict,
	}
	// The layout and the parts several pages share (templates/parts).
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse the page layout: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("parse page %s: %w", n, err)
		}
		pages[base] = t
	}
	return pages, nil
}

// render writes a page, all of it or (when the template fails) an error
// status with nothing half-written.
func (h *Handler) render(w http.ResponseWriter, status int, name string, p *page) {
	t, ok := h.pages[name]
	var buf bytes.Buffer
	err := fmt.Errorf("no template %q", name)
	if ok {
		err = t.ExecuteTemplate(&buf, "layout.html", p)
	}
	if err != nil {
		h.log.Error("render page", "page", name, "err", err)
		http.Error(w, "internal error rendering the page; see the server log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// redirect answers a POST with 303 to a page and a named flash message.
func redirect(w http.ResponseWriter, r *http.Request, to, done string) {
	if done != "" {
		to += "?done=" + done
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// humanBytes is text.Size for the sizes a template is handed.
func humanBytes(n any) string {
	switch x := n.(type) {
	case int64:
		return text.Size(x)
	case uint64:
		return text.Size(x)
	case int:
		return text.Size(x)
	}
	return fmt.Sprint(n)
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

// dict passes several values to a shared template: dict "Agent" $a "Days" $d.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict needs key and value pairs, got %d arguments", len(kv))
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}
