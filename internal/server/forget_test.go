package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestForgottenContentComesBackFlagged: after DELETE of a memory, the same
// content POSTed again is stored, listed and shown with "flagged": true,
// and recall does not offer it.
func TestForgottenContentComesBackFlagged(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	var ins struct{ IDs []int64 }
	if code := f.post("/v1/agents/main/memories", `{"content":"The wifi password is hunter2.","timestamp":"2026-02-01T09:00:00Z"}`, &ins); code != http.StatusCreated {
		t.Fatalf("POST: %d", code)
	}
	if code := f.do(http.MethodDelete, fmt.Sprintf("/v1/agents/main/memories/%d", ins.IDs[0]), nil, nil); code != http.StatusOK {
		t.Fatalf("DELETE: %d", code)
	}
	if code := f.post("/v1/agents/main/memories", `{"content":"the wifi password is: hunter2","timestamp":"2026-02-02T09:00:00Z"}`, &ins); code != http.StatusCreated {
		t.Fatalf("POST again: %d", code)
	}
	var one map[string]any
	if code := f.do(http.MethodGet, fmt.Sprintf("/v1/agents/main/memories/%d", ins.IDs[0]), nil, &one); code != http.StatusOK || one["flagged"] != true {
		t.Errorf("GET: %d %v, want flagged", code, one)
	}
	var list struct{ Memories []map[string]any }
	if f.do(http.MethodGet, "/v1/agents/main/memories", nil, &list); len(list.Memories) != 1 || list.Memories[0]["flagged"] != true {
		t.Errorf("list = %v, want the one memory, flagged", list.Memories)
	}
	var res struct {
		Items   []map[string]any
		Context string
	}
	if code := f.post("/v1/agents/main/recall", `{"query":"wifi password"}`, &res); code != http.StatusOK ||
		len(res.Items) != 0 || strings.Contains(res.Context, "hunter2") {
		t.Errorf("recall: %d %+v, want nothing", code, res)
	}
}
