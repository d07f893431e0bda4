package server

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
)

// TestForgettingSticksForUploadedFiles: POST /v1/agents/{agent}/files?path=doc.md, delete one
// section's memory, upload again with only the other section edited: the deleted section comes back
// flagged, and recall never offers it.
func TestForgettingSticksForUploadedFiles(t *testing.T) {
	cl := uploadServer(t)
	ctx := t.Context()
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	note := "# Doc\n\n## A\n\nThe quokka lives on Rottnest.\n\n## B\n\nThe bilby digs burrows.\n"
	if out, err := cl.UploadFile(ctx, "main", "doc.md", []byte(note), client.UploadOptions{MTime: at, Path: "doc.md"}); err != nil || out.Inserted != 2 {
		t.Fatalf("first upload = %+v, %v", out, err)
	}
	page, err := cl.Memories(ctx, "main", client.ListOptions{})
	mems := page.Memories
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems {
		if strings.Contains(m.Content, "quokka") {
			if err := cl.DeleteMemory(ctx, "main", m.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	edited := strings.Replace(note, "digs burrows", "digs deep burrows", 1)
	if _, err := cl.UploadFile(ctx, "main", "doc.md", []byte(edited), client.UploadOptions{MTime: at.Add(time.Hour), Path: "doc.md"}); err != nil {
		t.Fatal(err)
	}
	res, err := cl.Recall(ctx, "main", client.RecallRequest{Query: "where does the quokka live"})
	if err != nil || strings.Contains(res.Context, "quokka") {
		t.Errorf("recall offers the forgotten section: %q, %v", res.Context, err)
	}
	page, err = cl.Memories(ctx, "main", client.ListOptions{})
	mems = page.Memories
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems {
		if strings.Contains(m.Content, "quokka") && !m.Flagged {
			t.Errorf("the forgotten section is back unflagged: memory %d", m.ID)
		}
	}
}
