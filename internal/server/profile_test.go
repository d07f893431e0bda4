package server

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// profileFixture is a server with one agent whose profile says where the
// user worked in January (Arup) and, since March, works now (Atkins), and
// that they are allergic to penicillin.
func profileFixture(t *testing.T) (f *fixture, cl *client.Client, lines map[string]int64) {
	t.Helper()
	f = newFixture(t, Options{AutoCreate: true, Now: func() time.Time { return time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC) }})
	var ins struct{ IDs []int64 }
	body := `{"memories":[
		{"content":"I'm a structural engineer at Arup.","timestamp":"2026-01-05T09:00:00Z"},
		{"content":"I'm allergic to penicillin.","timestamp":"2026-01-06T09:00:00Z"},
		{"content":"Started at Atkins today.","timestamp":"2026-03-02T09:00:00Z"}]}`
	if code := f.post("/v1/agents/main/memories", body, &ins); code != http.StatusCreated || len(ins.IDs) != 3 {
		t.Fatalf("POST memories: %d %v", code, ins.IDs)
	}
	a, err := f.store.Acquire(t.Context(), "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.store.Release(a)
	jan, mar := time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	put := func(now time.Time, ls ...store.ProfileLine) {
		if _, _, err := a.PutProfileLines(t.Context(), ls, now); err != nil {
			t.Fatal(err)
		}
	}
	put(jan,
		store.ProfileLine{Category: "work", Subject: "user", Key: "employer", Value: "Arup", Text: "The user works at Arup.", Single: true,
			SourceMemoryIDs: ins.IDs[:1], ValidFrom: jan},
		store.ProfileLine{Category: "health", Subject: "user", Key: "allergy", Value: "penicillin", Text: "The user is allergic to penicillin.",
			SourceMemoryIDs: ins.IDs[1:2], ValidFrom: jan})
	put(mar, store.ProfileLine{Category: "work", Subject: "user", Key: "employer", Value: "Atkins", Text: "The user works at Atkins.", Single: true,
		SourceMemoryIDs: ins.IDs[2:], ValidFrom: mar})
	lines = map[string]int64{}
	for _, key := range []string{"employer", "allergy"} {
		h, err := a.ProfileHistory(t.Context(), "user", key)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range h {
			lines[l.Value] = l.ID
		}
	}
	return f, client.New(f.url), lines
}

func profileTexts(ls []client.ProfileLine) string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Text)
	}
	return strings.Join(out, " | ")
}

// TestProfileOverHTTP: the profile now and as it was, with citations, and
// one line by id.
func TestProfileOverHTTP(t *testing.T) {
	_, cl, lines := profileFixture(t)
	ctx := t.Context()
	now, err := cl.Profile(ctx, "main", client.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := profileTexts(now); !strings.Contains(got, "Atkins") || strings.Contains(got, "Arup") || !strings.Contains(got, "penicillin") {
		t.Errorf("profile now = %q: want Atkins and penicillin, not Arup", got)
	}
	for _, l := range now {
		if !strings.HasPrefix(l.ID, "profile:") || len(l.Sources) == 0 || !strings.HasPrefix(l.Sources[0], "memory:") || l.Category == "" {
			t.Errorf("line %+v: want a profile: id, a category and memory: sources", l)
		}
	}
	feb, err := cl.Profile(ctx, "main", client.ProfileOptions{AsOf: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)})
	if got := profileTexts(feb); err != nil || !strings.Contains(got, "Arup") || strings.Contains(got, "Atkins") {
		t.Errorf("profile as of February = %q, %v: want Arup, not Atkins", got, err)
	}
	hist, err := cl.Profile(ctx, "main", client.ProfileOptions{History: true})
	if got := profileTexts(hist); err != nil || !strings.Contains(got, "Arup") || !strings.Contains(got, "Atkins") {
		t.Errorf("profile with history = %q, %v: want both employers", got, err)
	}
	old, err := cl.ProfileLine(ctx, "main", lines["Arup"])
	if err != nil || old.ValidTo == nil || old.SupersededBy != "profile:"+itoa(lines["Atkins"]) {
		t.Errorf("ProfileLine(Arup) = %+v, %v: want it retired, superseded by the Atkins line", old, err)
	}
	if _, err := cl.ProfileLine(ctx, "main", 999); !client.IsNotFound(err) {
		t.Errorf("ProfileLine(999): %v, want not found", err)
	}
}

