package server

import (
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/dormouse-dev/dormouse/internal/logging"
)

// serveRecovering runs the mux and answers a handler's panic itself: a 500
// naming the request's id when nothing was sent yet, instead of net/http's
// closed connection with no answer. The panic and its stack go to the log
// with the same id. (The store has already closed any SQLite connection
// the panic unwound through: store.ErrPanic.)
func (s *Server) serveRecovering(w *statusRecorder, r *http.Request) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler { // a handler's own way to drop the connection
			panic(p)
		}
		id := logging.RequestID(r.Context())
		s.log.ErrorContext(r.Context(), "panic serving the request", "method", r.Method, "path", r.URL.Path,
			"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		if w.wrote {
			panic(http.ErrAbortHandler) // a partial answer cannot become an error: cut it
		}
		writeError(w, http.StatusInternalServerError, "internal", "internal error (request "+id+"); see the server log")
	}()
	s.mux.ServeHTTP(w, r)
}
