package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestInProcess(t *testing.T) {
	h := http.NewServeMux()
	h.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Remote", r.RemoteAddr)
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(r.URL.RawQuery + ":" + string(b)))
	})
	h.HandleFunc("GET /silent", func(w http.ResponseWriter, r *http.Request) {})
	hc := &http.Client{Transport: InProcess(h)}

	resp, err := hc.Post("http://x/echo?a=1", "text/plain", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 || string(b) != "a=1:body" || resp.Header.Get("X-Remote") != "in-process" || resp.ContentLength != 8 {
		t.Errorf("got %d %q %v", resp.StatusCode, b, resp.Header)
	}
	resp, err = hc.Get("http://x/silent")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("a handler that writes nothing: %v, %v", resp, err)
	}
	resp, err = hc.Get("http://x/nowhere")
	if err != nil || resp.StatusCode != 404 {
		t.Errorf("unknown path: %v, %v", resp, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x/silent", nil)
	if _, err := hc.Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
}
