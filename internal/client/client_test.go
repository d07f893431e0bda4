package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The CLI's client keeps its error type and codes now that its requests go
// through the public client.
func TestErrorsAndToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/agents/main/stats":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"unknown_agent","message":"no agent \"main\""}}`)
		case "/healthz":
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, "proxy error")
		case "/v1/agents":
			if r.Header.Get("Authorization") != "Bearer tok" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, `{"agents":[{"name":"a"},{"name":"b"}]}`)
		}
	}))
	defer srv.Close()
	c := New(srv.URL, nil)
	for _, tc := range []struct {
		err  error
		want APIError
	}{
		{func() error { _, err := c.Stats(t.Context(), "main"); return err }(), APIError{404, "unknown_agent", `no agent "main"`}},
		{c.Healthz(t.Context()), APIError{502, "http", "proxy error"}},
	} {
		var ae *APIError
		if !errors.As(tc.err, &ae) || *ae != tc.want {
			t.Errorf("got %v (%+v), want %+v", tc.err, ae, tc.want)
		}
	}
	if _, err := c.Agents(t.Context()); err == nil {
		t.Error("no token, yet no error")
	}
	names, err := c.WithToken("tok").Agents(t.Context())
	if err != nil || len(names) != 2 {
		t.Errorf("with the token: %v, %v", names, err)
	}
}
