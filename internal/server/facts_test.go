package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// factFixture is a server with one agent holding a day record and a fact
// drawn from it.
func factFixture(t *testing.T) (f *fixture, cl *client.Client, factID, dayID int64) {
	t.Helper()
	f = newFixture(t, Options{AutoCreate: true})
	var ins struct{ IDs []int64 }
	if code := f.post("/v1/agents/main/memories", `{"content":"Alice's role is engineer.","timestamp":"2026-02-01T09:00:00Z"}`, &ins); code != http.StatusCreated {
		t.Fatalf("POST memory: %d", code)
	}
	a, err := f.store.Acquire(t.Context(), "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.store.Release(a)
	dayID, err = a.PutConsolidation(t.Context(), store.Consolidation{Date: "2026-02-01", Summary: "Alice is an engineer.",
		SourceIDs: ins.IDs, Model: "offline"})
	if err != nil {
		t.Fatal(err)
	}
	factID, err = a.AddFact(t.Context(), store.Fact{Entity: "Alice", EntityType: "person", Attribute: "role", Value: "engineer",
		FactType: "attribute", Content: "Alice's role is engineer.", Confidence: 0.8, SourceMemoryIDs: ins.IDs,
		SourceConsolidationIDs: []int64{dayID}, ValidFrom: time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	return f, client.New(f.url), factID, dayID
}

func TestGetOneFactAndOneDayRecord(t *testing.T) {
	_, cl, factID, dayID := factFixture(t)
	ctx := t.Context()
	fact, err := cl.Fact(ctx, "main", factID)
	if err != nil || fact.ID != factID || fact.Value != "engineer" || len(fact.SourceConsolidationIDs) != 1 {
		t.Errorf("Fact = %+v, %v", fact, err)
	}
	day, err := cl.Consolidation(ctx, "main", dayID)
	if err != nil || day.ID != dayID || day.Date != "2026-02-01" || day.Summary != "Alice is an engineer." || len(day.SourceIDs) != 1 {
		t.Errorf("Consolidation = %+v, %v", day, err)
	}
	for name, call := range map[string]func(context.Context) error{
		"fact":          func(ctx context.Context) error { _, err := cl.Fact(ctx, "main", 99); return err },
		"consolidation": func(ctx context.Context) error { _, err := cl.Consolidation(ctx, "main", 99); return err },
	} {
		if err := call(ctx); !client.IsNotFound(err) {
			t.Errorf("%s 99: %v, want not found", name, err)
		}
	}
}

// TestCorrectFactOverHTTP: what the page's correction form does, as an API
// call: the correction becomes current and supersedes the old value.
func TestCorrectFactOverHTTP(t *testing.T) {
	_, cl, factID, _ := factFixture(t)
	ctx := t.Context()
	got, err := cl.CorrectFact(ctx, "main", factID, client.FactCorrection{Content: "Alice's role is manager.", Value: "manager"})
	if err != nil || got.ID == factID || got.Value != "manager" || got.Confidence != 1 || got.SupersededBy != nil {
		t.Fatalf("CorrectFact = %+v, %v", got, err)
	}
	history, err := cl.Facts(ctx, "main", client.FactsOptions{History: true})
	if err != nil {
		t.Fatal(err)
	}
	var old *client.Fact
	for i := range history {
		if history[i].ID == factID {
			old = &history[i]
		}
	}
	if old == nil || old.SupersededBy == nil || *old.SupersededBy != got.ID {
		t.Errorf("history %+v: want fact %d superseded by %d", history, factID, got.ID)
	}
	for _, tc := range []struct {
		name string
		id   int64
		corr client.FactCorrection
		code string
	}{
		{"superseded", factID, client.FactCorrection{Content: "Alice's role is director."}, "not_current"},
		{"unchanged", got.ID, client.FactCorrection{Content: "Alice's role is manager.", Value: "manager"}, "unchanged"},
		{"empty", got.ID, client.FactCorrection{Content: "  "}, "invalid_correction"},
		{"missing", 99, client.FactCorrection{Content: "x"}, "not_found"},
	} {
		_, err := cl.CorrectFact(ctx, "main", tc.id, tc.corr)
		var ae *client.APIError
		if !errors.As(err, &ae) || ae.Code != tc.code {
			t.Errorf("%s: %v, want code %s", tc.name, err, tc.code)
		}
	}
}

// TestCorrectionNotUTF8Is422: a correction whose body holds bytes that are not UTF-8 is refused
// with 422 invalid_correction, as docs/api.md says, and the fact stays current; encoding/json alone
// would have stored them as U+FFFD.
func TestCorrectionNotUTF8Is422(t *testing.T) {
	f, cl, factID, _ := factFixture(t)
	var e struct {
		Error struct{ Code, Message string }
	}
	body := "{\"content\":\"Alice's role is \xff\xfe manager.\"}"
	code := f.post("/v1/agents/main/facts/"+strconv.FormatInt(factID, 10)+"/correct", body, &e)
	if code != http.StatusUnprocessableEntity || e.Error.Code != "invalid_correction" || !strings.Contains(e.Error.Message, "UTF-8") {
		t.Errorf("a correction not UTF-8: %d %+v, want 422 invalid_correction", code, e)
	}
	facts, err := cl.Facts(t.Context(), "main", client.FactsOptions{})
	if err != nil || len(facts) != 1 || facts[0].ID != factID {
		t.Errorf("facts after the refusal: %+v, %v; want fact %d still current", facts, err, factID)
	}
}
