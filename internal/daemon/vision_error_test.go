package daemon_test

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// TestVisionProviderErrorIsSummarised: an image the vision model refuses
// fails with provider, status and reason, the error a watched file's
// listing and an upload's 502 show; not the provider's body quoting the
// key (ollama behind an authenticating proxy here).
func TestVisionProviderErrorIsSummarised(t *testing.T) {
	const key = "proxy-DORMOUSE/echo+key=0123456789"
	forms := []string{key, url.QueryEscape(key), base64.StdEncoding.EncodeToString([]byte(key)), strings.ReplaceAll(key, "/", `\/`)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":"unauthorized: %s"}`, strings.Join(forms, " "))
	}))
	defer srv.Close()
	ing := &watch.Ingester{}
	cfg := visionConfig(srv.URL)
	if err := daemon.DescribeImages(t.Context(), cfg, []string{"OLLAMA_API_KEY=" + key}, ing, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	_, err := ing.Describe(t.Context(), "p.png", "image/png", boatPNG(t, 10))
	if err == nil || !strings.Contains(err.Error(), "ollama answered 401") || !strings.Contains(err.Error(), "check the API key") {
		t.Fatalf("describe with a refused key: %v, want the summary", err)
	}
	for _, f := range forms {
		if strings.Contains(err.Error(), f) {
			t.Errorf("the error holds the key as %q: %v", f, err)
		}
	}
}
