package server

import (
	"bytes"
	"fmt"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"io"
	"net/http"
)

// InProcess returns an http.RoundTripper that serves each request with h
// directly, with no network between: the MCP tools reach the API this way
// inside the daemon and under `dormouse mcp --data`, so they obey the very
// same handlers. Whatever guards the daemon's listener guards the surface
// that calls through it (/mcp), once.
func InProcess(h http.Handler) http.RoundTripper { return inProcess{h} }

type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	req := r.Clone(auth.Trusted(r.Context())) // the daemon asking itself
	if req.Body == nil {
		req.Body = http.NoBody
	}
	req.RequestURI = req.URL.RequestURI()
	req.RemoteAddr = "in-process"
	if req.Host == "" {
		req.Host = req.URL.Host
	}
	w := &bufferedResponse{header: http.Header{}}
	t.h.ServeHTTP(w, req)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       r,
	}, nil
}

// bufferedResponse collects a handler's response.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedResponse) Header() http.Header { return w.header }

func (w *bufferedResponse) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *bufferedResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}
