package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestConsolidateUnderDeletesNever500s forgets a day's memories while that
// day is consolidated over and over: every consolidation either succeeds or
// answers 409, never 500.
func TestConsolidateUnderDeletesNever500s(t *testing.T) {
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	eng := &consolidate.Engine{Store: st, Consolidator: consolidate.Offline{}, Location: time.UTC,
		Now: func() time.Time { return now }}
	ts := httptest.NewServer(New(st, &recall.Engine{}, Options{AutoCreate: true, Now: func() time.Time { return now }, Consolidate: eng}))
	t.Cleanup(func() {
		ts.Close()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	f := &fixture{t: t, url: ts.URL, store: st}

	const n = 120
	var body strings.Builder
	body.WriteString(`{"memories":[`)
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"content":"Alice planted row %d of the tomatoes.","timestamp":"2026-02-09T09:%02d:%02dZ"}`, i, i/60, i%60)
	}
	body.WriteString(`]}`)
	var stored struct{ IDs []int64 }
	if code := f.post("/v1/agents/main/memories", body.String(), &stored); code != http.StatusCreated || len(stored.IDs) != n {
		t.Fatalf("POST memories: %d, %d ids", code, len(stored.IDs))
	}

	var wg sync.WaitGroup
	codes := make(chan string, 1000)
	wg.Go(func() { // the deletes
		for _, id := range stored.IDs[:n-10] {
			if code, b := send(t, http.MethodDelete, fmt.Sprintf("%s/v1/agents/main/memories/%d", f.url, id), ""); code != http.StatusOK {
				codes <- fmt.Sprintf("DELETE %d: %d %s", id, code, b)
			}
		}
	})
	for range 2 { // the consolidations, two at a time
		wg.Go(func() {
			for range 20 {
				code, b := send(t, http.MethodPost, f.url+"/v1/agents/main/consolidate", `{"date":"2026-02-09"}`)
				if code == http.StatusOK {
					continue
				}
				var eb ErrorBody
				_ = json.Unmarshal([]byte(b), &eb)
				if code != http.StatusConflict || (eb.Error.Code != "busy" && eb.Error.Code != "day_changed") {
					codes <- fmt.Sprintf("consolidate: %d %s", code, b)
				}
			}
		})
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		t.Error(c)
	}
	var res client.ConsolidateResult
	if code := f.post("/v1/agents/main/consolidate", `{"date":"2026-02-09"}`, &res); code != http.StatusOK ||
		len(res.Runs) != 1 || res.Runs[0].Status != store.RunOK || res.Runs[0].Memories != 10 {
		t.Errorf("consolidate once the deletes are over: %d %+v, want one ok run of the 10 memories left", code, res)
	}
}

// send is one request from a goroutine other than the test's: it reports
// the status and body, and fails the test only through Error.
func send(t *testing.T, method, url, body string) (int, string) {
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
