package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/wire"
)

// RequestError is a client mistake found while decoding a request: a
// refusal, answered as the gate's table answers every other.
type RequestError = gate.Refusal

func badRequest(code, format string, args ...any) *RequestError {
	return &RequestError{Status: http.StatusBadRequest, Code: code, Msg: fmt.Sprintf(format, args...)}
}

// errNotUTF8 is a body decodeText refused: it is not UTF-8.
var errNotUTF8 = errors.New("the body is not UTF-8")

// decodeText is decodeJSON for a body whose text is stored as sent: encoding/json would make
// bytes that are not UTF-8 U+FFFD, and store a guess, so such a body is errNotUTF8 instead.
func decodeText(r io.Reader, v any) error {
	body, err := io.ReadAll(r)
	if err != nil {
		return jsonError(err)
	}
	if !utf8.Valid(body) {
		return errNotUTF8
	}
	return decodeJSON(bytes.NewReader(body), v)
}

// decodeJSON reads exactly one JSON value into v, refusing unknown fields and
// trailing data.
func decodeJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return jsonError(err)
		}
		return badRequest("invalid_json", "the body must hold exactly one JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return &RequestError{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
			Msg: fmt.Sprintf("the body is larger than %d bytes", mbe.Limit)}
	case errors.Is(err, io.EOF):
		return badRequest("invalid_json", "the body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("invalid_json", "the JSON body ends too early")
	case errors.As(err, &se):
		return badRequest("invalid_json", "malformed JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the body"
		}
		return badRequest("invalid_json", "%s must be %s, not JSON %s", field, te.Type, te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return badRequest("unknown_field", "%s", strings.TrimPrefix(err.Error(), "json: "))
	default:
		return badRequest("invalid_json", "invalid JSON body: %v", err)
	}
}

// memoriesRequest is one memory object or {"memories":[...]}.
type memoriesRequest struct {
	capture.Input
	Memories []capture.Input `json:"memories"`
}

// DecodeMemories parses a POST /memories body into inputs. It checks shape
// and batch size only; field validation is capture's.
func DecodeMemories(r io.Reader, maxBatch int) ([]capture.Input, error) {
	var req memoriesRequest
	if err := decodeJSON(r, &req); err != nil {
		return nil, err
	}
	if req.Memories == nil {
		return []capture.Input{req.Input}, nil
	}
	single := req.Input
	if single.Content != "" || single.SessionID != "" || single.Role != "" || single.InteractionType != "" ||
		single.Context != nil || single.Importance != nil || single.Source != "" || single.Timestamp != "" {
		return nil, badRequest("invalid_request", `send either one memory object or {"memories":[...]}, not both`)
	}
	switch n := len(req.Memories); {
	case n == 0:
		return nil, badRequest("invalid_request", "memories is empty")
	case n > maxBatch:
		return nil, &RequestError{Status: http.StatusRequestEntityTooLarge, Code: "batch_too_large",
			Msg: fmt.Sprintf("the batch has %d memories; the limit is %d", n, maxBatch)}
	}
	return req.Memories, nil
}

// requestError answers err with the status the gate gives its kind (the
// page's too); what it does not know is logged and answered without its
// details.
func (s *Server) requestError(w http.ResponseWriter, r *http.Request, err error) {
	ref := gate.Of(err)
	s.logRefusal(r, ref, err)
	writeError(w, ref.Status, ref.Code, ref.Msg)
}

