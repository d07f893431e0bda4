package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/store"
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

// maxLabelBytes bounds the short string fields (session, role, type, source).
const maxLabelBytes = 256

// Prepare validates in and derives the stored fields. maxContent bounds the
// content in bytes; now is the default timestamp.
func Prepare(in Input, maxContent int, now time.Time) (store.Memory, error) {
	fail := func(field, format string, args ...any) (store.Memory, error) {
		return store.Memory{}, &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	content := strings.TrimSpace(in.Content)
	switch {
	case content == "":
		return fail("content", "is required and must not be blank")
	case len(in.Content) > maxContent:
		return fail("content", "is %d bytes; the limit is %d", len(in.Content), maxContent)
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
	}
	ts := now
	if in.Timestamp != "" {
		t, err := time.Parse(time.RFC3339Nano, in.Timestamp)
		if err != nil {
			return fail("timestamp", "%q is not an RFC 3339 time such as 2026-02-01T14:30:00Z", in.Timestamp)
		}
		if t.Year() < 1970 || t.Year() > 9999 {
			return fail("timestamp", "%q is out of range", in.Timestamp)
		}
		ts = t
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
	d := Extract(in.Content)
	importance := d.Importance
	if in.Importance != nil {
		v := *in.Importance
		if !(v >= 0 && v <= 1) {
			return fail("importance", "must be between 0 and 1, got %v", v)
		}
		importance = v
	}
	entities := make([]store.Entity, len(d.Entities))
	for i, e := range d.Entities {
		entities[i] = store.Entity{Text: e.Text, Type: e.Type}
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
		ContentHash:     ContentHash(in.Content),
		Summary:         d.Summary,
		Entities:        entities,
		Topics:          d.Topics,
	}, nil
}

// PrepareAll validates a batch: one bad memory rejects the whole batch, so
// nothing is written for a request that gets an error. Large batches are
// derived on every CPU: extraction costs as much as the insert itself.
func PrepareAll(ins []Input, maxContent int, now time.Time) ([]store.Memory, error) {
	out := make([]store.Memory, len(ins))
	errs := make([]error, len(ins))
	workers := min(runtime.GOMAXPROCS(0), len(ins)/parallelBatch)
	if workers <= 1 {
		for i, in := range ins {
			if out[i], errs[i] = Prepare(in, maxContent, now); errs[i] != nil {
				break
			}
		}
	} else {
		var wg sync.WaitGroup
		chunk := (len(ins) + workers - 1) / workers
		for lo := 0; lo < len(ins); lo += chunk {
			hi := min(lo+chunk, len(ins))
			wg.Go(func() {
				for i := lo; i < hi; i++ {
					if out[i], errs[i] = Prepare(ins[i], maxContent, now); errs[i] != nil {
						return
					}
				}
			})
		}
		wg.Wait()
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if ie, ok := err.(*InputError); ok && len(ins) > 1 {
			ie.Index, ie.batch = i, true
		}
		return nil, err
	}
	return out, nil
}

// parallelBatch is the batch size from which PrepareAll uses more than one
// goroutine per this many memories.
const parallelBatch = 64

// Ingest validates, derives and stores a batch in one transaction.
func Ingest(ctx context.Context, a *store.Agent, ins []Input, maxContent int, now time.Time) ([]store.Inserted, error) {
	mems, err := PrepareAll(ins, maxContent, now)
	if err != nil {
		return nil, err
	}
	return a.Insert(ctx, mems)
}
