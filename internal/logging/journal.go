package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coreos/go-systemd/v22/journal"
)

// Sender delivers one journal entry: journal.Send, or a test's recorder.
type Sender func(message string, priority journal.Priority, vars map[string]string) error

// Identifier is SYSLOG_IDENTIFIER= of every entry: `journalctl -t dormouse`.
const Identifier = "dormouse"

// JournalHandler writes each record as one native journal entry. MESSAGE is
// the message followed by the attributes as key=value (what `journalctl -u`
// shows); each attribute is also a field of its own, its key upper-cased
// with groups joined by "_" (agent → AGENT, llm.model → LLM_MODEL), so
// `journalctl AGENT=main` or `-o verbose` find them. The level becomes the
// syslog PRIORITY. An entry the journal refuses is written as text to
// fallback, never lost silently.
type JournalHandler struct {
	send     Sender
	fallback io.Writer
	level    slog.Leveler
	attrs    []field // from WithAttrs, already prefixed
	prefix   string  // open groups, "A_B_"
	text     string  // the WithAttrs attributes as key=value text
}

type field struct{ key, name, value string }

// NewJournalHandler returns a handler that sends through send.
func NewJournalHandler(send Sender, fallback io.Writer, level slog.Leveler) *JournalHandler {
	if level == nil {
		level = slog.LevelInfo
	}
	return &JournalHandler{send: send, fallback: fallback, level: level}
}

// Priority maps a slog level onto a syslog priority.
func Priority(l slog.Level) journal.Priority {
	switch {
	case l < slog.LevelInfo:
		return journal.PriDebug
	case l < slog.LevelWarn:
		return journal.PriInfo
	case l < slog.LevelError:
		return journal.PriWarning
	default:
		return journal.PriErr
	}
}

// FieldName turns an attribute key into a journal field name: upper case
// A-Z, 0-9 and "_", starting with a letter, at most 64 bytes. Names the
// journal or this handler set themselves get an ATTR_ prefix.
func FieldName(key string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(key) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	n := strings.TrimLeft(b.String(), "_0123456789")
	switch {
	case n == "":
		n = "ATTR"
	case reserved[n] || strings.HasPrefix(n, "CODE_") || strings.HasPrefix(n, "SYSLOG_"):
		n = "ATTR_" + n
	}
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

var reserved = map[string]bool{
	"MESSAGE": true, "MESSAGE_ID": true, "PRIORITY": true, "ERRNO": true,
	"INVOCATION_ID": true, "USER_INVOCATION_ID": true,
}

func (h *JournalHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *JournalHandler) Handle(ctx context.Context, r slog.Record) error {
	vars := map[string]string{"SYSLOG_IDENTIFIER": Identifier}
	var msg strings.Builder
	msg.WriteString(r.Message)
	msg.WriteString(h.text)
	add := func(f field) {
		vars[f.name] = f.value
		msg.WriteByte(' ')
		msg.WriteString(f.key)
		msg.WriteByte('=')
		msg.WriteString(quote(f.value))
	}
	for _, f := range h.attrs {
		vars[f.name] = f.value
	}
	r.Attrs(func(a slog.Attr) bool {
		for _, f := range flatten(h.prefix, a) {
			add(f)
		}
		return true
	})
	if id := RequestID(ctx); id != "" {
		add(field{key: "request_id", name: "REQUEST_ID", value: id})
	}
	if r.PC != 0 {
		fr, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		if fr.File != "" {
			vars["CODE_FILE"] = fr.File
			vars["CODE_LINE"] = strconv.Itoa(fr.Line)
			vars["CODE_FUNC"] = fr.Function
		}
	}
	if err := h.send(msg.String(), Priority(r.Level), vars); err != nil {
		if h.fallback != nil {
			fmt.Fprintf(h.fallback, "%s %s %s (journal: %v)\n", r.Time.Format(time.RFC3339), r.Level, msg.String(), err)
		}
		return err
	}
	return nil
}

func (h *JournalHandler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	c := *h
	c.attrs = slices.Clip(h.attrs) // appending never writes into the parent's array
	var text strings.Builder
	text.WriteString(h.text)
	for _, a := range as {
		for _, f := range flatten(h.prefix, a) {
			c.attrs = append(c.attrs, f)
			text.WriteByte(' ')
			text.WriteString(f.key)
			text.WriteByte('=')
			text.WriteString(quote(f.value))
		}
	}
	c.text = text.String()
	return &c
}

func (h *JournalHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

// flatten resolves a and returns its fields, groups expanded.
func flatten(prefix string, a slog.Attr) []field {
	v := a.Value.Resolve()
	if a.Key == "" && v.Kind() != slog.KindGroup {
		return nil
	}
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		var out []field
		for _, g := range v.Group() {
			out = append(out, flatten(p, g)...)
		}
		return out
	}
	key := prefix + a.Key
	var s string
	switch v.Kind() {
	case slog.KindTime:
		s = v.Time().Format(time.RFC3339Nano)
	case slog.KindDuration:
		s = v.Duration().String()
	default:
		s = v.String()
	}
	return []field{{key: key, name: FieldName(key), value: s}}
}

// quote quotes a value for the MESSAGE text when it needs it.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \"=\n\t") {
		return strconv.Quote(s)
	}
	return s
}
