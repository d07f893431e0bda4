package server

import (
	"net/http"

	"github.com/dormouse-dev/dormouse/internal/logging"
)

// RequestIDHeader carries a request's id both ways: a client may send its
// own (1-64 of A-Z a-z 0-9 - _ .), else the server makes one; the answer
// always has it, and every log record of the request has it as request_id
// (REQUEST_ID= in the journal).
const RequestIDHeader = "X-Request-Id"

func withRequestID(w http.ResponseWriter, r *http.Request) *http.Request {
	id := r.Header.Get(RequestIDHeader)
	if !validRequestID(id) {
		id = logging.NewRequestID()
	}
	w.Header().Set(RequestIDHeader, id)
	return r.WithContext(logging.WithRequestID(r.Context(), id))
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}
