package watch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestIngestContent covers the entry point dormouse eval uses: content saved at a path at a time.
func TestIngestContent(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	at := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	note := "# Cabin\n- Guest wifi: network \"Pinecone\", password tangerine-42\n- Firewood is behind the shed.\n"
	out, err := e.ing.IngestContent(ctx, "main", "/eval", "notes/cabin.md", []byte(note), at)
	if err != nil || out.Status != store.FileOK || out.Inserted != 1 {
		t.Fatalf("IngestContent = %+v, %v", out, err)
	}
	e.agent(func(a *store.Agent) error {
		list, _, err := a.List(ctx, store.ListOptions{})
		if err != nil {
			return err
		}
		m := list[0]
		if m.Source != "notes/cabin.md" || !m.Timestamp.Equal(at) || m.InteractionType != "file" ||
			!strings.HasPrefix(m.Content, "# Cabin\n\n- Guest wifi") {
			t.Errorf("memory = %+v", m)
		}
		return nil
	})
	// Saved again later with new content: replaces; the same content again: nothing new.
	out, err = e.ing.IngestContent(ctx, "main", "/eval", "notes/cabin.md", []byte("# Cabin\n\nPassword is now fig-7.\n"), at.Add(time.Hour))
	if err != nil || out.Inserted != 1 || out.Retired != 1 {
		t.Fatalf("second save = %+v, %v", out, err)
	}
	out, err = e.ing.IngestContent(ctx, "main", "/eval", "notes/cabin.md", []byte("# Cabin\n\nPassword is now fig-7.\n"), at.Add(2*time.Hour))
	if err != nil || out.Inserted != 0 || !out.Reused {
		t.Errorf("same content again = %+v, %v", out, err)
	}
	if ids, _ := e.found("tangerine"); len(ids) != 0 {
		t.Errorf("replaced content still recalled: %v", ids)
	}
	if n, err := e.ing.Forget(ctx, "main", "/eval", "notes/cabin.md", true); err != nil || n != 1 {
		t.Errorf("Forget = %d, %v", n, err)
	}
	for _, bad := range []string{"", "/abs.md", "../up.md", "a/../../b.md"} {
		if _, err := e.ing.IngestContent(ctx, "main", "/eval", bad, []byte("x"), at); !IsInputError(err) {
			t.Errorf("IngestContent(%q) error = %v, want an InputError", bad, err)
		}
	}
}

func TestFilter(t *testing.T) {
	f := newFilter(Folder{Recursive: true, Include: nil, Exclude: []string{"drafts/", "journal/**/*.txt", "/top.md"}, Move: true})
	tests := []struct {
		rel  string
		want bool
	}{
		{"a.md", true},
		{"deep/er/b.pdf", true},
		{"x.exe", false},
		{".git/config.md", false},
		{"sub/.obsidian/app.json", false},
		{"sub/.trash/old.md", false},
		{"notes/.note.md.swp", false},
		{"notes/note.md~", false},
		{"notes/.#note.md", false},
		{"drafts/wip.md", false},
		{"a/drafts/wip.md", false},
		{"journal/2026/01/day.txt", false},
		{"journal/day.txt", false},
		{"journal/day.md", true},
		{"top.md", false},
		{"sub/top.md", true},
		{"processed/a.md", false},
		{"sub/processed/a.md", true},
	}
	for _, tt := range tests {
		if got := f.file(tt.rel); got != tt.want {
			t.Errorf("file(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
	flat := newFilter(Folder{Recursive: false, Include: []string{"*.log"}})
	if !flat.file("app.log") || flat.file("sub/app.log") || flat.file("a.md") {
		t.Error("non-recursive include *.log: want only top-level .log files")
	}
}

func TestImplausibleDatesAreNow(t *testing.T) {
	e := newEnv(t)
	before := time.Now().Add(-time.Second)
	out, err := e.ing.IngestContent(context.Background(), "main", "/r", "old.md",
		[]byte("---\ndate: 0001-01-01\n---\nAncient note.\n"), time.Unix(0, 0).Add(-time.Hour))
	if err != nil || out.Status != store.FileOK {
		t.Fatalf("IngestContent = %+v, %v; want the note stored", out, err)
	}
	e.agent(func(a *store.Agent) error {
		list, _, err := a.List(context.Background(), store.ListOptions{})
		if err == nil && (len(list) != 1 || list[0].Timestamp.Before(before)) {
			t.Errorf("memories %+v, want one dated now", list)
		}
		return err
	})
}

// TestUploadOverTheCapsStoresNothing: a file that would give more memories than files.max_parts is
// refused with the setting to raise, and none of it is stored.
func TestUploadOverTheCapsStoresNothing(t *testing.T) {
	e := newEnv(t)
	data := "[" + strings.TrimSuffix(strings.Repeat(`"an element",`, 3000), ",") + "]"
	_, err := e.ing.UploadAt(context.Background(), "main", "big.json", []byte(data), time.Now())
	if !IsInputError(err) || !strings.Contains(err.Error(), "files.max_parts") {
		t.Errorf("upload of 3,000 elements = %v, want an InputError naming files.max_parts", err)
	}
	if total, _ := e.memoryCount(); total != 0 {
		t.Errorf("%d memories stored from a refused file", total)
	}
}
