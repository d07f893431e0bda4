// Package gate is what every door into the agents checks, and how it
// answers a refusal: the HTTP API (internal/server), the memory-bank page
// (internal/web) and, through the API in-process, MCP. One copy of each
// rule, so the doors cannot drift apart: the agent's name and the server's
// agent list, the token's scope, and the status each error kind is
// answered with.
package gate

import (
	"context"
	"errors"
	"github.com/dormouse-dev/dormouse/internal/when"
	"net/http"
	"slices"
	"strconv"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// Refusal is a request refused: the status, the API's error code
// ({"error":{"code"}}) and a message for the person or program that sent it.
type Refusal struct {
	Status int
	Code   string
	Msg    string
}

func (r *Refusal) Error() string { return r.Msg }

// Unexpected reports whether the refusal is an error no rule names (a
// 500 "internal"): the door logs the error, which the message leaves out.
func (r *Refusal) Unexpected() bool { return r.Code == "internal" }

// Agents are the server's rules of which agents exist: any valid name, made
// on its first write (api.auto_create_agents), or only those of a fixed
// list (api.agents), which always exist. A reader with read grants
// (agents.<reader>.reads) exists by the configuration too: a read may make
// it where a write could, so one that only reads others (a home bot
// reading household) answers before it has stored anything.
type Agents struct {
	AutoCreate bool
	Fixed      []string
	Reads      *Reads
}

// Check refuses an invalid name (400) and, with a fixed list, a name not
// on it (404). create says whether the request may create the agent: one of
// the fixed list always, any other when AutoCreate and the request writes
// or the agent has read grants.
func (a Agents) Check(name string, write bool) (create bool, err error) {
	if err := store.ValidateAgentName(name); err != nil {
		return false, &Refusal{http.StatusBadRequest, "invalid_agent", err.Error()}
	}
	listed := slices.Contains(a.Fixed, name)
	if !a.AutoCreate && !listed {
		return false, &Refusal{http.StatusNotFound, "unknown_agent",
			"agent " + strconv.Quote(name) + " is not in this server's agent list (api.agents)"}
	}
	return listed || a.AutoCreate && (write || len(a.Reads.Of(name)) > 0), nil
}

// Scope refuses (403) a grant that may not read agent, or change it when
// write; agent "" is every agent (a request that spans them). A nil grant
// is a server without tokens: everything passes.
func Scope(g *auth.Grant, agent string, write bool) error {
	if g == nil {
		return nil
	}
	what := "agent " + strconv.Quote(agent)
	ok := g.Allows(agent, write)
	if agent == "" {
		what, ok = "every agent", g.AllowsAll(write)
	}
	if ok {
		return nil
	}
	verb := "read"
	if write {
		verb = "write"
	}
	return &Refusal{http.StatusForbidden, "forbidden", "token " + strconv.Quote(g.Name) + " may not " + verb + " " + what}
}

// Unauthorized is the refusal of a request without a token the keyring
// knows, err saying which (auth.ErrNoToken or an unknown one).
func Unauthorized(err error) *Refusal {
	return &Refusal{http.StatusUnauthorized, "unauthorized", err.Error()}
}

// Of is the refusal an error from a service answers with: a Refusal as it
// is, each error kind the store, capture, recall, consolidation, models,
// file pipeline and backups name as its status, anything else a 500
// "internal" whose message gives nothing away.
func Of(err error) *Refusal {
	if ref := known(err); ref != nil {
		return ref
	}
	return &Refusal{http.StatusInternalServerError, "internal", "internal error; see the server log"}
}

// OfConsolidation is Of for a consolidation run: a failure no rule names is
// the run's own (500 "consolidation_failed", its message kept: the run's
// record holds it too), not an unexpected one.
func OfConsolidation(err error) *Refusal {
	if ref := known(err); ref != nil {
		return ref
	}
	return &Refusal{http.StatusInternalServerError, "consolidation_failed", err.Error()}
}

// known is the one table of error kinds and statuses, or nil.
func known(err error) *Refusal {
	var ref *Refusal
	if errors.As(err, &ref) {
		return ref
	}
	for _, k := range table {
		if k.is(err) {
			msg := k.msg
			if msg == "" {
				msg = err.Error()
			}
			return &Refusal{k.status, k.code, msg}
		}
	}
	return nil
}

type kind struct {
	is     func(error) bool
	status int
	code   string
	msg    string // "": the error's own
}

func is(target error) func(error) bool { return func(err error) bool { return errors.Is(err, target) } }

func as[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// table is tried in order: the first kind that matches answers.
var table = []kind{
	{as[*store.NameError], http.StatusBadRequest, "invalid_agent", ""},
	{as[*recall.RequestError], http.StatusBadRequest, "invalid_request", ""},
	{as[*consolidate.RequestError], http.StatusBadRequest, "invalid_request", ""},
	{is(store.ErrShareToSelf), http.StatusBadRequest, "invalid_request", ""},
	{is(store.ErrBadCursor), http.StatusBadRequest, "invalid_cursor", "cursor is not one this server returned"},
	{is(store.ErrNoAgent), http.StatusNotFound, "unknown_agent", ""},
	{is(store.ErrNotFound), http.StatusNotFound, "not_found", ""},
	{is(store.ErrDeleting), http.StatusConflict, "agent_deleting", ""},
	{is(store.ErrRejected), http.StatusConflict, "rejected_claim",
		"that claim was rejected before, so it cannot become current: reword it, or correct to another value"},
	{is(store.ErrNotCurrent), http.StatusConflict, "not_current", store.ErrNotCurrent.Error()},
	{is(store.ErrProfileLineNotCurrent), http.StatusConflict, "not_current", ""},
	{is(consolidate.ErrBusy), http.StatusConflict, "busy", ""},
	{is(consolidate.ErrDayChanged), http.StatusConflict, "day_changed", ""},
	{is(store.ErrUnchanged), http.StatusUnprocessableEntity, "unchanged", ""},
	{as[*store.CorrectionError], http.StatusUnprocessableEntity, "invalid_correction", ""},
	{as[*store.ProfileLineError], http.StatusUnprocessableEntity, "invalid_profile_text", ""},
	{as[*capture.InputError], http.StatusUnprocessableEntity, "invalid_memory", ""},
	{watch.IsInputError, http.StatusUnprocessableEntity, "invalid_file", ""},
	{as[*backup.FailedError], http.StatusInternalServerError, "backup_failed", ""},
	{is(llm.ErrRefused), http.StatusBadGateway, "llm_refused", ""},
	{watch.IsDescribeError, http.StatusBadGateway, "model_unavailable", ""},
	{is(store.ErrFull), http.StatusInsufficientStorage, "storage_full",
		"the disk or the agent's size limit is full: nothing of this request was stored"},
	{is(store.ErrUnavailable), http.StatusServiceUnavailable, "agent_unavailable", ""},
	{is(store.ErrStoreClosed), http.StatusServiceUnavailable, "unavailable", "the server is shutting down"},
	{is(store.ErrClosed), http.StatusServiceUnavailable, "unavailable", "the server is shutting down"},
	{is(when.ErrImplausibleClock), http.StatusServiceUnavailable, "clock_implausible", ""},
	{is(llm.ErrBudget), http.StatusServiceUnavailable, "llm_budget", ""},
	{is(llm.ErrUnavailable), http.StatusServiceUnavailable, "llm_unavailable", ""},
	{is(context.Canceled), http.StatusServiceUnavailable, "timeout", "the request was cancelled or timed out"},
	{is(context.DeadlineExceeded), http.StatusServiceUnavailable, "timeout", "the request was cancelled or timed out"},
}