// TestEditAndRemoveProfileLinesOverHTTP: an edit supersedes the line with
// the person's wording and the same sources; a removal takes it out of the
// profile; a retired, removed, unknown line, or empty or oversized text is
// refused with its own code.
func TestEditAndRemoveProfileLinesOverHTTP(t *testing.T) {
	_, cl, lines := profileFixture(t)
	ctx := t.Context()
	edited, err := cl.EditProfileLine(ctx, "main", lines["Atkins"], "  The user is a bridge engineer at Atkins. ")
	if err != nil || edited.Text != "The user is a bridge engineer at Atkins." || !edited.Edited || edited.ID == "profile:"+itoa(lines["Atkins"]) ||
		len(edited.Sources) != 1 {
		t.Fatalf("EditProfileLine = %+v, %v", edited, err)
	}
	if err := cl.RemoveProfileLine(ctx, "main", lines["penicillin"]); err != nil {
		t.Fatal(err)
	}
	now, err := cl.Profile(ctx, "main", client.ProfileOptions{})
	if got := profileTexts(now); err != nil || got != "The user is a bridge engineer at Atkins." {
		t.Errorf("profile after the edit and the removal = %q, %v", got, err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		code string
	}{
		{"edit a retired line", func() error { _, err := cl.EditProfileLine(ctx, "main", lines["Atkins"], "x"); return err }, "not_current"},
		{"edit a removed line", func() error { _, err := cl.EditProfileLine(ctx, "main", lines["penicillin"], "x"); return err }, "removed"},
		{"remove a removed line", func() error { return cl.RemoveProfileLine(ctx, "main", lines["penicillin"]) }, "removed"},
		{"edit to nothing", func() error { _, err := cl.EditProfileLine(ctx, "main", idOf(edited), "   "); return err }, "invalid_profile_text"},
		{"edit to a page", func() error {
			_, err := cl.EditProfileLine(ctx, "main", idOf(edited), strings.Repeat("a", store.MaxCorrectionBytes+1))
			return err
		}, "invalid_profile_text"},
		{"edit to the same", func() error { _, err := cl.EditProfileLine(ctx, "main", idOf(edited), edited.Text); return err }, "unchanged"},
		{"edit an unknown line", func() error { _, err := cl.EditProfileLine(ctx, "main", 999, "x"); return err }, "not_found"},
		{"remove an unknown line", func() error { return cl.RemoveProfileLine(ctx, "main", 999) }, "not_found"},
	} {
		var ae *client.APIError
		if err := tc.call(); !errors.As(err, &ae) || ae.Code != tc.code {
			t.Errorf("%s: %v, want code %s", tc.name, err, tc.code)
		}
	}
}

func TestProfileRefusesBadParameters(t *testing.T) {
	f, _, lines := profileFixture(t)
	for path, want := range map[string]int{
		"/v1/agents/main/profile?as_of=yesterday": http.StatusBadRequest,
		"/v1/agents/main/profile?history=maybe":   http.StatusBadRequest,
		"/v1/agents/main/profile/abc":             http.StatusBadRequest,
		"/v1/agents/nobody/profile":               http.StatusNotFound,
	} {
		if code := f.do(http.MethodGet, path, nil, nil); code != want {
			t.Errorf("GET %s: %d, want %d", path, code, want)
		}
	}
	if code := f.do(http.MethodPatch, "/v1/agents/main/profile/1", strings.NewReader(`{"text":`), nil); code != http.StatusBadRequest {
		t.Errorf("PATCH with broken JSON: %d, want 400", code)
	}
	var e struct{ Error struct{ Code string } }
	if code := f.do(http.MethodPatch, "/v1/agents/main/profile/"+itoa(lines["Atkins"]), strings.NewReader("{\"text\":\"bridge \xff engineer\"}"), &e); code != http.StatusUnprocessableEntity || e.Error.Code != "invalid_profile_text" {
		t.Errorf("PATCH with text not UTF-8: %d %q, want 422 invalid_profile_text", code, e.Error.Code)
	}
}

func idOf(l client.ProfileLine) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(l.ID, "profile:"), 10, 64)
	return n
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestProfileHistoryKeepsEndedLines: a line ended with no successor (a
// claim retired by a correction: "I'm no longer allergic to penicillin")
// is in the history though no current line has its key, also when no
// line is current at all.
func TestProfileHistoryKeepsEndedLines(t *testing.T) {
	f, cl, lines := profileFixture(t)
	ctx := t.Context()
	a, err := f.store.Acquire(ctx, "main", false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.store.Release(a)
	source := func(value string) int64 {
		l, err := a.ProfileLine(ctx, lines[value])
		if err != nil || len(l.SourceMemoryIDs) == 0 {
			t.Fatalf("ProfileLine(%s) = %+v, %v", value, l, err)
		}
		return l.SourceMemoryIDs[0]
	}
	if err := a.RetireCorrected(ctx, []int64{source("penicillin")}, source("Atkins")); err != nil {
		t.Fatal(err)
	}
	hist, err := cl.Profile(ctx, "main", client.ProfileOptions{History: true})
	if got := profileTexts(hist); err != nil || !strings.Contains(got, "penicillin") || !strings.Contains(got, "Atkins") {
		t.Errorf("profile with history after the allergy ended = %q, %v: want the ended allergy line and Atkins", got, err)
	}
	if err := cl.RemoveProfileLine(ctx, "main", lines["Atkins"]); err != nil {
		t.Fatal(err)
	}
	hist, err = cl.Profile(ctx, "main", client.ProfileOptions{History: true})
	if got := profileTexts(hist); err != nil || !strings.Contains(got, "penicillin") || !strings.Contains(got, "Arup") {
		t.Errorf("profile with history, no line current = %q, %v: want every line ever", got, err)
	}
}
