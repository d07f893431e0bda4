package server

import (
	"io"
	"net/http"
	"testing"
)

// With a web handler, every path outside the API is its, and unknown API
// paths stay JSON 404s; without one, everything unknown is a JSON 404.
func TestWebMount(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "page "+r.URL.Path)
	})
	for _, tc := range []struct {
		web        http.Handler
		path, want string // want: the Content-Type
		status     int
	}{
		{page, "/", "text/html", http.StatusOK},
		{page, "/agents/main/facts", "text/html", http.StatusOK},
		{page, "/v1/nowhere", "application/json", http.StatusNotFound},
		{page, "/v1/agents", "application/json", http.StatusOK},
		{page, "/healthz", "application/json", http.StatusOK},
		{nil, "/", "application/json", http.StatusNotFound},
		{nil, "/agents/main", "application/json", http.StatusNotFound},
	} {
		f := newFixture(t, Options{AutoCreate: true, Web: tc.web})
		resp, err := http.Get(f.url + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.want {
			t.Errorf("web %v, GET %s: %d %q, want %d %q", tc.web != nil, tc.path, resp.StatusCode,
				resp.Header.Get("Content-Type"), tc.status, tc.want)
		}
	}
}
