package recall

import (
	"fmt"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
)

// Request is a recall request as clients send it (the body of POST
// /v1/agents/{agent}/recall). Times are RFC 3339.
type Request struct {
	Query        string `json:"query"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
	K            int    `json:"k,omitempty"`
	AsOf         string `json:"as_of,omitempty"`
	Since        string `json:"since,omitempty"`
	Until        string `json:"until,omitempty"`
	SessionID    string `json:"session_id,omitempty"` // only this session's memories
	Role         string `json:"role,omitempty"`       // only memories with this role
	Source       string `json:"source,omitempty"`     // only memories from this source
	Entity       string `json:"entity,omitempty"`     // only memories naming this entity
	Explain      bool   `json:"explain,omitempty"`    // attach each item's score parts
	// Session is SessionID's old name, accepted for one release.
	Session string `json:"session,omitempty"`
}

// Limits on a request.
const (
	MaxBudgetTokens = 200_000
	MaxK            = 1000
	MaxQueryBytes   = 4096
)

// RequestError is a request a client must fix.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &RequestError{Msg: fmt.Sprintf(format, args...)}
}

// Parse validates r and turns it into a Query.
func (r Request) Parse() (Query, error) {
	q := Query{Text: r.Query, BudgetTokens: r.BudgetTokens, K: r.K, Session: r.SessionID,
		Role: r.Role, Source: r.Source, Entity: r.Entity, Explain: r.Explain}
	switch {
	case r.Session != "" && r.SessionID != "" && r.Session != r.SessionID:
		return q, invalid("session_id %q and its old name session %q differ: send session_id alone", r.SessionID, r.Session)
	case len(r.Query) > MaxQueryBytes:
		return q, invalid("query is %d bytes; the limit is %d", len(r.Query), MaxQueryBytes)
	case r.BudgetTokens < 0 || r.BudgetTokens > MaxBudgetTokens:
		return q, invalid("budget_tokens must be from 1 to %d (or absent for the default)", MaxBudgetTokens)
	case r.K < 0 || r.K > MaxK:
		return q, invalid("k must be from 1 to %d (or absent for the default)", MaxK)
	case len(r.Role) > 256 || len(r.Source) > 256 || len(r.Entity) > 256:
		return q, invalid("role, source and entity are at most 256 bytes each")
	}
	if q.Session == "" {
		q.Session = r.Session
	}
	for _, f := range []struct {
		name, v string
		dst     *time.Time
		inYears bool // capture.CheckYear: an as_of of 0001-01-01 is the zero time, which is now
	}{{"as_of", r.AsOf, &q.AsOf, true}, {"since", r.Since, &q.Since, false}, {"until", r.Until, &q.Until, false}} {
		if f.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f.v)
		if err != nil {
			return q, invalid("%s: %q is not an RFC 3339 time such as 2026-02-01T14:30:00Z", f.name, f.v)
		}
		if f.inYears {
			if err := capture.CheckYear(f.name, t); err != nil {
				return q, invalid("%v", err)
			}
		}
		*f.dst = t
	}
	return q, nil
}