// logRefusal logs what an operator must see: a full disk, an error no
// rule names.
func (s *Server) logRefusal(r *http.Request, ref *gate.Refusal, err error) {
	switch {
	case ref.Code == "storage_full":
		if ok, held := s.fullLog.Allow(time.Now()); ok {
			s.log.ErrorContext(r.Context(), "storage full", "method", r.Method, "path", r.URL.Path, "err", err, "refused_unlogged", held)
		}
	case ref.Unexpected():
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
}

type postMemoriesResponse struct {
	IDs     []int64           `json:"ids"`
	Results []client.Inserted `json:"results"`
}

// postMemories decodes and validates the whole request before it opens (and
// perhaps creates) the agent, so a bad request writes nothing at all.
func (s *Server) postMemories(w http.ResponseWriter, r *http.Request) {
	name, create, ok := s.checkAgent(w, r, true)
	if !ok {
		return
	}
	ins, err := DecodeMemories(r.Body, s.opts.MaxBatch)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	batch, err := capture.Validate(ins, s.limits(), s.opts.Now())
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	a, ok := s.acquire(w, r, name, create)
	if !ok {
		return
	}
	defer s.store.Release(a)
	res, err := batch.Store(r.Context(), a)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	ids := make([]int64, len(res))
	for i, x := range res {
		ids[i] = x.ID
		if !x.Duplicate {
			s.met.ingested.Inc()
		}
	}
	if s.opts.OnWrite != nil {
		s.opts.OnWrite(name)
	}
	writeJSON(w, http.StatusCreated, postMemoriesResponse{IDs: ids, Results: wire.Inserted(res)})
}

func parseTimeParam(q map[string][]string, key string) (time.Time, error) {
	v := ""
	if vs := q[key]; len(vs) > 0 {
		v = vs[0]
	}
	return parseTime(key, v)
}

// parseAsOf reads ?as_of=, in the years a memory may have (capture.CheckYear): zero is now.
func parseAsOf(q url.Values) (time.Time, error) {
	t, err := parseTimeParam(q, "as_of")
	if err != nil || q.Get("as_of") == "" {
		return t, err
	}
	if err := capture.CheckYear("as_of", t); err != nil {
		return time.Time{}, badRequest("invalid_parameter", "%v", err)
	}
	return t, nil
}

func parseTime(key, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, badRequest("invalid_parameter", "%s: %q is not an RFC 3339 time such as 2026-02-01T14:30:00Z", key, v)
	}
	return t, nil
}

func parseIntParam(q map[string][]string, key string, def, lo, hi int) (int, error) {
	vs := q[key]
	if len(vs) == 0 || vs[0] == "" {
		return def, nil
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil || n < lo || n > hi {
		return 0, badRequest("invalid_parameter", "%s must be an integer from %d to %d, got %q", key, lo, hi, vs[0])
	}
	return n, nil
}

func (s *Server) listMemories(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q := r.URL.Query()
	since, err := parseTimeParam(q, "since")
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	until, err := parseTimeParam(q, "until")
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	limit, err := parseIntParam(q, "limit", 50, 1, 1000)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	session, err := sessionParam(q)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	mems, next, err := a.List(r.Context(), store.ListOptions{
		Since: since, Until: until, Session: session, Limit: limit, Cursor: q.Get("cursor"),
	})
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	body := map[string]any{"memories": wire.Memories(nonNilSlice(mems))}
	if next != "" {
		body["next_cursor"] = next
	}
	writeJSON(w, http.StatusOK, body)
}

// sessionParam is ?session_id=, or its old name ?session= (taken for one release).
func sessionParam(q url.Values) (string, error) {
	id, old := q.Get("session_id"), q.Get("session")
	if id != "" && old != "" && id != old {
		return "", badRequest("invalid_parameter", "session_id %q and its old name session %q differ: send session_id alone", id, old)
	}
	if id == "" {
		return old, nil
	}
	return id, nil
}

func (s *Server) getMemory(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	getByID(s, w, r, "memory", a.Get, wire.Memory)
}

func (s *Server) deleteMemory(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	deleteByID(s, w, r, "memory", a.Delete, "deleted")
}

// recallQuery reads the body as a recall request; a bad one is answered
// here, and ok is false.
func (s *Server) recallQuery(w http.ResponseWriter, r *http.Request) (q recall.Query, ok bool) {
	var req recall.Request
	if err := decodeJSON(r.Body, &req); err != nil {
		s.requestError(w, r, err)
		return q, false
	}
	q, err := req.Parse()
	if err != nil {
		s.requestError(w, r, err)
		return q, false
	}
	return q, true
}

func (s *Server) postRecall(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q, ok := s.recallQuery(w, r)
	if !ok {
		return
	}
	start := time.Now()
	g, err := s.granted(r, a)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	defer g.Release()
	res, err := s.recall.RecallFrom(r.Context(), g.Sources, q)
	s.met.recall.Observe(time.Since(start).Seconds())
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	res.Note = gate.JoinNotes(res.Note, g.Note)
	writeJSON(w, http.StatusOK, res)
}

// granted opens the agents a's reader reads that the request's token
// covers (gate.Reads.Open); the caller releases them.
func (s *Server) granted(r *http.Request, a *store.Agent) (*gate.Granted, error) {
	tok, _ := auth.FromContext(r.Context())
	return s.opts.Reads.Open(r.Context(), s.store, tok, a)
}

func (s *Server) listFacts(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q := r.URL.Query()
	asOf, err := parseAsOf(q)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	limit, err := parseIntParam(q, "limit", 1000, 1, 10000)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	history := false
	if v := q.Get("history"); v != "" {
		if history, err = strconv.ParseBool(v); err != nil {
			s.requestError(w, r, badRequest("invalid_parameter", "history must be true or false, got %q", v))
			return
		}
	}
	facts, err := a.Facts(r.Context(), store.FactFilter{Entity: q.Get("entity"), History: history, AsOf: asOf, Limit: limit})
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"facts": wire.Facts(nonNilSlice(facts))})
}

