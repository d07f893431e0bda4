// Package logging builds Dormouse's slog handlers: native journald records
// (levels as syslog priorities, every attribute a field such as AGENT=,
// REQUEST_ID= or RUN_ID=) when systemd connected stderr to the journal, and
// plain text on stderr otherwise. Request ids travel in the context.
package logging

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"strings"

	"github.com/coreos/go-systemd/v22/journal"
)

type requestIDKey struct{}

// WithRequestID returns ctx carrying a request id, which every record logged
// with that context gets as request_id (REQUEST_ID= in the journal).
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the request id in ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// NewRequestID returns 16 random hex digits.
func NewRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ParseLevel reads "debug", "info", "warn" or "error"; anything else is info.
func ParseLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}

// New returns the logger for a process with the given environment ("K=V"
// pairs): journald's native protocol when JOURNAL_STREAM is set (systemd
// connected stderr to the journal) and the journal socket answers, text on
// stderr otherwise.
func New(environ []string, stderr io.Writer, level string) *slog.Logger {
	l := ParseLevel(level)
	if getenv(environ, "JOURNAL_STREAM") != "" && journal.Enabled() {
		return slog.New(NewJournalHandler(journal.Send, stderr, l))
	}
	return Text(stderr, l)
}

// Text is the plain handler: key=value lines on w, with request ids.
func Text(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(contextHandler{slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})})
}

func getenv(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// contextHandler adds the context's request id to every record.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(as)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}
