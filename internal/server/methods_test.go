package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestWrongMethodAnswers405: every route of the mux, asked with a method it
// does not take, answers 405 with an Allow header naming the methods it
// does take, in the API's error shape; an unknown path stays a 404.
func TestWrongMethodAnswers405(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := New(st, &recall.Engine{}, Options{AutoCreate: true})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	allowed := map[string][]string{} // path → methods routed
	for _, p := range srv.mux.patterns {
		method, route, ok := strings.Cut(p, " ")
		if !ok {
			continue // a catch-all or a mount: every method
		}
		path := strings.NewReplacer("{agent}", "main", "{id}", "1").Replace(route)
		allowed[path] = append(allowed[path], method)
	}
	if len(allowed) < 15 {
		t.Fatalf("found %d routed paths in the mux, want every route of the API", len(allowed))
	}
	for path, methods := range allowed {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if slices.Contains(methods, m) {
				continue
			}
			code, allow, body := sendBare(t, m, ts.URL+path)
			if code != http.StatusMethodNotAllowed || !strings.Contains(body, `"code":"method_not_allowed"`) {
				t.Errorf("%s %s = %d %s, want 405 method_not_allowed", m, path, code, body)
				continue
			}
			for _, want := range methods {
				if !slices.Contains(strings.Split(allow, ", "), want) {
					t.Errorf("%s %s: Allow = %q, want it to name %s", m, path, allow, want)
				}
			}
		}
	}
	if code, _, _ := sendBare(t, http.MethodGet, ts.URL+"/v1/nowhere"); code != http.StatusNotFound {
		t.Errorf("GET /v1/nowhere = %d, want 404", code)
	}
}

// sendBare sends a request without a body.
func sendBare(t *testing.T, method, url string) (code int, allow, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Allow"), string(b)
}