// rejectFact is how a user deletes a fact: it is kept as rejected, so the
// same claim arriving again does not come back as current.
func (s *Server) rejectFact(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	deleteByID(s, w, r, "fact", a.RejectFact, "rejected")
}

// postConsolidate consolidates on request: body {"date"}, {"since"} or
// nothing (every past day with unconsolidated memories), with "dry_run" for
// the plan alone. It answers {"agent","runs"[,"plan"]}.
func (s *Server) postConsolidate(w http.ResponseWriter, r *http.Request) {
	name, _, ok := s.checkAgent(w, r, false)
	if !ok {
		return
	}
	if s.opts.Consolidate == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", "this server does not consolidate")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.requestError(w, r, jsonError(err))
		return
	}
	var req consolidate.Request
	if len(bytes.TrimSpace(body)) > 0 {
		if err := decodeJSON(bytes.NewReader(body), &req); err != nil {
			s.requestError(w, r, err)
			return
		}
	}
	res, err := s.opts.Consolidate.Do(r.Context(), name, req)
	if err != nil {
		ref := gate.OfConsolidation(err)
		if ref.Code == "consolidation_failed" { // the run row holds the same message; the memories stay unconsolidated
			s.log.WarnContext(r.Context(), "consolidation failed", "agent", name, "err", err)
		}
		s.logRefusal(r, ref, err)
		writeError(w, ref.Status, ref.Code, ref.Msg)
		return
	}
	writeJSON(w, http.StatusOK, wire.ConsolidateResult(res))
}

func (s *Server) listConsolidations(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	q := r.URL.Query()
	for _, k := range []string{"since", "until"} {
		if v := q.Get(k); v != "" {
			if _, err := time.Parse(time.DateOnly, v); err != nil {
				s.requestError(w, r, badRequest("invalid_parameter", "%s must be a date such as 2026-02-01, got %q", k, v))
				return
			}
		}
	}
	limit, err := parseIntParam(q, "limit", 100, 1, 1000)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	cs, err := a.Consolidations(r.Context(), q.Get("since"), q.Get("until"), limit)
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"consolidations": wire.Consolidations(nonNilSlice(cs))})
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request, a *store.Agent) {
	st, err := a.Stats(r.Context())
	if err != nil {
		s.requestError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.Stats(st))
}
