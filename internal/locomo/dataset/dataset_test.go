package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

const body = `[{"sample_id":"conv-t","conversation":{},"qa":[]}]`

func sumOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// serve serves b at /locomo10.json over real loopback HTTP, and counts the
// requests.
func serve(t *testing.T, b []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/locomo10.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// noLeftovers fails if dir holds anything but want.
func noLeftovers(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, want)
	}
}

func TestDownload(t *testing.T) {
	srv, _ := serve(t, []byte(body))
	dir := t.TempDir()
	path := filepath.Join(dir, "locomo10.json")
	if err := Download(t.Context(), srv.Client(), srv.URL+"/locomo10.json", sumOf([]byte(body)), path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != body {
		t.Fatalf("downloaded %q (%v), want the served body", b, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	noLeftovers(t, dir, "locomo10.json")
}

// TestDownloadRefuses: a body with another checksum, an error status and a
// body cut short are each a clear error, and leave a file already at the
// path as it was, with no partial download beside it.
func TestDownloadRefuses(t *testing.T) {
	srv, _ := serve(t, []byte(body))
	short := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte(body[:10]))
	}))
	defer short.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for _, tc := range []struct {
		name, url, sum, want string
	}{
		{"bad checksum", srv.URL + "/locomo10.json", SHA256, "its sha256 is " + sumOf([]byte(body)) + ", want " + SHA256},
		{"not found", srv.URL + "/missing.json", sumOf([]byte(body)), "the server answered 404 Not Found"},
		{"cut short", short.URL + "/locomo10.json", sumOf([]byte(body)), "unexpected EOF"},
		{"no server", gone.URL + "/locomo10.json", sumOf([]byte(body)), "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "locomo10.json")
			if err := os.WriteFile(path, []byte("before"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := Download(t.Context(), http.DefaultClient, tc.url, tc.sum, path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "download LoCoMo data from "+tc.url) {
				t.Errorf("error %v, want one naming the URL and saying %q", err, tc.want)
			}
			t.Log(err)
			if b, _ := os.ReadFile(path); string(b) != "before" {
				t.Errorf("the file at the path became %q", b)
			}
			noLeftovers(t, dir, "locomo10.json")
		})
	}
}

// realData is the shared copy of the file (tests may use it where present).
func realData(t *testing.T) []byte {
	t.Helper()
	for _, p := range []string{"../../../../shared/data/locomo/locomo10.json", "../../../../../shared/data/locomo/locomo10.json"} {
		if b, err := os.ReadFile(p); err == nil {
			return b
		}
	}
	t.Skip("the shared LoCoMo data is absent: Cached's download of the real file is not checked")
	return nil
}

// TestCached: the first call downloads into the user cache (a 0700
// directory, a 0600 file); the next uses the copy without asking the
// server; a copy that no longer matches is downloaded again.
func TestCached(t *testing.T) {
	real := realData(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	srv, requests := serve(t, real)
	url := srv.URL + "/locomo10.json"
	p, err := Cached(t.Context(), srv.Client(), url)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "dormouse", "locomo10.json"); p != want {
		t.Errorf("cached at %s, want %s", p, want)
	}
	if st, _ := os.Stat(filepath.Dir(p)); st.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode %v, want 0700", st.Mode().Perm())
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("cached file mode %v, want 0600", st.Mode().Perm())
	}
	if _, err := Cached(t.Context(), srv.Client(), url); err != nil || requests.Load() != 1 {
		t.Errorf("second call: %v after %d requests, want the cached copy after 1", err, requests.Load())
	}
	if err := os.WriteFile(p, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Cached(t.Context(), srv.Client(), url); err != nil || requests.Load() != 2 {
		t.Errorf("damaged copy: %v after %d requests, want a new download", err, requests.Load())
	}
	if b, _ := os.ReadFile(p); sumOf(b) != SHA256 {
		t.Error("the damaged copy was not replaced")
	}
}

// TestFind never downloads: $DORMOUSE_LOCOMO first, then a candidate that
// exists, then a cached copy only while its checksum holds.
func TestFind(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv(Env, "")
	dir := t.TempDir()
	there := filepath.Join(dir, "locomo10.json")
	if err := os.WriteFile(there, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(filepath.Join(dir, "absent.json")); !errors.Is(err, ErrMissing) {
		t.Errorf("nothing anywhere: %v, want ErrMissing", err)
	}
	if p, err := Find(filepath.Join(dir, "absent.json"), there); err != nil || p != there {
		t.Errorf("candidate: %s, %v", p, err)
	}
	t.Setenv(Env, there)
	if p, _ := Find(filepath.Join(dir, "other.json")); p != there {
		t.Errorf("with %s set: %s", Env, p)
	}
	t.Setenv(Env, filepath.Join(dir, "absent.json"))
	if _, err := Find(there); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("with %s naming no file: %v, want ErrMissing naming it", Env, err)
	}
	t.Setenv(Env, "")
	cached := filepath.Join(cache, "dormouse", "locomo10.json")
	if err := os.MkdirAll(filepath.Dir(cached), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cached, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(); !errors.Is(err, ErrMissing) {
		t.Errorf("a cached copy with another checksum: %v, want ErrMissing", err)
	}
	real := realData(t)
	if err := os.WriteFile(cached, real, 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := Find(); err != nil || p != cached {
		t.Errorf("a good cached copy: %s, %v", p, err)
	}
}
