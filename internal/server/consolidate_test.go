package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestConsolidateEndToEnd(t *testing.T) {
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC, DedupWindow: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	eng := &consolidate.Engine{Store: st, Consolidator: consolidate.Offline{}, Location: time.UTC,
		Now: func() time.Time { return now }}
	writes := 0
	srv := New(st, &recall.Engine{}, Options{
		AutoCreate: true, Now: func() time.Time { return now }, Consolidate: eng, OnWrite: func(string) { writes++ },
	})
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	f := &fixture{t: t, url: ts.URL, store: st}

	if code := f.post("/v1/agents/main/memories", `{"memories":[
		{"content":"Alice's role is engineer.","timestamp":"2026-02-08T09:00:00Z"},
		{"content":"Bob fixed the login timeout on the Atlas proxy.","timestamp":"2026-02-09T09:00:00Z"},
		{"content":"Today the Atlas review went well.","timestamp":"2026-02-10T09:00:00Z"}]}`, nil); code != http.StatusCreated {
		t.Fatalf("POST memories: %d", code)
	}
	if writes != 1 {
		t.Errorf("OnWrite called %d times, want 1", writes)
	}

	var plan client.ConsolidateResult
	if code := f.post("/v1/agents/main/consolidate", `{"dry_run":true}`, &plan); code != http.StatusOK {
		t.Fatalf("dry run: %d", code)
	}
	if plan.Plan == nil || len(plan.Plan.Days) != 2 || len(plan.Runs) != 0 {
		t.Errorf("dry run = %+v, want a plan of the two past days and no runs", plan)
	}

	var res client.ConsolidateResult
	if code := f.post("/v1/agents/main/consolidate", ``, &res); code != http.StatusOK {
		t.Fatalf("consolidate: %d", code)
	}
	if len(res.Runs) != 2 || res.Runs[0].Status != store.RunOK || res.Runs[0].Day != "2026-02-08" {
		t.Errorf("consolidate = %+v, want two ok runs", res)
	}
	if code := f.post("/v1/agents/main/consolidate", `{"date":"2026-02-10"}`, &res); code != http.StatusOK || len(res.Runs) != 1 || res.Runs[0].Memories != 1 {
		t.Errorf("consolidate today: %d %+v", code, res)
	}

	var facts struct{ Facts []client.Fact }
	f.do(http.MethodGet, "/v1/agents/main/facts?entity=Alice", nil, &facts)
	if len(facts.Facts) != 1 || facts.Facts[0].Value != "engineer" {
		t.Fatalf("facts = %+v, want Alice's role", facts)
	}
	id := facts.Facts[0].ID
	if code := f.do(http.MethodDelete, fmt.Sprintf("/v1/agents/main/facts/%d", id), nil, nil); code != http.StatusOK {
		t.Errorf("DELETE fact: %d", code)
	}
	if code := f.do(http.MethodDelete, "/v1/agents/main/facts/999", nil, nil); code != http.StatusNotFound {
		t.Errorf("DELETE missing fact: %d, want 404", code)
	}
	f.do(http.MethodGet, "/v1/agents/main/facts?entity=Alice", nil, &facts)
	if len(facts.Facts) != 0 {
		t.Errorf("facts after DELETE = %+v, want none current", facts)
	}
	// Rebuilding the day does not bring the rejected fact back.
	if code := f.post("/v1/agents/main/consolidate", `{"date":"2026-02-08"}`, &res); code != http.StatusOK {
		t.Fatalf("rebuild: %d", code)
	}
	f.do(http.MethodGet, "/v1/agents/main/facts?entity=Alice&history=true", nil, &facts)
	if len(facts.Facts) != 1 || !facts.Facts[0].Rejected {
		t.Errorf("history after rebuild = %+v, want the one rejected fact", facts)
	}

	// Busy: another holder has the lease.
	err = st.With(t.Context(), "main", false, func(a *store.Agent) error {
		_, err := a.AcquireLease(t.Context(), "consolidate", "timer", now, time.Minute)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var eb ErrorBody
	for _, tc := range []struct {
		path, body string
		status     int
		code       string
	}{
		{"/v1/agents/main/consolidate", `{"date":"2026-02-09"}`, http.StatusConflict, "busy"},
		{"/v1/agents/main/consolidate", `{"date":"9 Feb"}`, http.StatusBadRequest, "invalid_request"},
		{"/v1/agents/main/consolidate", `{"date":"2026-02-11"}`, http.StatusBadRequest, "invalid_request"},
		{"/v1/agents/main/consolidate", `{"day":"2026-02-09"}`, http.StatusBadRequest, "unknown_field"},
		{"/v1/agents/ghost/consolidate", `{}`, http.StatusNotFound, "unknown_agent"},
	} {
		eb = ErrorBody{}
		if code := f.post(tc.path, tc.body, &eb); code != tc.status || eb.Error.Code != tc.code {
			t.Errorf("POST %s %s: %d %+v, want %d %s", tc.path, tc.body, code, eb, tc.status, tc.code)
		}
	}
}

func TestConsolidateNotConfigured(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	var eb ErrorBody
	if code := f.post("/v1/agents/main/consolidate", `{}`, &eb); code != http.StatusNotImplemented {
		t.Errorf("POST consolidate without an engine: %d %+v, want 501", code, eb)
	}
}
