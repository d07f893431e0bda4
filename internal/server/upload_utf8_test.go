package server

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// TestUploadNameNotUTF8: an upload's file name (or ?path=) is any bytes a client sends; not UTF-8
// or holding a tab, the file is stored all the same and the answer is JSON of valid UTF-8.
func TestUploadNameNotUTF8(t *testing.T) {
	cl := uploadServer(t)
	for i, c := range []struct {
		name string
		o    client.UploadOptions
	}{
		{"caf\xe9.md", client.UploadOptions{}},
		{"tab\there.md", client.UploadOptions{}},
		{"n.md", client.UploadOptions{Path: "notes/\xff\xfe.md"}},
	} {
		out, err := cl.UploadFile(t.Context(), "main", c.name, fmt.Appendf(nil, "Tapir number %d swims.\n", i), c.o)
		if err != nil || out.Status != store.FileOK || out.Inserted != 1 || !utf8.ValidString(out.Path) {
			t.Errorf("upload %q %+v = %+v, %v; want stored", c.name, c.o, out, err)
		}
	}
	page, err := cl.Memories(t.Context(), "main", client.ListOptions{})
	if err != nil || len(page.Memories) != 3 {
		t.Fatalf("memories = %+v, %v; want the 3 uploads", page, err)
	}
	for _, m := range page.Memories {
		if !utf8.ValidString(m.Source) || !utf8.ValidString(m.Content) {
			t.Errorf("memory %d: source %q content %q, want UTF-8", m.ID, m.Source, m.Content)
		}
	}
}

// uploadServer serves a store in t.TempDir() that takes files on loopback, until the test ends.
func uploadServer(t *testing.T) *client.Client {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ing := &watch.Ingester{Store: st, AutoCreate: true, Location: time.UTC}
	ts := httptest.NewServer(New(st, &recall.Engine{}, Options{AutoCreate: true, Files: ing}))
	t.Cleanup(ts.Close)
	return client.New(ts.URL)
}
