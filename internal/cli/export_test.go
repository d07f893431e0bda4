package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMarkdownNoteListsTheKeyFacts: a day note's key facts are the
// statements consolidation drew, each citing its memories, never empty
// bullets.
func TestMarkdownNoteListsTheKeyFacts(t *testing.T) {
	data := t.TempDir()
	cmd := exitWith(t, []string{"--data", data})
	day := time.Now().AddDate(0, 0, -2)
	at := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.Local)
	cmd(ExitOK, "ingest", "--at", at.Format(time.RFC3339), "Carol's favourite colour is teal.")
	cmd(ExitOK, "consolidate")
	notes := filepath.Join(t.TempDir(), "notes")
	cmd(ExitOK, "export", "--agent", "main", "--format", "markdown", "--out", notes)
	note, err := os.ReadFile(filepath.Join(notes, at.Format(time.DateOnly)+".md"))
	if err != nil {
		t.Fatal(err)
	}
	bullets := regexp.MustCompile(`(?m)^- .*$`).FindAllString(string(note), -1)
	if len(bullets) == 0 {
		t.Fatalf("the note lists no key facts:\n%s", note)
	}
	for _, b := range bullets {
		if !strings.Contains(b, "teal") || !strings.HasSuffix(b, "(memory:1)") {
			t.Errorf("key fact bullet %q, want the statement about teal citing memory:1", b)
		}
	}
}

// TestMarkdownKeyFactsThatDoNotParseFailTheExport: a day record whose key
// facts are not what the note reads is an error, not a note without them.
func TestMarkdownKeyFactsThatDoNotParseFailTheExport(t *testing.T) {
	export := `{"type":"dormouse-export","format":1,"schema":1,"agent":"main"}
{"type":"day","date":"2026-02-01","summary":"A day.","key_facts":"[\"a string, not a key fact\"]"}
`
	dir := t.TempDir()
	_, err := writeMarkdown(strings.NewReader(export), dir, time.UTC)
	if err == nil || !strings.Contains(err.Error(), "key facts of day 2026-02-01") {
		t.Errorf("writeMarkdown = %v, want an error about the key facts of day 2026-02-01", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "2026-02-01.md")); !os.IsNotExist(err) {
		t.Errorf("a note was written for the day whose key facts failed (stat: %v)", err)
	}
}
