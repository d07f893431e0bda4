package benchdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func peerPost(t *testing.T, p *Peer, path string, in, out any) {
	t.Helper()
	body, _ := json.Marshal(in)
	resp, err := http.Post("http://"+p.Addr+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// TestPeerStoresAndFinds: the Python peer keeps single and batch POSTs and
// finds them by any word of a query, as rows and as one context string.
func TestPeerStoresAndFinds(t *testing.T) {
	p, err := StartPeer(filepath.Join(t.TempDir(), "peer.db"))
	if errors.Is(err, ErrNoPython) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var ids struct{ IDs []int64 }
	peerPost(t, p, "/memories", map[string]string{"content": "backup job finished ok", "session_id": "s1"}, &ids)
	peerPost(t, p, "/memories", map[string]any{"memories": []map[string]string{
		{"content": "deploy failed: disk full"}, {"content": "lint passed"}}}, &ids)
	if len(ids.IDs) != 2 {
		t.Fatalf("a batch of 2 got ids %v", ids.IDs)
	}
	var rows struct{ Memories []struct{ Content string } }
	peerPost(t, p, "/recall", map[string]string{"query": "backup deploy"}, &rows)
	if len(rows.Memories) != 2 {
		t.Errorf("recall of backup or deploy = %+v, want 2 rows", rows.Memories)
	}
	var ctx struct{ Context string }
	peerPost(t, p, "/context", map[string]string{"query": "lint"}, &ctx)
	if ctx.Context != "- lint passed" {
		t.Errorf("context = %q, want the one line", ctx.Context)
	}
	if strings.Contains(ctx.Context, "backup") {
		t.Error("context holds a row that does not match")
	}
}
