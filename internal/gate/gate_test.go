package gate

import (
	"context"
	"errors"
	"fmt"
	"github.com/dormouse-dev/dormouse/internal/when"
	"net/http"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// TestOfEveryKind: each error kind a service names is answered with its
// status and code, also wrapped as the services wrap them.
func TestOfEveryKind(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   string
	}{
		{&store.NameError{Name: "Bad"}, 400, "invalid_agent"},
		{&recall.RequestError{Msg: "k must be from 1"}, 400, "invalid_request"},
		{&consolidate.RequestError{Msg: "date must be a date"}, 400, "invalid_request"},
		{store.ErrShareToSelf, 400, "invalid_request"},
		{store.ErrBadCursor, 400, "invalid_cursor"},
		{store.ErrNoAgent, 404, "unknown_agent"},
		{store.ErrNotFound, 404, "not_found"},
		{store.ErrDeleting, 409, "agent_deleting"},
		{store.ErrRejected, 409, "rejected_claim"},
		{store.ErrNotCurrent, 409, "not_current"},
		{store.ErrProfileLineNotCurrent, 409, "not_current"},
		{consolidate.ErrBusy, 409, "busy"},
		{consolidate.ErrDayChanged, 409, "day_changed"},
		{store.ErrUnchanged, 422, "unchanged"},
		{&store.CorrectionError{Msg: "the statement is empty"}, 422, "invalid_correction"},
		{&store.ProfileLineError{Msg: "the text is empty"}, 422, "invalid_profile_text"},
		{&capture.InputError{Index: 0, Msg: "content must not be blank"}, 422, "invalid_memory"},
		{&watch.InputError{Msg: "a .xyz file is not a format Dormouse reads"}, 422, "invalid_file"},
		{fmt.Errorf("photo.jpg: %w", files.ErrDescribe), 502, "model_unavailable"},
		{&backup.FailedError{Err: errors.New("disk gone")}, 500, "backup_failed"},
		{llm.ErrRefused, 502, "llm_refused"},
		{store.ErrFull, 507, "storage_full"},
		{store.ErrUnavailable, 503, "agent_unavailable"},
		{store.ErrStoreClosed, 503, "unavailable"},
		{store.ErrClosed, 503, "unavailable"},
		{when.ErrImplausibleClock, 503, "clock_implausible"},
		{llm.ErrBudget, 503, "llm_budget"},
		{llm.ErrUnavailable, 503, "llm_unavailable"},
		{context.Canceled, 503, "timeout"},
		{context.DeadlineExceeded, 503, "timeout"},
		{&Refusal{413, "body_too_large", "the body is larger than 1 bytes"}, 413, "body_too_large"},
		{errors.New("disk I/O error"), 500, "internal"},
	} {
		for _, err := range []error{tc.err, fmt.Errorf("agent %q: %w", "main", tc.err)} {
			got := Of(err)
			if got.Status != tc.status || got.Code != tc.code {
				t.Errorf("Of(%v) = %d %s, want %d %s", err, got.Status, got.Code, tc.status, tc.code)
			}
		}
	}
}

// TestUnexpectedErrorsSayNothing: an error no rule names is a 500 whose
// message gives nothing of it away; in a consolidation it is the run's
// failure, its message kept (the run's record holds it too).
func TestUnexpectedErrorsSayNothing(t *testing.T) {
	err := errors.New("open /var/lib/dormouse/main.db: permission denied")
	if got := Of(err); !got.Unexpected() || strings.Contains(got.Msg, "/var/lib") {
		t.Errorf("Of(%v) = %+v, want an unexpected 500 without the path", err, got)
	}
	if got := OfConsolidation(err); got.Status != 500 || got.Code != "consolidation_failed" || got.Msg != err.Error() {
		t.Errorf("OfConsolidation(%v) = %+v, want 500 consolidation_failed with its message", err, got)
	}
	if got := OfConsolidation(consolidate.ErrBusy); got.Code != "busy" {
		t.Errorf("OfConsolidation(ErrBusy) = %+v, want busy", got)
	}
}

func TestAgentsCheck(t *testing.T) {
	open, fixed := Agents{AutoCreate: true}, Agents{Fixed: []string{"main"}}
	grants := NewReads(map[string][]string{"homebot": {"household"}})
	reader := Agents{AutoCreate: true, Reads: grants}
	fixedReader := Agents{Fixed: []string{"main"}, Reads: grants}
	for _, tc := range []struct {
		agents Agents
		name   string
		write  bool
		create bool
		status int // 0: allowed
	}{
		{open, "main", false, false, 0},
		{open, "main", true, true, 0},
		{open, "Bad Name", true, false, http.StatusBadRequest},
		{open, "", false, false, http.StatusBadRequest},
		{fixed, "main", false, true, 0}, // a listed agent always exists
		{fixed, "ghost", true, false, http.StatusNotFound},
		{fixed, "ghost", false, false, http.StatusNotFound},
		{reader, "homebot", false, true, 0}, // a reader with grants exists by the configuration
		{reader, "ghost", false, false, 0},
		{fixedReader, "homebot", false, false, http.StatusNotFound}, // off the fixed list, grants or not
	} {
		create, err := tc.agents.Check(tc.name, tc.write)
		status := 0
		if err != nil {
			status = Of(err).Status
		}
		if create != tc.create || status != tc.status {
			t.Errorf("%+v.Check(%q, write %v) = %v, %v; want %v, status %d", tc.agents, tc.name, tc.write, create, err,
				tc.create, tc.status)
		}
	}
}

func TestScope(t *testing.T) {
	k, err := auth.New([]auth.Rule{
		{Name: "reader", SHA256: auth.Hash("r"), Agents: []string{"main"}},
		{Name: "writer", SHA256: auth.Hash("w"), Agents: []string{"main"}, Write: true},
		{Name: "admin", SHA256: auth.Hash("a"), Agents: []string{"*"}, Write: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	grant := func(tok string) *auth.Grant {
		g, err := k.Lookup(tok)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for _, tc := range []struct {
		g     *auth.Grant
		agent string
		write bool
		ok    bool
	}{
		{nil, "main", true, true}, // no tokens
		{grant("r"), "main", false, true},
		{grant("r"), "main", true, false},
		{grant("r"), "other", false, false},
		{grant("w"), "main", true, true},
		{grant("w"), "other", true, false},
		{grant("w"), "", false, false}, // every agent
		{grant("a"), "", true, true},
	} {
		err := Scope(tc.g, tc.agent, tc.write)
		if (err == nil) != tc.ok || err != nil && Of(err).Status != http.StatusForbidden {
			t.Errorf("Scope(%v, %q, write %v) = %v; want allowed %v, else 403", tc.g, tc.agent, tc.write, err, tc.ok)
		}
	}
}
