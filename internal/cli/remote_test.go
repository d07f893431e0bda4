package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
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

// TestUnauthorizedSaysWhichTokenToSet: a daemon with tokens refuses a CLI
// command without one (or with a wrong one), and the CLI says how to send it.
func TestUnauthorizedSaysWhichTokenToSet(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	k, err := auth.New([]auth.Rule{{Name: "cli", SHA256: auth.Hash("right"), Agents: []string{"*"}, Write: true}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(st, &recall.Engine{}, server.Options{AutoCreate: true, Keyring: k}))
	t.Cleanup(func() {
		ts.Close()
		st.Close()
	})
	addr := strings.TrimPrefix(ts.URL, "http://")
	cfg := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, environ := range [][]string{{"DORMOUSE_CONFIG=" + cfg}, {"DORMOUSE_CONFIG=" + cfg, "DORMOUSE_TOKEN=wrong"}} {
		for _, args := range [][]string{{"list"}, {"status"}, {"recall", "q"}} {
			_, errOut, code := runEnv(environ, "", append(args, "--addr", addr)...)
			if code != ExitError || !strings.Contains(errOut, "HTTP 401") || !strings.Contains(errOut, "set DORMOUSE_TOKEN") {
				t.Errorf("%v %v: exit %d, %q; want exit 1 saying to set DORMOUSE_TOKEN", environ[1:], args, code, errOut)
			}
		}
	}
	if _, errOut, code := runEnv([]string{"DORMOUSE_CONFIG=" + cfg, "DORMOUSE_TOKEN=right"}, "", "status", "--addr", addr); code != ExitOK {
		t.Errorf("status with the right token: exit %d, %q", code, errOut)
	}
}
