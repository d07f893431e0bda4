package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/dormouse-dev/dormouse/internal/when"
)

// Input is a memory as clients send it (HTTP, CLI, later MCP and files).
type Input struct {
	Content         string          `json:"content"`
	SessionID       string          `json:"session_id,omitempty"`
	Role            string          `json:"role,omitempty"`
	InteractionType string          `json:"interaction_type,omitempty"`
	Context         json.RawMessage `json:"context,omitempty"`
	Importance      *float64        `json:"importance,omitempty"`
	Source          string          `json:"source,omitempty"`
	Timestamp       string          `json:"timestamp,omitempty"` // RFC 3339; default now
}

// InputError says which memory of a request and which field is wrong.
type InputError struct {
	Index int // position in a batch, 0 for a single memory
	Field string
	Msg   string
	batch bool
}

func (e *InputError) Error() string {
	if e.batch {
		return fmt.Sprintf("memories[%d].%s: %s", e.Index, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Msg)
}

// Limits are what validation holds every memory to.
type Limits struct {
	MaxContent    int           // bytes of content
	MaxFutureSkew time.Duration // how far ahead of the clock a timestamp may be; 0: DefaultMaxFutureSkew
}

// DefaultMaxFutureSkew is capture.max_future_skew's default: a day covers clocks that disagree
// and time zones written wrongly, and not much more.
const DefaultMaxFutureSkew = 24 * time.Hour

// CheckYear refuses t (field names it) outside the years 1970 to 9999 in UTC, where a memory's
// time is stored. An as_of is held to them too: before them it could only match nothing, and
// 0001-01-01T00:00:00Z, Go's zero time, would be taken for no as_of at all, which is now.
func CheckYear(field string, t time.Time) error {
	if y := t.UTC().Year(); y < 1970 || y > 9999 {
		return &InputError{Field: field, Msg: fmt.Sprintf("%s is in year %d in UTC, where it is stored; want a time from 1970 to 9999",
			t.Format(time.RFC3339Nano), y)}
	}
	return nil
}

// CheckTime refuses t as a memory's time (field names it in the error) when, in UTC as it is
// stored, it falls outside the years 1970 to 9999, or lies further ahead of now than
// MaxFutureSkew: recall never offers what is dated after its as_of, so a memory dated far ahead
// would be stored and never recalled. A clock that is not plausible (when.CheckClock) is no
// measure of ahead: the memory's own time is kept, and recalled once the clock is set.
func (l Limits) CheckTime(field string, t, now time.Time) error {
	fail := func(format string, args ...any) error {
		return &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if err := CheckYear(field, t); err != nil {
		return err
	}
	u := t.UTC()
	skew := l.MaxFutureSkew
	if skew <= 0 {
		skew = DefaultMaxFutureSkew
	}
	if ahead := u.Sub(now); ahead > skew && when.CheckClock(now) == nil {
		return fail("%s is %s ahead of this device's clock (%s), beyond capture.max_future_skew (%s), "+
			"and a memory dated after now is never recalled. If the clock is wrong (a Raspberry Pi has no "+
			"battery clock and starts in 1970 until NTP sets it: see timedatectl status), set it and send "+
			"again; to store memories dated further ahead, raise capture.max_future_skew",
			t.Format(time.RFC3339Nano), config.Duration(ahead.Round(time.Minute)), now.UTC().Format(time.RFC3339),
			config.Duration(skew))
	}
	return nil
}

// maxLabelBytes bounds the short string fields (session, role, type, source).
const maxLabelBytes = 256

// validate checks in and fills every field that needs no derivation. It is
// cheap; derive is where the time goes.
func validate(in Input, lim Limits, now time.Time) (store.Memory, error) {
	fail := func(field, format string, args ...any) (store.Memory, error) {
		return store.Memory{}, &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	content := strings.TrimSpace(in.Content)
	switch {
	case content == "":
		return fail("content", "is required and must not be blank")
	case len(in.Content) > lim.MaxContent:
		return fail("content", "is %d bytes; the limit is %d", len(in.Content), lim.MaxContent)
	case !utf8.ValidString(in.Content):
		return fail("content", "is not valid UTF-8")
	case strings.ContainsRune(in.Content, 0):
		return fail("content", "contains a NUL character")
	}
	for _, f := range []struct{ name, v string }{
		{"session_id", in.SessionID}, {"role", in.Role},
		{"interaction_type", in.InteractionType}, {"source", in.Source},
	} {
		if len(f.v) > maxLabelBytes {
			return fail(f.name, "is %d bytes; the limit is %d", len(f.v), maxLabelBytes)
		}
		if !utf8.ValidString(f.v) || strings.ContainsRune(f.v, 0) {
			return fail(f.name, "must be valid UTF-8 without NUL characters")
		}
		if i := strings.IndexFunc(f.v, text.IsLineControl); i >= 0 {
			r, _ := utf8.DecodeRuneInString(f.v[i:])
			return fail(f.name, "contains the control character %U at byte %d; it is one line of plain text "+
				"(no newlines, tabs, line separators or bidirectional overrides)", r, i)
		}
	}
	ts := now
	if in.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, in.Timestamp)
		if err != nil {
			return fail("timestamp", "%q is not an RFC 3339 time such as 2026-02-01T14:30:00Z", in.Timestamp)
		}
		if err := lim.CheckTime("timestamp", t, now); err != nil {
			return store.Memory{}, err
		}
		ts = t
	} else if err := when.CheckClock(now); err != nil {
		// An undated memory takes the clock's time, never one from 1970.
		return store.Memory{}, fmt.Errorf("a memory without a timestamp is dated by this device's clock: "+
			"send its timestamp, or wait until the clock is set: %w", err)
	}
	var ctxJSON json.RawMessage
	if c := bytes.TrimSpace(in.Context); len(c) > 0 && !bytes.Equal(c, []byte("null")) {
		if c[0] != '{' || !json.Valid(c) {
			return fail("context", "must be a JSON object")
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, c); err != nil {
			return fail("context", "must be a JSON object")
		}
		ctxJSON = buf.Bytes()
	}
	var importance float64
	if in.Importance != nil {
		v := *in.Importance
		if !(v >= 0 && v <= 1) {
			return fail("importance", "must be between 0 and 1, got %v", v)
		}
		importance = v
	}
	return store.Memory{
		SessionID:       in.SessionID,
		Timestamp:       ts.UTC(),
		InteractionType: in.InteractionType,
		Role:            in.Role,
		Content:         in.Content,
		Context:         ctxJSON,
		Importance:      importance,
		Source:          in.Source,
	}, nil
}

// derive adds what the offline extractor finds in m's content; the
// importance only when the client gave none.
func derive(m *store.Memory, explicitImportance bool) {
	d := Extract(m.Content)
	if !explicitImportance {
		m.Importance = d.Importance
	}
	m.Entities = make([]store.Entity, len(d.Entities))
	for i, e := range d.Entities {
		m.Entities[i] = store.Entity{Text: e.Text, Type: e.Type}
	}
	m.ContentHash = ContentHash(m.Content)
	m.Summary = d.Summary
	m.Topics = d.Topics
}

// Batch is a validated request: nothing about it can fail any more except
// storage itself.
type Batch struct {
	ins  []Input
	mems []store.Memory // validated, not yet derived
}

// Validate checks every memory of a request, cheaply, before anything is
// derived or stored: one bad memory rejects the whole request.
func Validate(ins []Input, lim Limits, now time.Time) (*Batch, error) {
	b := &Batch{ins: ins, mems: make([]store.Memory, len(ins))}
	for i, in := range ins {
		m, err := validate(in, lim, now)
		if err != nil {
			if ie, ok := err.(*InputError); ok && len(ins) > 1 {
				ie.Index, ie.batch = i, true
			}
			return nil, err
		}
		b.mems[i] = m
	}
	return b, nil
}

// Store derives the batch's fields and stores it in one transaction: every
// memory or none. A large batch is derived chunk by chunk while the store
// inserts the chunks already derived, so extraction and SQLite run on two
// cores at once.
func (b *Batch) Store(ctx context.Context, a *store.Agent) ([]store.Inserted, error) {
	if len(b.mems) < streamFrom {
		return a.Insert(ctx, b.derive(0, len(b.mems)))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the producer if the store gives up first
	chunks := make(chan []store.Memory, 2)
	go func() {
		defer close(chunks)
		for lo := 0; lo < len(b.mems); lo += streamChunk {
			chunk := b.derive(lo, min(lo+streamChunk, len(b.mems)))
			select {
			case chunks <- chunk:
			case <-ctx.Done():
				return
			}
		}
	}()
	return a.InsertChunks(ctx, chunks)
}

// derive fills the derived fields of memories lo to hi and returns them.
func (b *Batch) derive(lo, hi int) []store.Memory {
	for i := lo; i < hi; i++ {
		derive(&b.mems[i], b.ins[i].Importance != nil)
	}
	return b.mems[lo:hi]
}

// Memories derives the whole batch and returns it, for callers that store
// it themselves (the raw-insert benchmark).
func (b *Batch) Memories() []store.Memory { return b.derive(0, len(b.mems)) }

// Batches from streamFrom memories are derived while they are inserted, in
// chunks of streamChunk.
const (
	streamFrom  = 256
	streamChunk = 64
)

// Ingest validates, derives and stores a batch in one transaction.
func Ingest(ctx context.Context, a *store.Agent, ins []Input, lim Limits, now time.Time) ([]store.Inserted, error) {
	b, err := Validate(ins, lim, now)
	if err != nil {
		return nil, err
	}
	return b.Store(ctx, a)
}
