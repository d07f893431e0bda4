package server

import (
	"net/http"
	"strings"
)

// routeMux is the API's ServeMux, remembering the patterns routed.
type routeMux struct {
	*http.ServeMux
	patterns []string
}

func newRouteMux() *routeMux { return &routeMux{ServeMux: http.NewServeMux()} }

// Handle routes pattern to h.
func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// HandleFunc routes pattern to h.
func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(h))
}

// probedMethods are the methods a path is tried with to fill Allow.
var probedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowed lists the methods that have a route for r's path. The catch-alls
// (no method in their pattern) do not count: they would match any method.
func (m *routeMux) allowed(r *http.Request) []string {
	var out []string
	for _, method := range probedMethods {
		probe := &http.Request{Method: method, URL: r.URL, Host: r.Host, Header: http.Header{}}
		if _, pattern := m.Handler(probe); strings.Contains(pattern, " ") {
			out = append(out, method)
		}
	}
	return out
}

// orMethodNotAllowed answers a request that fell through to a catch-all
// with 405 and Allow when its path has routes for other methods (the
// catch-all would otherwise win and answer 404), and passes the rest to next.
func (m *routeMux) orMethodNotAllowed(next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		allow := m.allowed(r)
		if len(allow) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed",
			r.URL.Path+" takes "+strings.Join(allow, ", ")+", not "+r.Method)
	}
}
