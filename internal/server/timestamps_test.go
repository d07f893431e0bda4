package server

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// TestFarFutureTimestampIs422: a timestamp past year 9999 in UTC, or further ahead of the clock than
// capture.max_future_skew (24 h by default), is refused with 422 and nothing is stored; an hour
// ahead is taken. An upload's ?mtime= is held to the same rule.
func TestFarFutureTimestampIs422(t *testing.T) {
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	f := newFixture(t, Options{AutoCreate: true, Now: func() time.Time { return now }})
	for _, tc := range []struct {
		ts     string
		status int
		want   string
	}{
		{"9999-12-31T23:59:59-23:59", http.StatusUnprocessableEntity, "year 10000"},
		{now.Add(48 * time.Hour).Format(time.RFC3339), http.StatusUnprocessableEntity, "capture.max_future_skew"},
		{now.Add(time.Hour).Format(time.RFC3339), http.StatusCreated, ""},
	} {
		var out struct {
			Error struct{ Code, Message string }
		}
		got := f.post("/v1/agents/main/memories", fmt.Sprintf(`{"content":"dated %s","timestamp":%q}`, tc.ts, tc.ts), &out)
		if got != tc.status || !strings.Contains(out.Error.Message, tc.want) {
			t.Errorf("timestamp %s: %d %+v, want %d saying %q", tc.ts, got, out.Error, tc.status, tc.want)
		}
	}
	var st client.Stats
	if f.do(http.MethodGet, "/v1/agents/main/stats", nil, &st); st.Memories != 1 {
		t.Errorf("%d memories stored, want only the one an hour ahead", st.Memories)
	}
}

func TestFarFutureUploadMTimeIs422(t *testing.T) {
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ing := &watch.Ingester{Store: st, AutoCreate: true, Location: time.UTC}
	srv := httptest.NewServer(New(st, &recall.Engine{}, Options{AutoCreate: true, Files: ing, Now: func() time.Time { return now }}))
	defer srv.Close()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "plan.md")
	w.Write([]byte("# Plan\n\nThe trip starts on Monday.\n"))
	mw.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost,
		srv.URL+"/v1/agents/main/files?mtime="+now.Add(72*time.Hour).Format(time.RFC3339), &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("upload dated 3 days ahead: %d, want 422", resp.StatusCode)
	}
}

// TestYear10000RowStillServes: an agent file holding a row stored before the check (year 10000 in
// UTC) still lists, gets and counts, with a body.
func TestYear10000RowStillServes(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	var created postMemoriesResponse
	if got := f.post("/v1/agents/main/memories", `{"content":"a row from before the check"}`, &created); got != http.StatusCreated {
		t.Fatalf("store: %d", got)
	}
	db, err := sqlite3.Open(filepath.Join(f.dir, "agents", "main.db"))
	if err != nil {
		t.Fatal(err)
	}
	far := time.Date(10000, 1, 1, 23, 58, 59, 0, time.UTC).UnixMilli()
	if err := db.Exec(fmt.Sprintf(`UPDATE daily_memories SET ts = %d WHERE id = %d`, far, created.IDs[0])); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var list struct{ Memories []client.Memory }
	var one client.Memory
	var st client.Stats
	for path, out := range map[string]any{"/v1/agents/main/memories": &list,
		fmt.Sprintf("/v1/agents/main/memories/%d", created.IDs[0]): &one, "/v1/agents/main/stats": &st} {
		if got := f.do(http.MethodGet, path, nil, out); got != http.StatusOK {
			t.Errorf("GET %s: %d", path, got)
		}
	}
	if len(list.Memories) != 1 || one.Timestamp.Year() != 9999 || st.Newest == nil || st.Newest.Year() != 9999 {
		t.Errorf("list %+v, get %+v, stats %+v: want the row, dated 9999", list.Memories, one, st)
	}
}
