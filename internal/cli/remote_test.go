package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The CLI words a daemon's error as it always has (message, status, code),
// and sends DORMOUSE_TOKEN, now that its requests go through the public client.
func TestRemoteErrorsAndToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/agents/main/stats":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":{"code":"unknown_agent","message":"no agent \"main\""}}`)
		case "/v1/agents/main/memories/1":
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
	r := newRemote(srv.URL, "")
	_, statsErr := r.Stats(t.Context(), "main")
	_, getErr := r.Get(t.Context(), "main", 1)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{statsErr, `no agent "main" (HTTP 404 unknown_agent)`},
		{getErr, `proxy error (HTTP 502 http)`},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("got %v, want %s", tc.err, tc.want)
		}
	}
	if _, err := r.Agents(t.Context()); err == nil {
		t.Error("no token, yet no error")
	}
	names, err := newRemote(srv.URL, "tok").Agents(t.Context())
	if err != nil || len(names) != 2 {
		t.Errorf("with the token: %v, %v", names, err)
	}
}
